/* SPDX-License-Identifier: GPL-2.0 */
/* Control files: sysfs, cgroupfs, procfs. */
#ifndef DLK_FILE_H
#define DLK_FILE_H

/*
 * Writes the formatted text to @path in one write(); 0, or -1 with the
 * errno of the open, the write or the close.
 */
int file_put(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
