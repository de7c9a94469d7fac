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
 * Marks the running test as failing, for @reason, on kernels whose
 * implementation (the environment variable @var, set by the guest's init
 * from the kernel command line: DLK_DL, DLK_COMPONENT) is @impl.  There a
 * failure is reported as "not ok ... # XFAIL reason", which the harness
 * lists as a known defect, and a pass as a failure: the mark must go.
 * Elsewhere the test must simply pass.
 */
void tap_known_defect(const char *var, const char *impl, const char *reason);
#define KNOWN_DEFECT_OF_CLASSIC_DL(reason)				\
	tap_known_defect("DLK_DL", "classic", (reason))

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
