// SPDX-License-Identifier: GPL-2.0
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dl.h"

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

int dl_become(uint64_t runtime, uint64_t deadline, uint64_t period,
	      uint64_t flags)
{
	struct dl_attr a = dl_attr_make(runtime, deadline, period, flags);

	return dl_setattr(0, &a, 0) ? -1 : 0;
}

pid_t sleeper_spawn(void)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

void sleeper_end(pid_t pid)
{
	struct dl_attr other = { .size = DL_ATTR_SIZE_VER1 };

	dl_setattr(pid, &other, 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}
