// SPDX-License-Identifier: GPL-2.0
/*
 * toolctl: dlctl, the installed /usr/local/bin/dlctl, as its users and
 * their scripts meet it.  Each test runs it (fork, exec), captures its
 * stdout, stderr and exit status, and checks them against the kernel:
 * parameters are read back with sched_getattr, bandwidth numbers against
 * the sched debug file, and a suggestion such as "runtime up to X" is
 * tried on the kernel (X admitted, one nanosecond more refused).  The
 * explanations are checked for the cause they must name and for the
 * causes they must not.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dl.h"
#include "file.h"
#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define DLCTL "/usr/local/bin/dlctl"
#define MS NSEC_PER_MSEC
#define NOBODY 65534
/* How an explanation names a cause that holds, not one ruled out. */
#define CAUSE "dlctl:   cause: "

struct res {
	int status;		/* exit status; -1 if killed by a signal */
	char out[16384];
	char err[16384];
};

static int ncpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static void need_smp(void)
{
	if (ncpus() < 2)
		SKIP("needs 2 CPUs");
}

/* The sysctls as the suites expect them; returns CPU 0's allocated total. */
static long long known_state(void)
{
	long long bw, total;

	REQUIRE(dl_sysctl_known_state() == 0, "setting the sysctls: %s",
		strerror(errno));
	REQUIRE(dl_bw_of_cpu(0, &bw, &total) == 0, "read sched/debug");
	return total;
}

/*
 * Waits for the bandwidth of the test's deadline tasks, gone now, to come
 * back (at their 0-lag time): the next test's rebuild of the root domains
 * must not come before it (see dl_sysctl_known_state()).
 */
static void settle(long long base)
{
	long long bw, total = 0;

	if (dl_total_bw_wait(0, base, 2000) == 0)
		return;
	dl_bw_of_cpu(0, &bw, &total);
	tap_diag("the allocated total is %lld, not back at %lld after 2 s",
		 total, base);
}

static int scratch_fd(void)
{
	char name[] = "/tmp/toolctl.XXXXXX";
	int fd = mkstemp(name);

	REQUIRE(fd >= 0, "mkstemp: %s", strerror(errno));
	unlink(name);
	return fd;
}

static void slurp(int fd, char *buf, size_t len)
{
	size_t used = 0;
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	while (used + 1 < len && (n = read(fd, buf + used, len - 1 - used)) > 0)
		used += n;
	buf[used] = '\0';
	close(fd);
}

