/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCHED_DEADLINE's interface to user space, for the tools and the tests.
 * glibc 2.36 has no wrapper for sched_setattr/sched_getattr, and the
 * host's UAPI headers are older than the kernels they run on, so the ABI
 * is spelt out here: struct sched_attr as the kernel's
 * include/uapi/linux/sched/types.h lays it out.
 */
#ifndef DLK_DLABI_H
#define DLK_DLABI_H

#include <stdint.h>
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

/* sysctls of /proc/sys/kernel, as integers; -1 and errno on failure */
long sysctl_get(const char *name);
int sysctl_set(const char *name, long value);

#endif
