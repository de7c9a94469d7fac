// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "dlbw.h"

FILE *dl_debug_open(int *saved)
{
	struct sched_param rt = {
		.sched_priority = sched_get_priority_max(SCHED_FIFO),
	};
	int pol = sched_getscheduler(0), base = pol & ~SCHED_RESET_ON_FORK;
	FILE *f;

	*saved = -1;
	if (base == SCHED_OTHER || base == SCHED_BATCH || base == SCHED_IDLE) {
		if (!sched_setscheduler(0, SCHED_FIFO, &rt))
			*saved = pol;
	}
	f = fopen("/sys/kernel/debug/sched/debug", "r");
	if (!f)
		dl_debug_close(NULL, *saved);
	return f;
}

void dl_debug_close(FILE *f, int saved)
{
	struct sched_param none = { 0 };
	int err = errno;

	if (f)
		fclose(f);
	if (saved >= 0)
		sched_setscheduler(0, saved, &none);
	errno = err;
}

int dl_bw_of_cpus_pool(int n, long long *bw, long long *total)
{
	FILE *f = fopen("/sys/kernel/debug/sched/deadline_pool", "r");
	long long b, t;
	char line[256];
	int cpu, found = 0;

	for (cpu = 0; cpu < n; cpu++)
		bw[cpu] = total[cpu] = DL_BW_NONE;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "cpu%d this_bw %*u running_bw %*u rd_bw %lld rd_total_bw %lld",
			   &cpu, &b, &t) != 3)
			continue;
		found = 1;
		if (cpu >= 0 && cpu < n) {
			bw[cpu] = b;
			total[cpu] = t;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

int dl_bw_of_cpus(int n, long long *bw, long long *total)
{
	if (!dl_bw_of_cpus_pool(n, bw, total))
		return 0;
	return dl_bw_of_cpus_debug(n, bw, total);
}

int dl_bw_of_cpus_debug(int n, long long *bw, long long *total)
{
	char line[256];
	int cpu = -1, i, saved;
	FILE *f;

	for (i = 0; i < n; i++)
		bw[i] = total[i] = DL_BW_NONE;
	f = dl_debug_open(&saved);
	if (!f)
		return -1;
	/* The dl_rq[N] sections come in CPU order: stop after the last. */
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (sscanf(line, "dl_rq[%d]:", &cpu) == 1) {
			if (cpu >= n)
				break;
			continue;
		}
		if (cpu < 0 || !colon)
			continue;
		if (strstr(line, ".dl_bw->bw "))
			sscanf(colon + 1, "%lld", &bw[cpu]);
		else if (strstr(line, ".dl_bw->total_bw "))
			sscanf(colon + 1, "%lld", &total[cpu]);
	}
	dl_debug_close(f, saved);
	return 0;
}

int dl_bw_of_cpu(int cpu, long long *bw, long long *total_bw)
{
	long long b[DL_MAX_CPUS], t[DL_MAX_CPUS];

	if (cpu < 0 || cpu >= DL_MAX_CPUS || dl_bw_of_cpus(cpu + 1, b, t) ||
	    b[cpu] == DL_BW_NONE || t[cpu] == DL_BW_NONE)
		return -1;
	*bw = b[cpu];
	*total_bw = t[cpu];
	return 0;
}