/* Shows what dlctl printed, line by line, for the log of a failure. */
static void diag_lines(const char *tag, const char *text)
{
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n");

		tap_diag("  %s %.*s", tag, (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* Runs dlctl with @argv (argv[0] included) as @uid (-1: as the test). */
static int dlctl_run(struct res *r, int uid, const char *const *argv)
{
	int out = scratch_fd(), err = scratch_fd(), st, i;
	char cmd[512] = "$";
	pid_t pid;

	for (i = 0; argv[i]; i++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %s",
			 argv[i]);
	fflush(stdout);
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(out, 1);
		dup2(err, 2);
		if (uid >= 0 && (setgid(uid) || setuid(uid)))
			_exit(99);
		execv(DLCTL, (char **)argv);
		_exit(98);
	}
	REQUIRE(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	slurp(out, r->out, sizeof(r->out));
	slurp(err, r->err, sizeof(r->err));
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	tap_diag("%s  => %d", cmd, r->status);
	diag_lines("1>", r->out);
	diag_lines("2>", r->err);
	REQUIRE(r->status != 98, "exec %s failed", DLCTL);
	return r->status;
}

#define DLCTL_RUN(r, ...)						\
	dlctl_run((r), -1, (const char *const[]){ "dlctl", __VA_ARGS__, NULL })
#define DLCTL_AS(r, uid, ...)						\
	dlctl_run((r), (uid), (const char *const[]){ "dlctl", __VA_ARGS__, NULL })

static const char *num(char *buf, long v)
{
	sprintf(buf, "%ld", v);
	return buf;
}

static bool has(const char *text, const char *what)
{
	return strstr(text, what);
}

/* The number after @key in @text ("allocated 123"); -1 if absent. */
static long long number_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	long long v;

	if (!p || sscanf(p + strlen(key), "%lld", &v) != 1)
		return -1;
	return v;
}

/* In "limit 1.9000 (1992294)", the number in parentheses after @key. */
static long long paren_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	p = p ? strchr(p, '(') : NULL;
	return p ? number_after(p, "(") : -1;
}

/* "80.000209ms" to ns, as dlctl writes durations; 0 if not one. */
static unsigned long long to_ns(const char *s)
{
	static const struct {
		const char *name;
		unsigned long long ns;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", MS }, { "s", 1000 * MS } };
	unsigned long long whole, frac = 0, scale = 1;
	char *end;
	size_t i;

	whole = strtoull(s, &end, 10);
	if (*end == '.')
		for (end++; *end >= '0' && *end <= '9'; end++) {
			frac = frac * 10 + (*end - '0');
			scale *= 10;
		}
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(end, units[i].name))
			return whole * units[i].ns + frac * units[i].ns / scale;
	return 0;
}

static struct dl_attr attr_of(pid_t pid)
{
	struct dl_attr a = { .size = DL_ATTR_SIZE_VER1 };

	REQUIRE(dl_getattr(pid, &a, sizeof(a), 0) == 0, "getattr %d: %s", pid,
		strerror(errno));
	return a;
}

static void check_dl(pid_t pid, uint64_t r, uint64_t d, uint64_t p)
{
	struct dl_attr a = attr_of(pid);

	CHECK(a.sched_policy == SCHED_DEADLINE, "pid %d: policy %u", pid,
	      a.sched_policy);
	CHECK(a.sched_runtime == r && a.sched_deadline == d &&
	      a.sched_period == p,
	      "pid %d: runtime %llu deadline %llu period %llu, want %llu %llu %llu",
	      pid, (unsigned long long)a.sched_runtime,
	      (unsigned long long)a.sched_deadline,
	      (unsigned long long)a.sched_period, (unsigned long long)r,
	      (unsigned long long)d, (unsigned long long)p);
}

static void check_other(pid_t pid)
{
	CHECK(attr_of(pid).sched_policy == SCHED_OTHER,
	      "pid %d is no longer SCHED_OTHER", pid);
}

/* --help and -h: the usage with the exit statuses, on stdout, status 0. */
static void help_exits_0(void)
{
	struct res r;

	CHECK(DLCTL_RUN(&r, "--help") == 0, "--help: wrong exit status");
	CHECK(has(r.out, "Usage:") && has(r.out, "--runtime") &&
	      has(r.out, "127"), "--help: no usage with exit statuses");
	CHECK(!r.err[0], "--help wrote to stderr");
	CHECK(DLCTL_RUN(&r, "-h") == 0 && has(r.out, "Usage:"), "-h: wrong exit status");
}

/* Usage errors are status 2 and name what is wrong. */
static void usage_errors_exit_2(void)
{
	struct res r;

	CHECK(dlctl_run(&r, -1, (const char *const[]){ "dlctl", NULL }) == 2 &&
	      has(r.err, "dlctl: "),
	      "no arguments: wrong exit status");
	CHECK(DLCTL_RUN(&r, "--bogus") == 2 && has(r.err, "'--bogus'"),
	      "unknown option: wrong exit status");
	CHECK(DLCTL_RUN(&r, "-a", "--runtime", "1ms", "--period", "10ms") == 2 &&
	      has(r.err, "--all-tasks"), "-a without -p: wrong exit status");
	CHECK(DLCTL_RUN(&r, "--runtime", "1ms", "--", "true") == 2 &&
	      has(r.err, "--deadline or --period"),
	      "runtime alone: wrong exit status");
	CHECK(DLCTL_RUN(&r, "-p", "12x") == 2 && has(r.err, "'12x'"),
	      "bad pid: wrong exit status");
}

/* The command is the deadline task: it reads its own parameters back. */
static void run_command_reads_back(void)
{
	long long base;
	char want[128];
	struct res r;
	pid_t pid;

	base = known_state();
	DLCTL_RUN(&r, "--runtime", "10ms", "--deadline", "30ms", "--period",
		  "100ms", "--", DLCTL, "-p", "0");
	CHECK(r.status == 0, "wrong exit status");
	CHECK(sscanf(r.out, "pid %d:", &pid) == 1, "no pid in the output");
	snprintf(want, sizeof(want),
		 "pid %d: SCHED_DEADLINE runtime 10ms deadline 30ms period 100ms flags none\n",
		 pid);
	CHECK(!strcmp(r.out, want), "output is not '%s'", want);
	CHECK(!r.err[0], "something on stderr");
	settle(base);
}

/* A command left running: sched_getattr on it, and dlctl -p on it. */
static void run_sleep_then_show(void)
{
	long long base;
	char buf[16], comm[32] = "", want[128];
	struct res r;
	pid_t pid;
	int i;

	base = known_state();
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		execl(DLCTL, "dlctl", "--runtime", "5ms", "--period", "50ms",
		      "sleep", "10", NULL);
		_exit(98);
	}
	/* Until the exec of sleep, the deadline task is dlctl itself. */
	for (i = 0; i < 200 && strcmp(comm, "sleep\n"); i++) {
		char path[64];
		FILE *f;

		usleep(10 * 1000);
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		f = fopen(path, "r");
		if (f && !fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		if (f)
			fclose(f);
	}
	REQUIRE(!strcmp(comm, "sleep\n"), "pid %d never became sleep", pid);
	check_dl(pid, 5 * MS, 50 * MS, 50 * MS);
	DLCTL_RUN(&r, "-p", num(buf, pid));
	snprintf(want, sizeof(want),
		 "pid %d: SCHED_DEADLINE runtime 5ms deadline 50ms period 50ms flags none\n",
		 pid);
	CHECK(r.status == 0 && !strcmp(r.out, want), "show: not '%s'", want);
	sleeper_end(pid);
	settle(base);
}

/* A bare number is ns; fractions and every unit are exact. */
static void units_parsed(void)
{
	long long base;
	pid_t s = sleeper_spawn();
	struct res r;
	char buf[16];

	base = known_state();
	num(buf, s);
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", "10000000", "--deadline",
			"30000us", "--period", "0.1s") == 0,
	      "bare ns: wrong exit status");
	check_dl(s, 10 * MS, 30 * MS, 100 * MS);
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", "2.5ms", "--deadline",
			"30ms", "--period", "100000000ns") == 0,
	      "2.5ms: wrong exit status");
	check_dl(s, 2500 * 1000, 30 * MS, 100 * MS);
	CHECK(DLCTL_RUN(&r, "-v", "-p", buf, "--runtime", "10ms", "--period",
			"100ms") == 0 &&
	      has(r.out, "runtime 10ms deadline 100ms period 100ms"),
	      "-v does not show what was set");
	sleeper_end(s);
	settle(base);
}

