/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why the kernel refused a SCHED_DEADLINE request, in words: each errno
 * of sched_setattr traced back to the rule of Linux 6.12 behind it
 * (kernel/sched/syscalls.c __sched_setscheduler, deadline.c
 * __checkparam_dl and sched_dl_overflow).
 */
#ifndef DLCTL_EXPLAIN_H
#define DLCTL_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dlabi.h"

/*
 * Tells on stderr why sched_setattr(@tid, @a) failed with @err; @label
 * names the task in the messages ("pid 123").
 */
void dlctl_explain(int err, pid_t tid, const char *label,
		   const struct dl_attr *a);

#endif
