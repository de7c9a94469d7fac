/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dlctl's view of the deadline bandwidth caps of cgroup v2's cpu
 * controller (cpu.dl.max, cpu.dl.stat: kernels with the EDF-CBS class
 * and CONFIG_SCHED_DL_CGROUP; on others there are none).
 */
#ifndef DLCTL_CG_H
#define DLCTL_CG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct dlctl_cg {
	char path[512];		/* below the cgroup2 mount, "/a/b" */
	long long runtime_us;	/* the cap as written; -1: "max" */
	long long period_us;
	long long cap;		/* (runtime << 20) / period; -1: none */
	long long bw;		/* held, in 2^-20 of a CPU; -1: unknown */
	long long nr_tasks;
	long long nr_refused;
};

/* Reads @path's (below the mount) cpu.dl.max and cpu.dl.stat: 0 or -1. */
int dlctl_cg_read(const char *path, struct dlctl_cg *cg);

/*
 * Calls @fn for each cgroup with a cap, parents first; returns how many,
 * or -1 when there is no cgroup2 mount with cpu.dl.max files.
 */
int dlctl_cg_each_capped(void (*fn)(const struct dlctl_cg *cg, void *arg),
			 void *arg);

/* The cgroup v2 path of task @tid ("/a/b"), or -1. */
int dlctl_cg_of_task(pid_t tid, char *buf, size_t len);

#endif