/* A bad unit is status 2, names the option and the value, sets nothing. */
static void bad_unit_exit_2(void)
{
	pid_t s = sleeper_spawn();
	struct res r;
	char buf[16];

	num(buf, s);
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", "10xs", "--period",
			"100ms") == 2,
	      "wrong exit status");
	CHECK(has(r.err, "--runtime") && has(r.err, "'10xs'"),
	      "the message does not name --runtime and 10xs");
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", "1ms", "--period",
			"-5ms") == 2 && has(r.err, "--period") &&
	      has(r.err, "'-5ms'"), "negative period: wrong exit status");
	check_other(s);
	sleeper_end(s);
}

/* The deadline defaults to the period, the period to the deadline. */
static void defaults_each_other(void)
{
	long long base;
	pid_t s = sleeper_spawn();
	struct res r;
	char buf[16];

	base = known_state();
	num(buf, s);
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", "5ms", "--period",
			"50ms") == 0, "wrong exit status");
	check_dl(s, 5 * MS, 50 * MS, 50 * MS);
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", "5ms", "--deadline",
			"40ms") == 0, "wrong exit status");
	check_dl(s, 5 * MS, 40 * MS, 40 * MS);
	sleeper_end(s);
	settle(base);
}

/* --reclaim, --overrun, --reset-on-fork reach the kernel and come back. */
static void flags_read_back(void)
{
	long long base;
	pid_t s = sleeper_spawn();
	struct res r;
	char buf[16];

	base = known_state();
	num(buf, s);
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", "5ms", "--period", "50ms",
			"--reclaim", "--overrun", "--reset-on-fork") == 0,
	      "wrong exit status");
	CHECK((attr_of(s).sched_flags & 7) ==
	      (DL_FLAG_RECLAIM | DL_FLAG_DL_OVERRUN | DL_FLAG_RESET_ON_FORK),
	      "flags %#llx", (unsigned long long)attr_of(s).sched_flags);
	CHECK(DLCTL_RUN(&r, "-p", buf) == 0 &&
	      has(r.out, "flags reset-on-fork,reclaim,overrun\n"),
	      "show does not list the flags");
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", "5ms", "--period",
			"50ms", "-R") == 0, "wrong exit status");
	CHECK((attr_of(s).sched_flags & 7) == DL_FLAG_RESET_ON_FORK,
	      "-R alone: flags %#llx",
	      (unsigned long long)attr_of(s).sched_flags);
	sleeper_end(s);
	settle(base);
}

/* runtime > deadline: EINVAL, and that rule named with the values. */
static void einval_runtime_above_deadline(void)
{
	pid_t s = sleeper_spawn();
	struct res r;
	char buf[16];

	CHECK(DLCTL_RUN(&r, "-p", num(buf, s), "--runtime", "40ms",
			"--deadline", "30ms", "--period", "100ms") == 1,
	      "wrong exit status");
	CHECK(has(r.err, "EINVAL") && has(r.err, "runtime 40ms > deadline 30ms"),
	      "the rule broken is not named");
	CHECK(!has(r.err, "below the minimum") && !has(r.err, "outside"),
	      "rules not broken are named");
	check_other(s);
	sleeper_end(s);
}

