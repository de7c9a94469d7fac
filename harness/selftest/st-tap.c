// SPDX-License-Identifier: GPL-2.0
/*
 * st-tap: a suite that goes wrong on purpose, for the harness's own tests.
 * One test passes, one fails, one skips, one dies of a signal, and two are
 * marked as known defects: one fails as expected, one passes and so must
 * lose its mark.  The harness must count the pass, the skip and the known
 * defect and name the three failures.
 */
#include <signal.h>

#include "tap.h"

static void passes(void)
{
	CHECK(1 + 1 == 2, "arithmetic");
}

static void deliberate_failure(void)
{
	CHECK(0, "this test fails on purpose");
}

static void skips(void)
{
	SKIP("skipped on purpose");
}

static void dies_of_a_signal(void)
{
	raise(SIGSEGV);
}

static void known_defect_fails(void)
{
	tap_known_defect("DLK_SELFTEST", "yes", "fails on purpose");
	CHECK(0, "the known defect");
}

static void known_defect_passes(void)
{
	tap_known_defect("DLK_SELFTEST", "yes", "no longer fails");
}

int main(void)
{
	static const struct tap_test tests[] = {
		TAP_TEST(passes),
		TAP_TEST(deliberate_failure),
		TAP_TEST(skips),
		TAP_TEST(dies_of_a_signal),
		TAP_TEST(known_defect_fails),
		TAP_TEST(known_defect_passes),
		{ NULL, NULL }
	};

	return tap_run(tests);
}
