// SPDX-License-Identifier: GPL-2.0
/*
 * fork: what a deadline task's children get.
 *
 * A child of a deadline task would need bandwidth nobody admitted, so
 * fork and clone from one fail with EAGAIN; with SCHED_FLAG_RESET_ON_FORK
 * the child starts as SCHED_NORMAL at nice 0 instead, which is how a
 * deadline task runs helpers (a shell, a logger) at all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dl.h"
#include "tap.h"

#define MS NSEC_PER_MSEC

static int child_fn(void *arg)
{
	(void)arg;
	return 0;
}

/* fork(), vfork-free clone() and clone threads: all EAGAIN. */
static void fork_and_clone_eagain(void)
{
	static char stack[64 * 1024];
	pid_t pid;

	REQUIRE(dl_become(5 * MS, 50 * MS, 100 * MS, 0) == 0, "setattr: %s",
		strerror(errno));
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	CHECK_ERRNO(pid, EAGAIN, "fork");
	pid = clone(child_fn, stack + sizeof(stack), SIGCHLD, NULL);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	CHECK_ERRNO(pid, EAGAIN, "clone(SIGCHLD)");
	pid = clone(child_fn, stack + sizeof(stack),
		    CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		    CLONE_THREAD, NULL);
	CHECK_ERRNO(pid, EAGAIN, "clone(CLONE_THREAD)");
	CHECK(sched_getscheduler(0) == SCHED_DEADLINE, "parent changed policy");
}

/* With reset-on-fork the child is SCHED_NORMAL at nice 0. */
static void reset_on_fork_child_is_normal(void)
{
	int fds[2], status;
	struct {
		int policy, nice;
		struct dl_attr a;
	} seen;
	pid_t pid;

	REQUIRE(pipe(fds) == 0, "pipe");
	REQUIRE(dl_become(5 * MS, 50 * MS, 100 * MS, DL_FLAG_RESET_ON_FORK) == 0,
		"setattr: %s", strerror(errno));
	pid = fork();
	REQUIRE(pid >= 0, "fork with reset-on-fork: %s", strerror(errno));
	if (pid == 0) {
		memset(&seen, 0, sizeof(seen));
		seen.policy = sched_getscheduler(0);
		errno = 0;
		seen.nice = getpriority(PRIO_PROCESS, 0);
		dl_getattr(0, &seen.a, sizeof(seen.a), 0);
		_exit(write(fds[1], &seen, sizeof(seen)) != sizeof(seen));
	}
	close(fds[1]);
	REQUIRE(read(fds[0], &seen, sizeof(seen)) == sizeof(seen), "no report");
	waitpid(pid, &status, 0);
	CHECK(seen.policy == SCHED_OTHER, "child policy %#x", seen.policy);
	CHECK(seen.nice == 0, "child nice %d", seen.nice);
	CHECK(seen.a.sched_runtime != 5 * MS && seen.a.sched_flags == 0,
	      "child kept deadline parameters: runtime %llu flags %#llx",
	      (unsigned long long)seen.a.sched_runtime,
	      (unsigned long long)seen.a.sched_flags);
	CHECK(sched_getscheduler(0) == (SCHED_DEADLINE | SCHED_RESET_ON_FORK_BIT),
	      "parent now %#x", sched_getscheduler(0));
}

/* The child of a reset-on-fork deadline task can itself fork. */
static void reset_on_fork_grandchild(void)
{
	int status;
	pid_t pid;

	REQUIRE(dl_become(5 * MS, 50 * MS, 100 * MS, DL_FLAG_RESET_ON_FORK) == 0,
		"setattr: %s", strerror(errno));
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		pid_t g = fork();

		if (g == 0)
			_exit(0);
		_exit(g > 0 && waitpid(g, NULL, 0) == g ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child could not fork: status %#x", status);
}

int main(void)
{
	static const struct tap_test tests[] = {
		TAP_TEST(fork_and_clone_eagain),
		TAP_TEST(reset_on_fork_child_is_normal),
		TAP_TEST(reset_on_fork_grandchild),
		{ NULL, NULL }
	};

	return tap_run(tests);
}
