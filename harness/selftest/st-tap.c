// SPDX-License-Identifier: GPL-2.0
/*
 * st-tap: a suite that goes wrong on purpose, for the harness's own tests.
 * One test passes, one fails, one skips and one dies of a signal; the
 * harness must count the pass and the skip and name both failures.
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

int main(void)
{
	static const struct tap_test tests[] = {
		TAP_TEST(passes),
		TAP_TEST(deliberate_failure),
		TAP_TEST(skips),
		TAP_TEST(dies_of_a_signal),
		{ NULL, NULL }
	};

	return tap_run(tests);
}
