// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks for dlctl, from /proc and sched_getattr.  Threads are found in
 * /proc/PID/task, as taskset -a finds them; a thread that exits while
 * it is being looked at is simply not listed.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "task.h"
#include "units.h"

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The numeric entries of a /proc directory, sorted. */
static int numeric_entries(const char *dir, pid_t **out)
{
	struct dirent *e;
	pid_t *ids = NULL, *grown;
	int n = 0, cap = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			grown = realloc(ids, cap * sizeof(*ids));
			if (!grown) {
				free(ids);
				closedir(d);
				return -1;
			}
			ids = grown;
		}
		ids[n++] = atoi(e->d_name);
	}
	closedir(d);
	qsort(ids, n, sizeof(*ids), cmp_pid);
	*out = ids;
	return n;
}

int dlctl_threads(pid_t pid, pid_t **tids)
{
	char dir[64];
	int n;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	n = numeric_entries(dir, tids);
	if (n < 0 && errno == ENOENT)
		errno = ESRCH;
	return n;
}

int dlctl_task_cpu(pid_t tid)
{
	char path[64], line[1024], *p, *save = NULL;
	int field = 3;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(line, sizeof(line), f);
	fclose(f);
	/* The command name may hold spaces and parentheses: skip past it. */
	p = p ? strrchr(line, ')') : NULL;
	if (!p)
		return -1;
	for (p = strtok_r(p + 1, " ", &save); p; p = strtok_r(NULL, " ", &save))
		if (field++ == 39)
			return atoi(p);
	return -1;
}

/*
 * A CPU of the root domain whose bandwidth @tid is counted in: the one it
 * last ran on, unless that is outside its affinity (moved to another
 * cpuset, not run since), then the first CPU of its affinity.  -1 if
 * unknown.
 */
static int task_home(pid_t tid, int cpu)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(tid, sizeof(set), &set))
		return cpu;
	if (cpu >= 0 && CPU_ISSET(cpu, &set))
		return cpu;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			return i;
	return -1;
}

static void task_comm(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[96];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	f = fopen(path, "r");
	if (!f || !fgets(buf, len, f))
		snprintf(buf, len, "?");
	buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

/* Appends @tid of @pid to @list if it is a deadline task. */
static int add_if_dl(struct dlctl_dl_task **list, int *n, int *cap,
		     pid_t pid, pid_t tid)
{
	struct dlctl_dl_task t = { .pid = pid, .tid = tid };

	if (dl_getattr(tid, &t.attr, sizeof(t.attr), 0) ||
	    t.attr.sched_policy != SCHED_DEADLINE)
		return 0;
	if (*n == *cap) {
		struct dlctl_dl_task *grown;

		*cap = *cap ? *cap * 2 : 16;
		grown = realloc(*list, *cap * sizeof(**list));
		if (!grown)
			return -1;
		*list = grown;
	}
	t.cpu = dlctl_task_cpu(tid);
	t.home = task_home(tid, t.cpu);
	task_comm(pid, tid, t.comm, sizeof(t.comm));
	(*list)[(*n)++] = t;
	return 0;
}

int dlctl_dl_tasks(struct dlctl_dl_task **tasks)
{
	struct dlctl_dl_task *list = NULL;
	pid_t *pids, *tids;
	int np, nt, i, j, n = 0, cap = 0, r = 0;

	np = numeric_entries("/proc", &pids);
	if (np < 0)
		return -1;
	for (i = 0; i < np && !r; i++) {
		nt = dlctl_threads(pids[i], &tids);
		for (j = 0; j < nt && !r; j++)
			r = add_if_dl(&list, &n, &cap, pids[i], tids[j]);
		if (nt >= 0)
			free(tids);
	}
	free(pids);
	if (r) {
		free(list);
		return -1;
	}
	*tasks = list;
	return n;
}

uint64_t dlctl_to_ratio(uint64_t period, uint64_t runtime)
{
	/* As the kernel computes it, overflow of the shift included. */
	return period ? (runtime << 20) / period : 0;
}

long long dlctl_held_in(const cpu_set_t *cpus, const struct dlctl_dl_task *t,
			int n, int *count)
{
	long long held = 0;
	int i;

	*count = 0;
	for (i = 0; i < n; i++) {
		if (t[i].home < 0 || !CPU_ISSET(t[i].home, cpus))
			continue;
		held += dlctl_to_ratio(t[i].attr.sched_period,
				       t[i].attr.sched_runtime);
		(*count)++;
	}
	return held;
}

const char *dlctl_bw_str(long long bw, char *buf, size_t len)
{
	snprintf(buf, len, "%.4f", (double)bw / (1 << 20));
	return buf;
}

const char *dlctl_flags_str(uint64_t flags, char *buf, size_t len)
{
	static const struct {
		uint64_t flag;
		const char *name;
	} names[] = {
		{ DL_FLAG_RESET_ON_FORK, "reset-on-fork" },
		{ DL_FLAG_RECLAIM, "reclaim" },
		{ DL_FLAG_DL_OVERRUN, "overrun" },
	};
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if ((flags & names[i].flag) && used < len)
			used += snprintf(buf + used, len - used, "%s%s",
					 used ? "," : "", names[i].name);
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

const char *dlctl_sched_str(const struct dl_attr *a, char *buf, size_t len)
{
	static const char *const policies[] = {
		"SCHED_OTHER", "SCHED_FIFO", "SCHED_RR", "SCHED_BATCH",
		NULL, "SCHED_IDLE", "SCHED_DEADLINE", "SCHED_EXT",
	};
	char r[32], d[32], p[32], f[64], name[24];
	unsigned int pol = a->sched_policy;

	if (pol < ARRAY_SIZE(policies) && policies[pol])
		snprintf(name, sizeof(name), "%s", policies[pol]);
	else
		snprintf(name, sizeof(name), "policy %u", pol);
	dlctl_flags_str(a->sched_flags & DLCTL_FLAGS, f, sizeof(f));
	switch (pol) {
	case SCHED_DEADLINE:
		snprintf(buf, len, "%s runtime %s deadline %s period %s flags %s",
			 name, format_duration(a->sched_runtime, r, sizeof(r)),
			 format_duration(a->sched_deadline, d, sizeof(d)),
			 format_duration(a->sched_period, p, sizeof(p)), f);
		break;
	case SCHED_FIFO:
	case SCHED_RR:
		snprintf(buf, len, "%s priority %u flags %s", name,
			 a->sched_priority, f);
		break;
	case SCHED_OTHER:
	case SCHED_BATCH:
		snprintf(buf, len, "%s nice %d flags %s", name, a->sched_nice,
			 f);
		break;
	default:
		snprintf(buf, len, "%s flags %s", name, f);
	}
	return buf;
}
