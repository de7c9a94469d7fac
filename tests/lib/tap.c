// SPDX-License-Identifier: GPL-2.0
/*
 * TAP producer: see tap.h.  The child reports its verdict through its exit
 * status (0 pass, 1 fail, 4 skip) and a skip reason through a pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

enum { TAP_PASS = 0, TAP_FAIL = 1, TAP_SKIP = 4 };

/*
 * The child tells the parent a skip reason or a known-defect mark through
 * a pipe, as one message: a letter (S or X) and the reason.
 */

static bool failed;
static int skip_fd = -1;

static void vdiag(const char *fmt, va_list ap)
{
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(fmt, ap);
	va_end(ap);
}

static void vcheck(bool ok, const char *file, int line, const char *fmt,
		   va_list ap)
{
	char msg[512];

	if (ok)
		return;
	failed = true;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	tap_diag("%s:%d: %s", file, line, msg);
}

void tap_check(bool ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcheck(ok, file, line, fmt, ap);
	va_end(ap);
}

void tap_fail_now(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcheck(false, file, line, fmt, ap);
	va_end(ap);
	exit(TAP_FAIL);
}

void tap_skip_now(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	msg[0] = 'S';
	va_start(ap, fmt);
	vsnprintf(msg + 1, sizeof(msg) - 1, fmt, ap);
	va_end(ap);
	if (skip_fd >= 0 && write(skip_fd, msg, strlen(msg)) < 0)
		tap_diag("skip reason lost: %s", strerror(errno));
	exit(TAP_SKIP);
}

bool tap_debug_kernel(void)
{
	const char *d = getenv("DLK_DEBUG");

	return d && !strcmp(d, "1");
}

void tap_skip_on_debug_kernel(void)
{
	if (tap_debug_kernel())
		tap_skip_now("timing is not asserted on a debug kernel: KASAN "
			     "and lockdep make every path several times slower");
}

bool tap_impl_is(const char *var, const char *impl)
{
	const char *v = getenv(var);

	return v && !strcmp(v, impl);
}

void tap_known_defect(const char *var, const char *impl, const char *reason)
{
	char msg[256];

	if (!tap_impl_is(var, impl))
		return;
	snprintf(msg, sizeof(msg), "X%s %s: %s", impl, var + 4, reason);
	if (skip_fd >= 0 && write(skip_fd, msg, strlen(msg)) < 0)
		tap_diag("known-defect mark lost: %s", strerror(errno));
	/* one message per test: the pipe is read to its end by the parent */
	close(skip_fd);
	skip_fd = -1;
}

void tap_check_errno(long ret, int err, int want, const char *wname,
		     const char *file, int line, const char *what)
{
	if (ret == -1 && err == want)
		return;
	if (ret == -1)
		tap_check(false, file, line, "%s: errno %d (%s), want %s",
			  what, err, strerror(err), wname);
	else
		tap_check(false, file, line, "%s: returned %ld, want -1 %s",
			  what, ret, wname);
}

static void child(const struct tap_test *t, int fd)
{
	skip_fd = fd;
	t->fn();
	fflush(stdout);
	exit(failed ? TAP_FAIL : TAP_PASS);
}

/*
 * Runs one test; returns its verdict and fills @why with its message.
 * The test runs in a process group of its own, killed whole when the
 * test ends: children it left behind (sleepers holding bandwidth, a
 * spinning hog) must not outlive it, nor hold the message pipe open.
 */
static int run_one(const struct tap_test *t, char *why, size_t len)
{
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	why[0] = '\0';
	if (pipe(fds) < 0)
		return TAP_FAIL;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		tap_diag("fork: %s", strerror(errno));
		return TAP_FAIL;
	}
	if (pid == 0) {
		setpgid(0, 0);
		close(fds[0]);
		child(t, fds[1]);
	}
	setpgid(pid, pid);
	close(fds[1]);
	if (waitpid(pid, &status, 0) < 0)
		status = -1;
	kill(-pid, SIGKILL);
	/* The message is in the pipe already; what is not, never comes. */
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	n = read(fds[0], why, len - 1);
	why[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	if (status == -1)
		return TAP_FAIL;
	if (WIFSIGNALED(status)) {
		tap_diag("%s: killed by signal %d (%s)", t->name,
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
		return TAP_FAIL;
	}
	return WEXITSTATUS(status);
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Prints the TAP line of test @n from its verdict and its message. */
static void report(int n, const char *name, int v, const char *why, int *nfail)
{
	bool marked = why[0] == 'X';

	if (v == TAP_SKIP) {
		printf("ok %d %s # SKIP %s\n", n, name, why[0] ? why + 1 : "");
	} else if (marked && v != TAP_PASS) {
		printf("not ok %d %s # XFAIL %s\n", n, name, why + 1);
	} else if (marked) {
		tap_diag("%s passed, but is marked as a known defect (%s): "
			 "remove the mark", name, why + 1);
		printf("not ok %d %s\n", n, name);
		(*nfail)++;
	} else if (v == TAP_PASS) {
		printf("ok %d %s\n", n, name);
	} else {
		printf("not ok %d %s\n", n, name);
		(*nfail)++;
	}
	fflush(stdout);
}

int tap_run(const struct tap_test *tests)
{
	const char *only = getenv("TAP_ONLY");
	int n = 0, i, nfail = 0;
	char why[256];
	double t0;

	while (tests[n].name)
		n++;
	printf("TAP version 13\n1..%d\n", n);
	for (i = 0; i < n; i++) {
		int v;

		/* TAP_ONLY=name runs one test, for debugging; the rest skip. */
		if (only && strcmp(only, tests[i].name)) {
			printf("ok %d %s # SKIP not TAP_ONLY\n", i + 1, tests[i].name);
			continue;
		}
		t0 = mono_s();
		v = run_one(&tests[i], why, sizeof(why));
		/* Where a suite's time goes: the tests that take long. */
		if (mono_s() - t0 >= 1.0)
			tap_diag("%s took %.1f s", tests[i].name, mono_s() - t0);
		report(i + 1, tests[i].name, v, why, &nfail);
	}
	return nfail ? 1 : 0;
}