/* Below 1024 ns of runtime, or a period out of the sysctls' range. */
static void einval_runtime_too_small(void)
{
	pid_t s = sleeper_spawn();
	struct res r;
	char buf[16];

	num(buf, s);
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", "1000", "--deadline",
			"30ms", "--period", "100ms") == 1,
	      "wrong exit status");
	CHECK(has(r.err, "EINVAL") && has(r.err, "below the minimum 1024ns"),
	      "the minimum runtime is not named");
	CHECK(!has(r.err, "> deadline"), "runtime > deadline named");
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", "10us", "--period",
			"50us") == 1 && has(r.err, "period 50us is outside"),
	      "period below sched_deadline_period_min_us not named");
	check_other(s);
	sleeper_end(s);
}

/* A pid that is gone: ESRCH, status 1. */
static void esrch_no_such_pid(void)
{
	struct res r;
	char buf[16];
	pid_t pid = fork();

	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	num(buf, pid);
	CHECK(DLCTL_RUN(&r, "-p", buf) == 1 && has(r.err, "no such process"),
	      "show: wrong exit status");
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", "1ms", "--period",
			"10ms") == 1 && has(r.err, "no such process"),
	      "set: wrong exit status");
}

/* Sleepers holding 0.95 of a CPU each, on all CPUs but one. */
static int hold_all_but_one(pid_t *h, int max)
{
	struct dl_attr a = dl_attr_make(95 * MS, 100 * MS, 100 * MS, 0);
	int i, n = ncpus() - 1 < max ? ncpus() - 1 : max;

	for (i = 0; i < n; i++) {
		h[i] = sleeper_spawn();
		REQUIRE(dl_setattr(h[i], &a, 0) == 0, "holding 0.95: %s",
			strerror(errno));
	}
	return n;
}

/*
 * EBUSY: with 0.95 of a CPU held on each CPU but one, a whole CPU more
 * does not fit.  The numbers are the debug file's; the runtime said to
 * fit does, one nanosecond more does not.
 */
/*
 * The runtime dlctl said fits with a period of 100 ms (in @r's stderr)
 * is the line: 1 ns more is refused, it is admitted, for task @pid.
 * Returns it, in ns.
 */
static unsigned long long fit_is_exact(struct res *r, const char *pid)
{
	char fit[32] = "", more[32];
	unsigned long long x;
	const char *p = strstr(r->err, "runtime up to ");

	REQUIRE(p && sscanf(p, "runtime up to %31s", fit) == 1,
		"no runtime that fits");
	x = to_ns(fit);
	REQUIRE(x > 0, "'%s' is not a duration", fit);
	snprintf(more, sizeof(more), "%lluns", x + 1);
	CHECK(DLCTL_RUN(r, "-p", pid, "--runtime", more, "--period",
			"100ms") == 1 && has(r->err, "EBUSY"),
	      "%s, 1ns more than said to fit, was not refused", more);
	CHECK(DLCTL_RUN(r, "-p", pid, "--runtime", fit, "--period",
			"100ms") == 0, "%s, said to fit, was refused", fit);
	return x;
}

static void ebusy_explained(void)
{
	long long base;
	char buf[16], held[96];
	long long lim, alloc, avail, bw, total;
	unsigned long long x;
	pid_t h[8], s;
	struct res r;
	int n, i;

	base = known_state();
	n = hold_all_but_one(h, 8);
	s = sleeper_spawn();
	num(buf, s);
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", "100ms", "--period",
			"100ms") == 1, "wrong exit status");
	REQUIRE(dl_bw_of_cpu(0, &bw, &total) == 0, "read sched/debug");
	CHECK(has(r.err, "EBUSY"), "no EBUSY");
	lim = number_after(r.err, "limit ");
	alloc = number_after(r.err, "allocated ");
	avail = number_after(r.err, "available ");
	tap_diag("debugfs: bw %lld total_bw %lld", bw, total);
	CHECK(lim == bw * ncpus(), "limit %lld, debugfs %lld x %d", lim, bw,
	      ncpus());
	CHECK(alloc == total, "allocated %lld, debugfs %lld", alloc, total);
	CHECK(avail == lim - alloc, "available %lld", avail);
	CHECK(number_after(r.err, "requested ") == 1 << 20, "requested");
	snprintf(held, sizeof(held), "%d deadline task%s in the root domain hold%s %lld",
		 n, n == 1 ? "" : "s", n == 1 ? "s" : "",
		 (long long)(n * ((95 * MS << 20) / (100 * MS))));
	CHECK(has(r.err, held), "no '%s'", held);
	x = fit_is_exact(&r, buf);
	check_dl(s, x, 100 * MS, 100 * MS);
	sleeper_end(s);
	for (i = 0; i < n; i++)
		sleeper_end(h[i]);
	settle(base);
}

