/* SPDX-License-Identifier: GPL-2.0 */
/* Control files: sysfs, cgroupfs, procfs. */
#ifndef DLK_FILE_H
#define DLK_FILE_H

#include <sys/types.h>

/*
 * Writes the formatted text to @path in one write(); 0, or -1 with the
 * errno of the open, the write or the close.
 */
int file_put(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * From /proc/@pid/stat: the task's state letter and the CPU it last ran
 * on (field 39), each stored where its pointer is not NULL.  0, or -1 if
 * the task is gone or the line does not parse.
 */
int proc_stat_cpu(pid_t pid, char *state, int *cpu);
/* The number after "NAME :" in @path (/proc/PID/sched): 0, or -1. */
int proc_field(const char *path, const char *name, long long *v);

#endif
