/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCHED_DEADLINE for the guest programs.  glibc 2.36 has no wrapper for
 * sched_setattr/sched_getattr, and the host's UAPI headers are older than
 * the kernels under test, so the ABI is spelt out here: struct sched_attr
 * as the kernel's include/uapi/linux/sched/types.h lays it out.
 */
#ifndef DLK_DL_H
#define DLK_DL_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif
#define SCHED_RESET_ON_FORK_BIT 0x40000000

#define DL_FLAG_RESET_ON_FORK	0x01
#define DL_FLAG_RECLAIM		0x02
#define DL_FLAG_DL_OVERRUN	0x04
#define DL_FLAG_KEEP_POLICY	0x08
#define DL_FLAG_KEEP_PARAMS	0x10
#define DL_FLAG_UTIL_CLAMP_MIN	0x20
#define DL_FLAG_UTIL_CLAMP_MAX	0x40
#define DL_FLAG_SUGOV		0x10000000

#define DL_ATTR_SIZE_VER0 48
#define DL_ATTR_SIZE_VER1 56

struct dl_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL

/* The raw syscalls: -1 and errno on failure, as the kernel returns them. */
long dl_setattr(pid_t pid, const void *attr, unsigned int flags);
long dl_getattr(pid_t pid, void *attr, unsigned int size, unsigned int flags);

/* A deadline attr of VER1 size with the given parameters in ns. */
struct dl_attr dl_attr_make(uint64_t runtime, uint64_t deadline,
			    uint64_t period, uint64_t flags);

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

/* sysctls, as integers; -1 and errno on failure */
long sysctl_get(const char *name);
int sysctl_set(const char *name, long value);

/*
 * The deadline bandwidth of the root domain of @cpu, as the sched debug
 * file shows it (units of 2^-20 of a CPU): the limit per CPU and the total
 * allocated.  0 on success.
 */
int dl_bw_of_cpu(int cpu, long long *bw, long long *total_bw);

#define DL_MAX_CPUS 1024	/* glibc's CPU_SETSIZE */
#define DL_BW_NONE LLONG_MIN	/* both values can be -1, or negative */
/*
 * The same for CPUs 0 to @n - 1 (at most DL_MAX_CPUS), from one read of
 * the file: @bw[c] and @total[c], or DL_BW_NONE for both where it shows
 * no CPU c (an offline one).  0, or -1 if the file cannot be read.  On
 * our implementation the file read is sched/deadline_pool, which shows
 * the same figures without the race described below.
 */
int dl_bw_of_cpus(int n, long long *bw, long long *total);
/* The same from sched/debug only, and from sched/deadline_pool only. */
int dl_bw_of_cpus_debug(int n, long long *bw, long long *total);
/*
 * Our implementation shows each online CPU's root domain's limit and
 * total in sched/deadline_pool too, read under the locks that change
 * them: there a read does not risk the race below.  -1 if the kernel has
 * no such file (stock).
 */
int dl_bw_of_cpus_pool(int n, long long *bw, long long *total);

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

/*
 * The sched debug file, opened to be read as SCHED_FIFO: the calling
 * thread, if it is a fair one and may, runs as SCHED_FIFO until
 * dl_debug_close() puts its policy back.  A fair reader preempted inside
 * print_cfs_rq()'s unlocked update lets other fair tasks move that run
 * queue before it stores what it computed; no fair task preempts a
 * real-time one.  Two readers in a loop beside four fair pipelines crash
 * stock in 3 s on 2 vCPUs and in 26 s on one as fair tasks; as FIFO
 * ones, it ran 60 s on both without a crash.  NULL and errno if the
 * file cannot be opened.
 */
FILE *dl_debug_open(int *saved);
/* Closes @f (if not NULL) and gives the thread back policy @saved. */
void dl_debug_close(FILE *f, int saved);

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

#define DL_BW_UNIT (1LL << 20)

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
int dl_sysctl_known_state(void);

#endif
