/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dlctl's tasks: the threads of a process, the deadline tasks of the
 * system, and how their scheduling parameters are printed.
 */
#ifndef DLCTL_TASK_H
#define DLCTL_TASK_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dlabi.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* The flags sched_getattr reports and dlctl sets. */
#define DLCTL_FLAGS (DL_FLAG_RESET_ON_FORK | DL_FLAG_RECLAIM | DL_FLAG_DL_OVERRUN)

struct dlctl_dl_task {
	pid_t pid, tid;
	int cpu;		/* where it last ran */
	int home;		/* a CPU of the root domain it is counted in */
	char comm[32];
	struct dl_attr attr;
};

/* The thread ids of @pid into a malloc'd array; the count, or -1 and errno. */
int dlctl_threads(pid_t pid, pid_t **tids);

/* Every SCHED_DEADLINE thread, malloc'd; the count, or -1 and errno. */
int dlctl_dl_tasks(struct dlctl_dl_task **tasks);

/* The CPU @tid last ran on (/proc/TID/stat), or -1. */
int dlctl_task_cpu(pid_t tid);

/* The kernel's to_ratio(): runtime / period in units of 2^-20. */
uint64_t dlctl_to_ratio(uint64_t period, uint64_t runtime);

/*
 * The bandwidth the tasks of @t counted in a root domain of the CPUs
 * @cpus hold, in 2^-20 units; their number in *@count.  (cpu_set_t: the
 * includer defines _GNU_SOURCE.)
 */
long long dlctl_held_in(const cpu_set_t *cpus, const struct dlctl_dl_task *t,
			int n, int *count);

/* "0.1000": a bandwidth in 2^-20 units as a fraction of a CPU. */
const char *dlctl_bw_str(long long bw, char *buf, size_t len);

/* "reset-on-fork,reclaim,overrun", or "none". */
const char *dlctl_flags_str(uint64_t flags, char *buf, size_t len);

/*
 * The scheduling parameters from sched_getattr as one line:
 * "SCHED_DEADLINE runtime 10ms deadline 30ms period 100ms flags none",
 * "SCHED_OTHER nice 0 flags none", "SCHED_FIFO priority 10 flags none".
 */
const char *dlctl_sched_str(const struct dl_attr *a, char *buf, size_t len);

#endif