/* An unprivileged caller: EPERM, privilege named, nothing else. */
static void eperm_unprivileged(void)
{
	struct res r;

	known_state();
	CHECK(DLCTL_AS(&r, NOBODY, "--runtime", "10ms", "--period", "100ms",
		       "--", "true") == 1, "wrong exit status");
	CHECK(has(r.err, "EPERM") && has(r.err, CAUSE "privilege"),
	      "privilege not named");
	CHECK(!has(r.err, CAUSE "affinity") && !has(r.err, CAUSE "limit"),
	      "a cause that does not hold is named");
}

/* A target pinned to one CPU of two: EPERM, affinity named. */
static void eperm_narrow_affinity(void)
{
	pid_t s = sleeper_spawn();
	struct res r;
	cpu_set_t set;
	char buf[16];

	need_smp();
	known_state();
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	REQUIRE(sched_setaffinity(s, sizeof(set), &set) == 0,
		"setaffinity: %s", strerror(errno));
	sleeper_nudge(s);
	CHECK(DLCTL_RUN(&r, "-p", num(buf, s), "--runtime", "10ms", "--period",
			"100ms") == 1, "wrong exit status");
	CHECK(has(r.err, "EPERM") && has(r.err, CAUSE "affinity"),
	      "affinity not named");
	CHECK(has(r.err, "not the cause: privilege") &&
	      has(r.err, "not the cause: limit"), "other causes not ruled out");
	check_other(s);
	sleeper_end(s);
}

/* sched_rt_runtime_us = 0: EPERM, the disabled limit named. */
static void eperm_limit_zero(void)
{
	struct res r;
	int st, w;

	known_state();
	w = sysctl_set("sched_rt_runtime_us", 0);
	st = w ? -1 : DLCTL_RUN(&r, "--runtime", "1ms", "--period", "100ms",
				"--", "true");
	known_state();
	REQUIRE(w == 0, "writing 0 to sched_rt_runtime_us: %s",
		strerror(errno));
	CHECK(st == 1, "status %d", st);
	CHECK(has(r.err, "EPERM") && has(r.err, CAUSE "limit"),
	      "the disabled limit not named");
	CHECK(has(r.err, "not the cause: privilege") &&
	      has(r.err, "not the cause: affinity"),
	      "other causes not ruled out");
}

static void *pause_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* A process of 4 threads, waiting; its pid. */
static pid_t threads_spawn(void)
{
	int fds[2], i;
	char c;
	pid_t pid;

	REQUIRE(pipe(fds) == 0, "pipe: %s", strerror(errno));
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		pthread_t t;

		for (i = 0; i < 3; i++)
			if (pthread_create(&t, NULL, pause_thread, NULL))
				_exit(1);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		pause_thread(NULL);
	}
	close(fds[1]);
	REQUIRE(read(fds[0], &c, 1) == 1, "the threads did not start");
	close(fds[0]);
	return pid;
}

static int thread_ids(pid_t pid, pid_t *tids, int max)
{
	struct dirent *e;
	char dir[64];
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	d = opendir(dir);
	REQUIRE(d, "%s: %s", dir, strerror(errno));
	while ((e = readdir(d)) && n < max)
		if (e->d_name[0] != '.')
			tids[n++] = atoi(e->d_name);
	closedir(d);
	return n;
}

/* -p sets one thread; -a all of them, and shows each on a line. */
static void all_threads(void)
{
	long long base;
	pid_t pid = threads_spawn(), tids[8];
	int n = thread_ids(pid, tids, 8), i, lines = 0;
	char buf[16], want[96];
	struct res r;

	base = known_state();
	REQUIRE(n == 4, "%d threads", n);
	num(buf, pid);
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", "1ms", "--period",
			"100ms") == 0, "wrong exit status");
	for (i = 0; i < n; i++)
		if (tids[i] != pid)
			check_other(tids[i]);
	check_dl(pid, 1 * MS, 100 * MS, 100 * MS);
	CHECK(DLCTL_RUN(&r, "-a", "-p", buf, "--runtime", "2ms", "--period",
			"100ms") == 0, "-a: wrong exit status");
	for (i = 0; i < n; i++)
		check_dl(tids[i], 2 * MS, 100 * MS, 100 * MS);
	CHECK(DLCTL_RUN(&r, "-a", "-p", buf) == 0, "-a show: wrong exit status");
	for (i = 0; i < n; i++) {
		snprintf(want, sizeof(want),
			 "pid %d tid %d: SCHED_DEADLINE runtime 2ms ", pid,
			 tids[i]);
		lines += has(r.out, want);
	}
	CHECK(lines == n, "%d of %d threads shown", lines, n);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	settle(base);
}

