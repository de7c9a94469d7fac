/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Known defects of the classic implementations, in the KUnit suites built
 * out of tree.  A module defines DLK_DEFECT_CLASSIC (true on a kernel that
 * runs the classic implementation the defects are about) and
 * DLK_DEFECT_VAR (its name in the harness's reports: "DL", "COMPONENT")
 * before it includes this.
 *
 * DEFECT_EXPECT(test, ok, reason, fmt, ...) is the check that shows the
 * defect @reason.  Elsewhere it is an ordinary expectation: the case
 * fails, with the message, if !ok.  On the classic implementation, !ok is
 * that known defect: the case logs the message and then "DLK-DEFECT
 * classic VAR: reason", and does not fail for it; the harness counts the
 * case as that known defect if nothing else failed in it, and as a
 * failure if anything did (harness/ktapsum.c, tests/guest/kunit.c).  A
 * defect check that passes there fails the case: the defect did not show,
 * and the mark must go.  So each defect check of a case must fire on the
 * classic implementation.
 *
 * DEFECT_PANIC(name, text, func, reason): the case @name ("suite/case")
 * is about to make the classic implementation panic (oops=panic), with a
 * report whose first line holds @text and whose RIP is in @func.  Says so on the console,
 * where the harness finds it (see tests/lib/tap.h: tap_expect_panic()):
 * that panic is then the known defect.  The case must run alone in a boot
 * of its own.
 */
#ifndef DLK_DEFECT_H
#define DLK_DEFECT_H

#include <kunit/test.h>

#define DEFECT_EXPECT(test, ok, reason, fmt, ...)			\
	do {								\
		bool ok_ = (ok);					\
									\
		if (!DLK_DEFECT_CLASSIC) {				\
			if (!ok_)					\
				KUNIT_FAIL(test, fmt, ##__VA_ARGS__);	\
		} else if (!ok_) {					\
			kunit_info(test, fmt "\n", ##__VA_ARGS__);	\
			kunit_info(test, "DLK-DEFECT classic "		\
				   DLK_DEFECT_VAR ": %s\n", (reason));	\
		} else {						\
			KUNIT_FAIL(test, "the known defect of the "	\
				   "classic implementation did not "	\
				   "show (%s): the mark must go",	\
				   (reason));				\
		}							\
	} while (0)

#define DEFECT_PANIC(name, text, func, reason)				\
	pr_warn("DLK-PANIC %s: '%s' in %s: classic " DLK_DEFECT_VAR	\
		": %s\n", (name), (text), (func), (reason))

#endif
