// SPDX-License-Identifier: GPL-2.0
/*
 * TAP producer: see tap.h.  The child reports its verdict through its exit
 * status (0 pass, 1 fail, 3 known defect, 4 skip) and the reason of a skip
 * or a known defect through a pipe.
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

enum { TAP_PASS = 0, TAP_FAIL = 1, TAP_XFAIL = 3, TAP_SKIP = 4 };

/*
 * The child tells the parent a skip reason or the known defect it showed
 * through a pipe, as one message when it ends: a letter (S or X) and the
 * reason.
 */

static bool failed;
static int skip_fd = -1;
static const char *test_name;

/* The running test's known defects: see tap.h. */
static struct {
	int checks;		/* defect checks made on the defective kind */
	int fired;		/* of which failed: the defect showed */
	char reason[200];	/* the first that fired */
	bool panic;		/* a panic is due (tap_expect_panic) */
	char panic_what[200];
} defect;

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

/* The child's one message to the parent: a letter and the reason. */
static void send(char kind, const char *reason)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "%c%s", kind, reason);
	if (skip_fd >= 0 && write(skip_fd, msg, strlen(msg)) < 0)
		tap_diag("%s lost: %s", kind == 'S' ? "skip reason" :
			 "known defect", strerror(errno));
}

void tap_skip_now(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	send('S', msg);
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

void tap_defect_check(bool ok, const char *var, const char *impl,
		      const char *reason, const char *file, int line,
		      const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	if (!tap_impl_is(var, impl)) {
		vcheck(ok, file, line, fmt, ap);
		va_end(ap);
		return;
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	defect.checks++;
	if (ok)
		return;
	if (!defect.fired++)
		snprintf(defect.reason, sizeof(defect.reason), "%s %s: %s",
			 impl, var + 4, reason);
	tap_diag("%s:%d: %s (the known defect of %s %s: %s)", file, line, msg,
		 impl, var + 4, reason);
}

void tap_expect_panic(const char *var, const char *impl, const char *text,
		      const char *func, const char *reason)
{
	char line[512];
	int fd;

	if (!tap_impl_is(var, impl))
		return;
	snprintf(defect.panic_what, sizeof(defect.panic_what),
		 "'%s' in %s", text, func);
	snprintf(line, sizeof(line), "DLK-PANIC %s: %s: %s %s: %s\n",
		 test_name ? test_name : "?", defect.panic_what, impl, var + 4,
		 reason);
	defect.panic = true;
	tap_diag("%.*s", (int)strlen(line) - 1, line);
	/*
	 * The console is written at once, in order with the report to
	 * come; this program's output may still be on its way when the
	 * kernel dies.
	 */
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, line, strlen(line)) < 0)
		tap_diag("/dev/kmsg: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
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

/* The verdict of a test that returned, from its checks. */
static int verdict(void)
{
	if (defect.panic) {
		tap_diag("the kernel did not panic (%s) as this test expects "
			 "on this kernel: the mark must go", defect.panic_what);
		return TAP_FAIL;
	}
	if (failed) {
		if (defect.fired)
			tap_diag("its known defect showed (%s), but another "
				 "check failed: not that known defect",
				 defect.reason);
		return TAP_FAIL;
	}
	if (defect.fired) {
		send('X', defect.reason);
		return TAP_XFAIL;
	}
	if (defect.checks) {
		tap_diag("every defect check passed (%d): the known defect did "
			 "not show, the mark must go", defect.checks);
		return TAP_FAIL;
	}
	return TAP_PASS;
}

static void child(const struct tap_test *t, int fd)
{
	skip_fd = fd;
	test_name = t->name;
	t->fn();
	fflush(stdout);
	exit(verdict());
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
	if (v == TAP_SKIP && why[0] == 'S') {
		printf("ok %d %s # SKIP %s\n", n, name, why + 1);
	} else if (v == TAP_XFAIL && why[0] == 'X') {
		printf("not ok %d %s # XFAIL %s\n", n, name, why + 1);
	} else if (v == TAP_PASS) {
		printf("ok %d %s\n", n, name);
	} else {
		/* A REQUIRE, a signal, or an exit status of its own. */
		if (v != TAP_FAIL)
			tap_diag("%s: exit status %d, message '%s'", name, v,
				 why);
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

/* @path's lines as diagnostics, where the kernel has it. */
void tap_diag_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		tap_diag("%s: %s", path, line);
	}
	fclose(f);
}
