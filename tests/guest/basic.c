// SPDX-License-Identifier: GPL-2.0
/*
 * basic: the first guest suite, the smoke test of the harness and of a
 * kernel under test.  It checks that the guest came up with the vCPUs the
 * harness asked for (every SMP test depends on it) and the SCHED_DEADLINE
 * basics every user meets first: a task can become a deadline task,
 * sched_getattr gives back what was set, and fork from it is refused.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dl.h"
#include "tap.h"

/* Counts the CPUs in a sysfs list such as "0-1,3". */
static int count_cpu_list(const char *s)
{
	int n = 0;

	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			return -1;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		n += (int)(b - a + 1);
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* The guest has exactly the vCPUs the harness gave QEMU, all online. */
static void cpus_as_requested(void)
{
	const char *want = getenv("DLK_CPUS");
	char buf[128] = "";
	FILE *f;

	REQUIRE(want && *want, "DLK_CPUS unset: not started by the harness");
	f = fopen("/sys/devices/system/cpu/online", "r");
	REQUIRE(f, "open cpu/online: %s", strerror(errno));
	REQUIRE(fgets(buf, sizeof(buf), f), "read cpu/online");
	fclose(f);
	tap_diag("online: %s", strtok(buf, "\n"));
	CHECK(count_cpu_list(buf) == atoi(want),
	      "%d CPUs online, harness asked for %s", count_cpu_list(buf), want);
	CHECK(sysconf(_SC_NPROCESSORS_ONLN) == atoi(want),
	      "sysconf says %ld CPUs", sysconf(_SC_NPROCESSORS_ONLN));
}

/* 10 ms every 100 ms with a 30 ms deadline is admitted on any machine. */
static void setattr_then_getattr(void)
{
	struct dl_attr got;

	REQUIRE(dl_become(10 * NSEC_PER_MSEC, 30 * NSEC_PER_MSEC,
			  100 * NSEC_PER_MSEC, 0) == 0,
		"sched_setattr: %s", strerror(errno));
	CHECK(sched_getscheduler(0) == SCHED_DEADLINE,
	      "sched_getscheduler = %d", sched_getscheduler(0));
	memset(&got, 0xff, sizeof(got));
	REQUIRE(dl_getattr(0, &got, sizeof(got), 0) == 0,
		"sched_getattr: %s", strerror(errno));
	CHECK(got.size == DL_ATTR_SIZE_VER1, "size %u", got.size);
	CHECK(got.sched_policy == SCHED_DEADLINE, "policy %u", got.sched_policy);
	CHECK(got.sched_runtime == 10 * NSEC_PER_MSEC, "runtime %llu",
	      (unsigned long long)got.sched_runtime);
	CHECK(got.sched_deadline == 30 * NSEC_PER_MSEC, "deadline %llu",
	      (unsigned long long)got.sched_deadline);
	CHECK(got.sched_period == 100 * NSEC_PER_MSEC, "period %llu",
	      (unsigned long long)got.sched_period);
	CHECK(got.sched_flags == 0, "flags %#llx",
	      (unsigned long long)got.sched_flags);
}

/* A deadline task cannot fork: the child's bandwidth was never admitted. */
static void fork_is_eagain(void)
{
	pid_t pid;

	REQUIRE(dl_become(10 * NSEC_PER_MSEC, 100 * NSEC_PER_MSEC,
			  100 * NSEC_PER_MSEC, 0) == 0,
		"sched_setattr: %s", strerror(errno));
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	CHECK_ERRNO(pid, EAGAIN, "fork from a deadline task");
}

int main(void)
{
	static const struct tap_test tests[] = {
		TAP_TEST(cpus_as_requested),
		TAP_TEST(setattr_then_getattr),
		TAP_TEST(fork_is_eagain),
		{ NULL, NULL }
	};

	return tap_run(tests);
}
