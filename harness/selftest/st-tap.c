// SPDX-License-Identifier: GPL-2.0
/*
 * st-tap: a suite that goes wrong on purpose, for the harness's own tests.
 * Two tests pass, one fails, one skips, one dies of a signal, and the rest
 * are about known defects (DLK_SELFTEST=yes plays the defective kind):
 * only the test whose defect check fired and nothing else failed is a
 * known defect; a failure of another check, a REQUIRE or a signal in a
 * marked test, a defect check that passed and a panic that did not come
 * are failures; on another kind a defect check is an ordinary check.
 *
 * "st-tap panic" is one test that says the kernel will panic, and makes
 * it panic (sysrq c): the harness must count it as that known defect;
 * "st-tap panic-other" says a divide error is coming, and makes the same
 * panic: the harness must call it a failure.
 */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

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

static void defect_fires(void)
{
	CHECK(1, "an unrelated check that passes");
	DEFECT_CHECK_OF("DLK_SELFTEST", "yes", 0, "fires on purpose", "the known defect");
}

static void defect_does_not_fire(void)
{
	DEFECT_CHECK_OF("DLK_SELFTEST", "yes", 1, "no longer fails", "the known defect");
}

static void defect_and_other_failure(void)
{
	DEFECT_CHECK_OF("DLK_SELFTEST", "yes", 0, "fires on purpose", "the known defect");
	CHECK(0, "an unrelated check fails too");
}

static void require_before_defect(void)
{
	REQUIRE(0, "the setup fails");
	DEFECT_CHECK_OF("DLK_SELFTEST", "yes", 0, "fires on purpose", "the known defect");
}

static void defect_then_signal(void)
{
	DEFECT_CHECK_OF("DLK_SELFTEST", "yes", 0, "fires on purpose", "the known defect");
	raise(SIGSEGV);
}

static void panic_that_does_not_come(void)
{
	tap_expect_panic("DLK_SELFTEST", "yes", "sysrq triggered crash", "any", "on purpose");
}

static void defect_check_elsewhere_passes(void)
{
	DEFECT_CHECK_OF("DLK_SELFTEST", "no", 1, "not this kind's", "an ordinary check");
}

static void defect_check_elsewhere_fails(void)
{
	DEFECT_CHECK_OF("DLK_SELFTEST", "no", 0, "not this kind's", "an ordinary check");
}

static void sysrq_crash(void)
{
	int fd = open("/proc/sysrq-trigger", O_WRONLY);

	REQUIRE(fd >= 0 && write(fd, "c", 1) == 1, "sysrq");
	REQUIRE(0, "still alive after sysrq c");
}

static void expected_panic_comes(void)
{
	tap_expect_panic("DLK_SELFTEST", "yes", "sysrq triggered crash", "any", "on purpose");
	sysrq_crash();
}

static void another_panic_comes(void)
{
	tap_expect_panic("DLK_SELFTEST", "yes", "divide error", "inactive_task_timer",
			 "not this one");
	sysrq_crash();
}

int main(int argc, char **argv)
{
	static const struct tap_test tests[] = {
		TAP_TEST(passes),
		TAP_TEST(deliberate_failure),
		TAP_TEST(skips),
		TAP_TEST(dies_of_a_signal),
		TAP_TEST(defect_fires),
		TAP_TEST(defect_does_not_fire),
		TAP_TEST(defect_and_other_failure),
		TAP_TEST(require_before_defect),
		TAP_TEST(defect_then_signal),
		TAP_TEST(panic_that_does_not_come),
		TAP_TEST(defect_check_elsewhere_passes),
		TAP_TEST(defect_check_elsewhere_fails),
		{ NULL, NULL }
	};
	static const struct tap_test panic[] = {
		TAP_TEST(expected_panic_comes),
		{ NULL, NULL }
	};
	static const struct tap_test panic_other[] = {
		TAP_TEST(another_panic_comes),
		{ NULL, NULL }
	};

	if (argc > 1 && !strcmp(argv[1], "panic"))
		return tap_run(panic);
	if (argc > 1 && !strcmp(argv[1], "panic-other"))
		return tap_run(panic_other);
	return tap_run(tests);
}
