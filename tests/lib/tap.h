/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small TAP producer for the guest suites.
 *
 * Each test is a function run in its own child process, so a test that
 * crashes, leaves SCHED_DEADLINE state behind or hangs in a syscall cannot
 * take the rest of the suite with it.  The parent prints one TAP line per
 * test; the child prints diagnostics ("# ...") that explain a failure.
 */
#ifndef DLK_TAP_H
#define DLK_TAP_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

struct tap_test {
	const char *name;
	void (*fn)(void);
};

#define TAP_TEST(f) { #f, f }

/* Run every test of the table (ended by a NULL name); returns exit status. */
int tap_run(const struct tap_test *tests);

/* Inside a test. */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* @path's lines as diagnostics, where the kernel has it. */
void tap_diag_file(const char *path);
void tap_check(bool ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void tap_fail_now(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
void tap_skip_now(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* CHECK records a failure and goes on; REQUIRE ends the test. */
#define CHECK(cond, ...) tap_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define REQUIRE(cond, ...)						\
	do {								\
		if (!(cond))						\
			tap_fail_now(__FILE__, __LINE__, __VA_ARGS__);	\
	} while (0)
#define SKIP(...) tap_skip_now(__VA_ARGS__)

/* Whether this is a debug kernel (DLK_DEBUG=1, on the command line). */
bool tap_debug_kernel(void);

/*
 * Skips the running test on a debug kernel: its timing assertions do not
 * hold there, for either implementation.
 */
void tap_skip_on_debug_kernel(void);

/*
 * Known defects: behaviour that one implementation is known to get wrong,
 * on kernels whose implementation (the environment variable @var, set by
 * the guest's init from the kernel command line: DLK_DL, DLK_COMPONENT)
 * is @impl.  The defect is declared at the check that shows it:
 *
 *	DEFECT_CHECK(cond, reason, fmt, ...)	(@impl classic of DLK_DL)
 *
 * Elsewhere it is an ordinary CHECK: on ours, and on "fixed", the tree's
 * implementation with the fixes of patches/classic-fixes, where the defects
 * are gone (harness/boot.sh).  On @impl, a defect check that
 * fails records the defect, and the test is reported "not ok ... # XFAIL
 * impl VAR: reason", which the harness lists as a known defect, only if
 * nothing else went wrong: any other failing CHECK or REQUIRE, or a
 * signal, makes it a plain failure.  A test on @impl whose defect checks
 * all passed is a failure too: the mark must go.
 */
void tap_defect_check(bool ok, const char *var, const char *impl,
		      const char *reason, const char *file, int line,
		      const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
#define DEFECT_CHECK_OF(var, impl, cond, reason, ...)			\
	tap_defect_check(!!(cond), (var), (impl), (reason), __FILE__,	\
			 __LINE__, __VA_ARGS__)
#define DEFECT_CHECK(cond, reason, ...)					\
	DEFECT_CHECK_OF("DLK_DL", "classic", cond, reason, __VA_ARGS__)

/*
 * A known defect that panics the kernel: on @impl of @var, the running
 * test is about to make the kernel panic with a report whose first line
 * holds @text, in the function @func ("any": wherever).  Says so on the
 * kernel's console ("DLK-PANIC test: 'text' in func: impl VAR: reason"),
 * where the harness finds it: the panic that follows is then that known
 * defect, and the boot's other tests must not run after it (the test runs
 * in a boot of its own).  Any other panic, or none, is a failure: a test
 * that returns on @impl after this call fails (the mark must go).
 * Elsewhere it does nothing.
 */
void tap_expect_panic(const char *var, const char *impl, const char *text,
		      const char *func, const char *reason);
#define EXPECT_PANIC_OF_CLASSIC_DL(text, func, reason)			\
	tap_expect_panic("DLK_DL", "classic", (text), (func), (reason))

/* Whether the implementation named by @var (as above) is @impl. */
bool tap_impl_is(const char *var, const char *impl);
#define CLASSIC_DL() tap_impl_is("DLK_DL", "classic")

/* A syscall result that must be -1 with errno E. */
#define CHECK_ERRNO(ret, e, what)					\
	do {								\
		long r_ = (ret);					\
		int e_ = errno;						\
									\
		tap_check_errno(r_, e_, (e), #e, __FILE__, __LINE__,	\
				(what));				\
	} while (0)
void tap_check_errno(long ret, int err, int want, const char *wname,
		     const char *file, int line, const char *what);

#endif