/* The line of root domain @cpus in status output. */
static const char *rd_line(const char *out, const char *cpus)
{
	char key[64];

	snprintf(key, sizeof(key), "root domain CPUs %s: ", cpus);
	return strstr(out, key);
}

/* status lists a deadline task, and the bandwidth as debugfs has it. */
static void status_lists_task(void)
{
	long long base;
	struct dl_attr a = dl_attr_make(7 * MS, 70 * MS, 100 * MS,
					DL_FLAG_RECLAIM);
	char all[32], rt[32], dl[32], per[32], bwstr[32], fl[64];
	long long bw, total, lim, alloc;
	pid_t s = sleeper_spawn(), pid, tid;
	const char *p, *line;
	struct res r;
	int found = 0;

	base = known_state();
	REQUIRE(dl_setattr(s, &a, 0) == 0, "setattr: %s", strerror(errno));
	CHECK(DLCTL_RUN(&r, "status") == 0, "wrong exit status");
	for (p = r.out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		int cpu;

		if (sscanf(p, "%d %d %*s %31s %31s %31s %31s %d %63s", &pid,
			   &tid, rt, dl, per, bwstr, &cpu, fl) == 8 &&
		    pid == s && tid == s)
			found = !strcmp(rt, "7ms") && !strcmp(dl, "70ms") &&
				!strcmp(per, "100ms") &&
				!strcmp(bwstr, "0.0700") &&
				!strcmp(fl, "reclaim");
	}
	CHECK(found, "no line 'pid %d ... 7ms 70ms 100ms 0.0700 cpu reclaim'",
	      s);
	snprintf(all, sizeof(all), "0-%d", ncpus() - 1);
	line = rd_line(r.out, ncpus() > 1 ? all : "0");
	REQUIRE(line, "no root domain of all CPUs");
	REQUIRE(dl_bw_of_cpu(0, &bw, &total) == 0, "read sched/debug");
	lim = paren_after(line, "limit ");
	alloc = paren_after(line, "allocated ");
	CHECK(lim == bw * ncpus(), "limit %lld, debugfs %lld x %d", lim, bw,
	      ncpus());
	CHECK(alloc == total, "allocated %lld, debugfs %lld", alloc, total);
	sleeper_end(s);
	settle(base);
}

/* The command is not there: 127; there but not executable: 126. */
static void exec_failures(void)
{
	long long base;
	const char *path = "/tmp/toolctl-noexec";
	struct res r;
	int fd;

	base = known_state();
	CHECK(DLCTL_RUN(&r, "--runtime", "1ms", "--period", "100ms", "--",
			"/nonexistent/cmd") == 127 &&
	      has(r.err, "dlctl: /nonexistent/cmd: "),
	      "missing command: wrong exit status");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	REQUIRE(fd >= 0 && write(fd, "#!/bin/sh\n", 10) == 10, "%s: %s", path,
		strerror(errno));
	close(fd);
	CHECK(DLCTL_RUN(&r, "--runtime", "1ms", "--period", "100ms", "--",
			path) == 126, "not executable: wrong exit status");
	unlink(path);
	CHECK(DLCTL_RUN(&r, "--runtime", "1ms", "--period", "100ms", "--",
			"true") == 0, "true: wrong exit status");
	settle(base);
}

#define V2 "/sys/fs/cgroup"

/*
 * A cgroup v2 partition of the last CPU makes two root domains: status
 * shows both, and EBUSY in the partition is explained with its one CPU.
 */
