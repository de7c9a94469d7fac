/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Time and work for the timing suites.  Work is thread CPU time: a test
 * spins until its thread's CPU clock has advanced by the amount it wants,
 * never a loop calibrated against a clock that emulation makes unfaithful.
 * A "gap" is a stretch of wall time in which the thread did not run: with
 * one CPU and nothing else runnable, that is the CBS throttling it.
 */
#ifndef DLK_SPIN_H
#define DLK_SPIN_H

#include <stdint.h>

/* CLOCK_MONOTONIC and CLOCK_THREAD_CPUTIME_ID, in ns. */
int64_t now_ns(void);
int64_t cpu_ns(void);
/* Sleeps until CLOCK_MONOTONIC time @t (ns), whatever signals come. */
void sleep_until(int64_t t);

/* Spins until the thread has used @ns more CPU time. */
void spin_cpu(int64_t ns);

/* A step of the spin's loop charged this much CPU time was a stall. */
#define STALL_NS 1000000

/*
 * Host stalls seen while spinning: CPU time the kernel charged to the
 * thread while it executed nothing.  One look at the clocks takes
 * microseconds, so a step between two looks charged STALL_NS or more was
 * the vCPU kept from running by the host (or a long interrupt, which the
 * kernel charges to the thread it interrupted), never the scheduler: a
 * thread the scheduler does not run is not charged.
 */
struct stalls {
	int64_t total;		/* CPU time charged in stalls */
	int64_t longest;	/* the longest stall */
};

/* spin_cpu(), adding the stalls it sees to @st. */
void spin_cpu_stalls(int64_t ns, struct stalls *st);

/* Shortest stretch of wall time, not running, taken for a throttle. */
#define GAP_NS 200000

struct run {
	int64_t start;		/* wall time the run began */
	int64_t used;		/* CPU time used in it */
	int64_t gap;		/* wall time not running after it */
	int64_t resumed;	/* wall time the thread ran again */
	int64_t cpu_end;	/* thread CPU clock when the run ended */
};

/*
 * Spins until the thread stops running for GAP_NS or more (or @limit ns
 * of wall time pass: gap is then 0) and describes the run that ended.
 */
struct run spin_until_gap(int64_t limit);

#endif
