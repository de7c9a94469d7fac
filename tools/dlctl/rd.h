/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dlctl's view of the root domains: which CPUs share one SCHED_DEADLINE
 * admission test, and the bandwidth the kernel reports for each.  The
 * kernel shows no root domain's span, so the spans are rebuilt from the
 * cpuset hierarchy as kernel/cgroup/cpuset.c generate_sched_domains()
 * builds them; the files that include this define _GNU_SOURCE (cpu_set_t).
 */
#ifndef DLCTL_RD_H
#define DLCTL_RD_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define DLCTL_MAX_RD 32

struct dlctl_rd {
	cpu_set_t cpus;		/* its online CPUs */
	int ncpus;
	long long cap;		/* their capacity, 1024 for a full CPU */
	long long bw;		/* limit per CPU in 2^-20 of a CPU; -1: none */
	long long total_bw;	/* allocated, in 2^-20 of a CPU */
	bool bw_known;		/* both read from the sched debug file */
	char why[160];		/* how its CPUs were found */
};

struct dlctl_rds {
	struct dlctl_rd rd[DLCTL_MAX_RD];
	int n;
	cpu_set_t online;
	char how[320];		/* what was assumed, for the user */
};

/* Finds the root domains and their bandwidth; 0, or -1 and errno. */
int dlctl_rd_scan(struct dlctl_rds *rds);

/* The root domain holding @cpu, or NULL. */
const struct dlctl_rd *dlctl_rd_of_cpu(const struct dlctl_rds *rds, int cpu);

/* bw scaled by the capacity, as __dl_overflow() compares it; -1: none. */
long long dlctl_rd_limit(const struct dlctl_rd *rd);

/* A set as "0-3,5" ("none" if empty). */
const char *dlctl_cpulist(const cpu_set_t *set, char *buf, size_t len);

#endif