static void partition_root_domains(void)
{
	long long bw, total;
	char rest[32], last[16], buf[16];
	int cpu = ncpus() - 1, r1;
	struct res r;
	pid_t s;

	need_smp();
	known_state();
	snprintf(last, sizeof(last), "%d", cpu);
	snprintf(rest, sizeof(rest), cpu > 1 ? "0-%d" : "0", cpu - 1);
	mkdir(V2, 0755);
	REQUIRE(mount("none", V2, "cgroup2", 0, NULL) == 0,
		"mount cgroup2: %s", strerror(errno));
	r1 = file_put(V2 "/cgroup.subtree_control", "+cpuset") ||
	     (mkdir(V2 "/p1", 0755) && errno != EEXIST) ||
	     file_put(V2 "/p1/cpuset.cpus", "%d", cpu) ||
	     file_put(V2 "/p1/cpuset.cpus.partition", "root");
	s = sleeper_spawn();
	if (!r1)
		r1 = file_put(V2 "/p1/cgroup.procs", "%d", s);
	sleeper_nudge(s);
	if (!r1) {
		DLCTL_RUN(&r, "status");
		CHECK(r.status == 0, "wrong exit status");
		CHECK(rd_line(r.out, rest) && rd_line(r.out, last),
		      "no root domains CPUs %s and CPUs %s", rest, last);
		CHECK(has(r.out, "cgroup v2"), "the cpusets not named");
		CHECK(DLCTL_RUN(&r, "-p", num(buf, s), "--runtime", "100ms",
				"--period", "100ms") == 1 && has(r.err, "EBUSY"),
		      "a whole CPU in a 1-CPU partition: wrong exit status");
		CHECK(has(r.err, "root domain: CPUs ") &&
		      has(r.err, "(1 CPU;"), "the partition not named");
		bw = -1;
		total = -1;
		dl_bw_of_cpu(cpu, &bw, &total);
		CHECK(number_after(r.err, "limit ") == bw &&
		      number_after(r.err, "allocated ") == total,
		      "not the partition's numbers: debugfs bw %lld total %lld",
		      bw, total);
	}
	sleeper_end(s);
	usleep(200 * 1000);
	file_put(V2 "/p1/cpuset.cpus.partition", "member");
	rmdir(V2 "/p1");
	umount(V2);
	REQUIRE(!r1, "making a partition of CPU %d failed", cpu);
}

/*
 * dlctl reads the sched debug file as SCHED_FIFO (dl_debug_open()), and
 * puts its policy back after: a batch thread with reset-on-fork and a
 * nice value keeps all three, and the read still sees the bandwidth.
 */
static void debug_read_keeps_policy(void)
{
	struct sched_param none = { 0 };
	long long bw = -1, total = -1;
	int pol;

	REQUIRE(sched_setscheduler(0, SCHED_BATCH | SCHED_RESET_ON_FORK,
				   &none) == 0, "SCHED_BATCH: %s",
		strerror(errno));
	REQUIRE(setpriority(PRIO_PROCESS, 0, 7) == 0, "nice 7: %s",
		strerror(errno));
	CHECK(dl_bw_of_cpu(0, &bw, &total) == 0 && bw > 0,
	      "dl_bw_of_cpu: bw %lld", bw);
	pol = sched_getscheduler(0);
	CHECK(pol == (SCHED_BATCH | SCHED_RESET_ON_FORK),
	      "policy %#x after the read, not SCHED_BATCH with reset-on-fork",
	      pol);
	CHECK(getpriority(PRIO_PROCESS, 0) == 7, "nice %d after the read",
	      getpriority(PRIO_PROCESS, 0));
}

/*
 * A refusal by a cgroup's cpu.dl.max (ours only) is explained with the
 * cap, what the cgroup holds and what fits, exactly: the runtime said to
 * fit is admitted, 1 ns more is refused; dlctl status lists the cgroup.
 */
/*
 * kernel.sched_dl_admission = 1: a request that fits the limit but not
 * the density test (one light task of 20 ms / 100 ms per CPU, then 90 ms
 * with deadline 100 ms every 200 ms: U + 0.9 over M - (M - 1) * 0.9) is
 * explained as the density test's, with the runtime that fits at that
 * deadline: exactly, 1 ns more refused.
 */
static void density_refusal_explained(void)
{
	struct dl_attr light = dl_attr_make(20 * MS, 100 * MS, 100 * MS, 0);
	char buf[16], fit[32] = "", more[32];
	int i, m = ncpus();
	long long base;
	unsigned long long x;
	const char *p;
	pid_t l[16], s;
	struct res r;

	if (sysctl_get("sched_dl_admission") < 0)
		SKIP("no kernel.sched_dl_admission: the density test is ours (the classic implementation)");
	REQUIRE(m <= 16, "%d CPUs", m);
	base = known_state();
	REQUIRE(dl_density_test_on() == 0,
		"turning the density test on: %s", strerror(errno));
	for (i = 0; i < m; i++) {
		l[i] = sleeper_spawn();
		REQUIRE(dl_setattr(l[i], &light, 0) == 0, "a light task: %s",
			strerror(errno));
	}
	s = sleeper_spawn();
	num(buf, s);
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", "90ms", "--deadline",
			"100ms", "--period", "200ms") == 1 &&
	      has(r.err, "EBUSY"), "not refused");
	CHECK(has(r.err, "refused by the density test"),
	      "the density test is not named");
	p = strstr(r.err, "runtime up to ");
	REQUIRE(p && sscanf(p, "runtime up to %31s", fit) == 1,
		"no runtime that fits");
	x = to_ns(fit);
	REQUIRE(x > 0, "'%s' is not a duration", fit);
	snprintf(more, sizeof(more), "%lluns", x + 1);
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", more, "--deadline",
			"100ms", "--period", "200ms") == 1 &&
	      has(r.err, "EBUSY"), "%s, 1ns more than said to fit, was not refused",
	      more);
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", fit, "--deadline",
			"100ms", "--period", "200ms") == 0,
	      "%s, said to fit, was refused", fit);
	sleeper_end(s);
	for (i = 0; i < m; i++)
		sleeper_end(l[i]);
	sysctl_set("sched_dl_admission", 0);
	settle(base);
}

