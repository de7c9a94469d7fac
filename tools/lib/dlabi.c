// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dlabi.h"

long dl_setattr(pid_t pid, const void *attr, unsigned int flags)
{
	return syscall(SYS_sched_setattr, pid, attr, flags);
}

long dl_getattr(pid_t pid, void *attr, unsigned int size, unsigned int flags)
{
	return syscall(SYS_sched_getattr, pid, attr, size, flags);
}

struct dl_attr dl_attr_make(uint64_t runtime, uint64_t deadline,
			    uint64_t period, uint64_t flags)
{
	struct dl_attr a = {
		.size = DL_ATTR_SIZE_VER1,
		.sched_policy = SCHED_DEADLINE,
		.sched_flags = flags,
		.sched_runtime = runtime,
		.sched_deadline = deadline,
		.sched_period = period,
	};

	return a;
}

static FILE *sysctl_open(const char *name, const char *mode)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	return fopen(path, mode);
}

long sysctl_get(const char *name)
{
	FILE *f = sysctl_open(name, "r");
	long v;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int sysctl_set(const char *name, long value)
{
	FILE *f = sysctl_open(name, "w");
	int r;

	if (!f)
		return -1;
	/* The error of a refused write comes at the flush. */
	r = fprintf(f, "%ld\n", value) < 0;
	r |= fclose(f) != 0;
	return r ? -1 : 0;
}
