// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "file.h"

int file_put(const char *path, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(buf)) {
		errno = EINVAL;
		return -1;
	}
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	if (write(fd, buf, n) != n) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

int proc_stat_cpu(pid_t pid, char *state, int *cpu)
{
	char path[64], line[512], *rp = NULL;
	char st;
	int c;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		rp = strrchr(line, ')');
	fclose(f);
	/*
	 * The command name, in parentheses, may hold spaces and parentheses
	 * itself: start after the last ')'.  Fields 3 (state) to 39.
	 */
	if (!rp || sscanf(rp + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
			  "%*u %*u %*u %*d %*d %*d %*d %*d %*d %*u %*u %*d "
			  "%*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u "
			  "%*u %*d %d", &st, &c) != 2)
		return -1;
	if (state)
		*state = st;
	if (cpu)
		*cpu = c;
	return 0;
}

/* The number after "@name :" in a /proc/PID/sched-style file @path. */
int proc_field(const char *path, const char *name, long long *v)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t n = strlen(name);
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (colon && !strncmp(line, name, n) &&
		    (line[n] == ' ' || line[n] == ':'))
			found = sscanf(colon + 1, "%lld", v) == 1;
	}
	fclose(f);
	return found ? 0 : -1;
}