static void cgroup_cap_explained(void)
{
	char buf[16];
	struct res r;
	int mounted = 0;
	pid_t s, t;

	/* Left as found: the cpuset tests after this one mount cgroup2. */
	mkdir(V2, 0755);
	if (access(V2 "/cgroup.controllers", F_OK)) {
		REQUIRE(mount("none", V2, "cgroup2", 0, NULL) == 0,
			"mount cgroup2: %s", strerror(errno));
		mounted = 1;
	}
	if (file_put(V2 "/cgroup.subtree_control", "+cpu") ||
	    (mkdir(V2 "/dlctl-cap", 0755) && errno != EEXIST) ||
	    access(V2 "/dlctl-cap/cpu.dl.max", F_OK)) {
		rmdir(V2 "/dlctl-cap");
		file_put(V2 "/cgroup.subtree_control", "-cpu");
		if (mounted)
			umount(V2);
		SKIP("no cpu.dl.max: deadline caps are ours (the classic implementation)");
	}
	REQUIRE(file_put(V2 "/dlctl-cap/cpu.dl.max", "10000 100000") == 0,
		"writing the cap: %s", strerror(errno));
	s = sleeper_spawn();
	t = sleeper_spawn();
	REQUIRE(file_put(V2 "/dlctl-cap/cgroup.procs", "%d", s) == 0 &&
		file_put(V2 "/dlctl-cap/cgroup.procs", "%d", t) == 0,
		"moving the sleepers: %s", strerror(errno));
	num(buf, s);
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", "6ms", "--period",
			"100ms") == 0, "6 ms in a cap of 10 ms refused");
	num(buf, t);
	CHECK(DLCTL_RUN(&r, "-p", buf, "--runtime", "5ms", "--period",
			"100ms") == 1 && has(r.err, "EBUSY"), "not refused");
	CHECK(has(r.err, "refused by the cap of cgroup /dlctl-cap"),
	      "the cgroup is not named");
	CHECK(number_after(r.err, "10000us/100000us = ") == (10LL << 20) / 100,
	      "the cap's figure");
	CHECK(number_after(r.err, "held there ") == (6 * MS << 20) / (100 * MS),
	      "the held figure");
	fit_is_exact(&r, buf);
	CHECK(DLCTL_RUN(&r, "status") == 0 &&
	      has(r.out, "cgroup /dlctl-cap: cap 10000us/100000us = ") &&
	      has(r.out, "by 2 tasks, 2 refused"),
	      "dlctl status does not list the cgroup as it is");
	sleeper_end(s);
	sleeper_end(t);
	rmdir(V2 "/dlctl-cap");
	file_put(V2 "/cgroup.subtree_control", "-cpu");
	if (mounted)
		umount(V2);
}

int main(void)
{
	static const struct tap_test tests[] = {
		TAP_TEST(help_exits_0),
		TAP_TEST(usage_errors_exit_2),
		TAP_TEST(run_command_reads_back),
		TAP_TEST(run_sleep_then_show),
		TAP_TEST(units_parsed),
		TAP_TEST(bad_unit_exit_2),
		TAP_TEST(defaults_each_other),
		TAP_TEST(flags_read_back),
		TAP_TEST(einval_runtime_above_deadline),
		TAP_TEST(einval_runtime_too_small),
		TAP_TEST(esrch_no_such_pid),
		TAP_TEST(ebusy_explained),
		TAP_TEST(eperm_unprivileged),
		TAP_TEST(eperm_narrow_affinity),
		TAP_TEST(eperm_limit_zero),
		TAP_TEST(all_threads),
		TAP_TEST(status_lists_task),
		TAP_TEST(exec_failures),
		TAP_TEST(partition_root_domains),
		TAP_TEST(cgroup_cap_explained),
		TAP_TEST(density_refusal_explained),
		TAP_TEST(debug_read_keeps_policy),
		{ NULL, NULL }
	};

	return tap_run(tests);
}
