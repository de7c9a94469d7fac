/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCHED_DEADLINE for the guest programs: the ABI and the bandwidth
 * readers the tools use too (tools/lib/dlabi.h, tools/lib/dlbw.h), and
 * what only the tests need.
 */
#ifndef DLK_DL_H
#define DLK_DL_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "dlabi.h"
#include "dlbw.h"

/* Makes the caller a deadline task; 0 or -1 and errno. */
int dl_become(uint64_t runtime, uint64_t deadline, uint64_t period,
	      uint64_t flags);

/*
 * A child that sleeps until sleeper_end() kills it, for tests that change
 * another task's parameters or hold bandwidth.
 */
pid_t sleeper_spawn(void);
void sleeper_end(pid_t pid);
/* Wakes the sleeper once (it sleeps again), so it runs where it may now. */
void sleeper_nudge(pid_t pid);

/*
 * Zeroed memory of @size bytes shared with the children to come, which
 * starts with a pthread_mutex_t shared between processes, of @protocol
 * (PTHREAD_PRIO_INHERIT, PTHREAD_PRIO_NONE); NULL and errno on failure.
 */
void *shared_with_mutex(size_t size, int protocol);

/*
 * Every read of the sched debug file is a risk to the kernel under test,
 * stock and ours alike: in the 6.12.118 tree, print_cfs_rq() calls
 * avg_vruntime() after dropping the rq lock, and avg_vruntime() moves
 * cfs_rq->zero_vruntime and avg_vruntime.  Racing the scheduler (a tick,
 * an enqueue), a reader can leave the two out of step; then no entity is
 * eligible and pick_task_fair() dereferences NULL.  Reading the file in a
 * loop with fair tasks waking crashes either kernel within seconds.  So a
 * wait that polls the file sleeps @ms (its first value is the caller's)
 * between reads, doubling up to @max_ms.  Returns the time slept.
 */
int dl_debug_backoff(int *ms, int max_ms);

/* Waits up to @ms for the allocated total of @cpu's root domain to be @want. */
int dl_total_bw_wait(int cpu, long long want, int ms);
/*
 * As dl_total_bw_wait(), until no task holds bandwidth: the total is the
 * fair servers' share, or 0 where a root-domain rebuild dropped them (the
 * classic implementation does).
 */
int dl_total_bw_wait_idle(int cpu, int ms);

/*
 * The fair servers' reservations on the online CPUs, summed (2^-20 units),
 * or -1.  Whether they are part of a root domain's total_bw depends on the
 * kernel: the classic class drops them when it rebuilds the root domains.
 */
long long dl_fair_servers_bw(void);

/*
 * Puts sched_rt_period_us and sched_rt_runtime_us at 1000000 and 950000.
 * Any access to them rebuilds the root domains' accounting, which in the
 * classic implementation loses track of a departed task whose bandwidth
 * is still held until its 0-lag time: when that time comes, total_bw
 * underflows and the next write fails with EBUSY.  So it first waits out
 * the 0-lag time of the tasks of earlier tests (deadlines under 200 ms),
 * and retries for 2 s a refused write, or one after which total_bw is
 * found negative.  0, or -1 and errno.
 */
/*
 * Turns kernel.sched_dl_admission (the EDF-CBS class's density test) on
 * for the rest of the test: back to 0 when the test's process exits, a
 * failed REQUIRE or a skip too.  0, or -1 and errno (ENOENT: no such
 * sysctl).
 */
int dl_density_test_on(void);

int dl_sysctl_known_state(void);

#endif
