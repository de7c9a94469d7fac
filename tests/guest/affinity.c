// SPDX-License-Identifier: GPL-2.0
/*
 * affinity: SCHED_DEADLINE's rule that a task's affinity covers its whole
 * root domain.
 *
 * Admission is per root domain and assumes global EDF across all of its
 * CPUs; a task pinned to a subset could be admitted and still not get its
 * bandwidth.  So, while admission control is on, a deadline task cannot
 * narrow its affinity (EBUSY) and a task with a narrower affinity cannot
 * become a deadline task (EPERM).  With sched_rt_runtime_us = -1 both are
 * allowed.  Users meet this as soon as they try taskset on a deadline
 * task; partitioning is done with cpusets instead (cpuset.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dl.h"
#include "tap.h"

#define MS NSEC_PER_MSEC

static void need_smp(void)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP("needs 2 CPUs");
}

static void known_state(void)
{
	REQUIRE(dl_sysctl_known_state() == 0, "setting the sysctls: %s",
		strerror(errno));
}

static void only_cpu0(cpu_set_t *set)
{
	CPU_ZERO(set);
	CPU_SET(0, set);
}

/* A deadline task cannot narrow its affinity: EBUSY. */
static void setaffinity_narrower_ebusy(void)
{
	cpu_set_t set, now;

	need_smp();
	known_state();
	REQUIRE(dl_become(5 * MS, 50 * MS, 100 * MS, 0) == 0, "setattr: %s",
		strerror(errno));
	only_cpu0(&set);
	CHECK_ERRNO(sched_setaffinity(0, sizeof(set), &set), EBUSY,
		    "sched_setaffinity to CPU 0");
	REQUIRE(sched_getaffinity(0, sizeof(now), &now) == 0, "getaffinity");
	CHECK(CPU_COUNT(&now) == sysconf(_SC_NPROCESSORS_ONLN),
	      "affinity now has %d CPUs", CPU_COUNT(&now));
}

/* A task whose affinity is narrower cannot become a deadline task: EPERM. */
static void setattr_with_narrow_affinity_eperm(void)
{
	struct dl_attr a = dl_attr_make(5 * MS, 50 * MS, 100 * MS, 0);
	cpu_set_t set;

	need_smp();
	known_state();
	only_cpu0(&set);
	REQUIRE(sched_setaffinity(0, sizeof(set), &set) == 0, "setaffinity: %s",
		strerror(errno));
	CHECK_ERRNO(dl_setattr(0, &a, 0), EPERM, "setattr pinned to CPU 0");
	CHECK(sched_getscheduler(0) == SCHED_OTHER, "policy changed");
}

/* With admission control off (-1) neither rule applies. */
static void rules_off_with_runtime_minus_one(void)
{
	struct dl_attr a = dl_attr_make(5 * MS, 50 * MS, 100 * MS, 0);
	cpu_set_t set;
	int r1, e1, r2, e2;

	need_smp();
	known_state();
	only_cpu0(&set);
	REQUIRE(sched_setaffinity(0, sizeof(set), &set) == 0, "setaffinity: %s",
		strerror(errno));
	REQUIRE(sysctl_set("sched_rt_runtime_us", -1) == 0, "write -1: %s",
		strerror(errno));
	r1 = dl_setattr(0, &a, 0);
	e1 = errno;
	CPU_SET(1, &set);
	r2 = sched_setaffinity(0, sizeof(set), &set);
	e2 = errno;
	/* Back to SCHED_OTHER before admission control returns. */
	a.sched_policy = SCHED_OTHER;
	a.sched_runtime = a.sched_deadline = a.sched_period = 0;
	dl_setattr(0, &a, 0);
	known_state();
	CHECK(r1 == 0, "setattr pinned with -1: %s", strerror(e1));
	CHECK(r2 == 0, "setaffinity of a deadline task with -1: %s",
	      strerror(e2));
}

int main(void)
{
	static const struct tap_test tests[] = {
		TAP_TEST(setaffinity_narrower_ebusy),
		TAP_TEST(setattr_with_narrow_affinity_eperm),
		TAP_TEST(rules_off_with_runtime_minus_one),
		{ NULL, NULL }
	};

	return tap_run(tests);
}
