// SPDX-License-Identifier: GPL-2.0
/*
 * chart: dlchart, run on the host on traces captured in the guest.
 *
 * The fixture dl3-smp2 is a real run on the stock kernel with 2 vCPUs:
 * three SCHED_DEADLINE threads for a second (dl-fast 5/30/50 ms, "dl long"
 * 30/100/100 ms, dl-over 10/100/100 ms, runtime/deadline/period) beside a
 * CFS hog, tracefs on sched_switch, sched_wakeup, sched_wakeup_new and
 * sched_migrate_task with trace_clock mono.  dl-over works 14 ms in every
 * third job, more than its runtime: the CBS throttles it and the job ends
 * past its deadline.  Each thread logged its jobs in dlgen's CSV format.
 *
 * Every expectation is computed from the fixture's own files, so the
 * fixture can be replaced by another capture of the same kind, taken on
 * a quiet host: one where the overrunning task is the only one throttled
 * and the only one to miss (under a loaded host, vCPU stalls throttle and
 * delay every task).
 *
 * DLCHART is the binary (default ./dlchart), DLK_FIXTURES the fixture
 * directory (default tests/host/fixtures).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

#define FIXTURE "dl3-smp2"
#define MAX_JOBS 256
#define MAX_ARGS 16
#define MS 1000000LL
#define RED "#d62728"

struct job {
	char name[64];
	int pid;
	long long job, release, start, end, deadline;
	int miss;
};

struct result {
	int status;		/* exit status, or -1 */
	char *out, *err;
};

/* The path of the fixture's file @ext, kept for the test's life. */
static char *fixture(const char *ext)
{
	const char *dir = getenv("DLK_FIXTURES");
	char *p;

	REQUIRE(asprintf(&p, "%s/%s.%s", dir ? dir : "tests/host/fixtures",
			 FIXTURE, ext) > 0, "out of memory");
	return p;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t n = 0, cap = 1 << 16;
	char *s = malloc(cap);

	REQUIRE(f && s, "%s: %s", path, strerror(errno));
	for (;;) {
		n += fread(s + n, 1, cap - n - 1, f);
		if (n < cap - 1)
			break;
		cap *= 2;
		s = realloc(s, cap);
		REQUIRE(s, "out of memory");
	}
	s[n] = '\0';
	fclose(f);
	return s;
}

static int temp_file(char *path, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(path, len, "%s/dlchart-test-XXXXXX", tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	REQUIRE(fd >= 0, "mkstemp: %s", strerror(errno));
	return fd;
}

/* Runs dlchart with @first, @ap up to a NULL; captures its output. */
static struct result vrun(const char *first, va_list ap)
{
	const char *bin = getenv("DLCHART");
	char out[256], err[256];
	int fo = temp_file(out, sizeof(out)), fe = temp_file(err, sizeof(err));
	const char *argv[MAX_ARGS + 2] = { bin ? bin : "./dlchart" };
	struct result r = { -1, NULL, NULL };
	int i, status;
	pid_t pid;

	argv[1] = first;
	for (i = 1; i < MAX_ARGS && argv[i]; i++)
		argv[i + 1] = va_arg(ap, const char *);
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(fo, 1);
		dup2(fe, 2);
		execv(argv[0], (char *const *)argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid, "waitpid");
	if (WIFEXITED(status))
		r.status = WEXITSTATUS(status);
	r.out = slurp(out);
	r.err = slurp(err);
	close(fo);
	close(fe);
	unlink(out);
	unlink(err);
	if (r.status == 127)
		tap_diag("%s", r.err);
	return r;
}

static struct result __attribute__((sentinel)) run(const char *arg, ...)
{
	struct result r;
	va_list ap;

	va_start(ap, arg);
	r = vrun(arg, ap);
	va_end(ap);
	return r;
}

static int read_jobs(struct job *v)
{
	FILE *f = fopen(fixture("jobs.csv"), "r");
	char line[512];
	int n = 0;

	REQUIRE(f, "%s: %s", fixture("jobs.csv"), strerror(errno));
	REQUIRE(fgets(line, sizeof(line), f), "empty job log");
	while (n < MAX_JOBS && fgets(line, sizeof(line), f)) {
		const char *p = strchr(line, ',');
		struct job *j = &v[n];

		REQUIRE(p && p - line < (long)sizeof(j->name), "bad name: %s",
			line);
		memcpy(j->name, line, p - line);
		j->name[p - line] = '\0';
		REQUIRE(sscanf(p, ",%d,%lld,%lld,%lld,%lld,%lld,%*d,%*d,%*d,%d",
			       &j->pid, &j->job, &j->release, &j->start,
			       &j->end, &j->deadline, &j->miss) == 7,
			"bad row: %s", line);
		n++;
	}
	fclose(f);
	REQUIRE(n > 0, "no jobs in the fixture");
	return n;
}

static long long first_release(const struct job *v, int n)
{
	long long t = v[0].release;
	int i;

	for (i = 1; i < n; i++)
		if (v[i].release < t)
			t = v[i].release;
	return t;
}

static bool first_of_pid(const struct job *v, int i)
{
	int k;

	for (k = 0; k < i; k++)
		if (v[k].pid == v[i].pid)
			return false;
	return true;
}

static int count(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/* The start tag that begins with @head, up to its '>'; NULL if none. */
static char *element(const char *svg, const char *head)
{
	const char *p = strstr(svg, head), *e;
	char *s;

	if (!p)
		return NULL;
	e = strchr(p, '>');
	s = strndup(p, e ? (size_t)(e - p) : strlen(p));
	REQUIRE(s, "out of memory");
	return s;
}

/* The start tag of job @j's <@el class="@cls" ...>, or NULL. */
static char *job_item(const char *svg, const char *el, const char *cls,
		      const struct job *j)
{
	char head[160];

	snprintf(head, sizeof(head),
		 "<%s class=\"%s\" data-pid=\"%d\" data-job=\"%lld\"", el, cls,
		 j->pid, j->job);
	return element(svg, head);
}

/* The tags nest, each closed by its own name, under one <svg>. */
static bool balanced(const char *s)
{
	char stack[32][16];
	int depth = 0, roots = 0;

	for (s = strchr(s, '<'); s; s = strchr(s, '<')) {
		const char *e = strchr(s, '>');
		size_t n = strcspn(s + 1, " />\n");

		if (!e)
			return false;
		if (s[1] == '/') {
			n = strcspn(s + 2, " >\n");
			if (!depth || n != strlen(stack[depth - 1]) ||
			    strncmp(s + 2, stack[--depth], n))
				return false;
		} else if (e[-1] != '/') {
			if (depth == 32 || n >= sizeof(stack[0]))
				return false;
			memcpy(stack[depth], s + 1, n);
			stack[depth++][n] = '\0';
			roots += depth == 1;
		} else if (!depth) {
			return false;
		}
		s = e + 1;
	}
	return depth == 0 && roots == 1;
}

/* The highest "[NNN]" CPU field of the trace, plus one. */
static int trace_cpus(void)
{
	char *t = slurp(fixture("trace")), *p = t;
	int n = 0, cpu;

	while ((p = strstr(p, " ["))) {
		if (sscanf(p, " [%d]", &cpu) == 1 && cpu >= n)
			n = cpu + 1;
		p += 2;
	}
	free(t);
	return n;
}

/* The number in the attribute @name="..." of @s. */
static double attr(const char *s, const char *name)
{
	const char *p = strstr(s, name);

	REQUIRE(p, "no %s in %.200s", name, s);
	return atof(p + strlen(name) + 2);
}

static long long attr_ll(const char *s, const char *name)
{
	const char *p = strstr(s, name);

	REQUIRE(p, "no %s in %.200s", name, s);
	return atoll(p + strlen(name) + 2);
}

/* The chart of the fixture with its job log, which must draw. */
static struct result chart(void)
{
	struct result r = run("--jobs", fixture("jobs.csv"), fixture("trace"),
			      NULL);

	REQUIRE(r.status == 0, "exit status %d: %s", r.status, r.err);
	return r;
}

/* Well-formed SVG with a lane per CPU and per task, and the summary. */
static void fixture_renders(void)
{
	struct job v[MAX_JOBS];
	int n = read_jobs(v), cpus = trace_cpus(), tasks = 0, misses = 0, i;
	struct result r = chart();
	long long t, j, m;
	char id[32];

	CHECK(!strncmp(r.out, "<svg", 4), "does not start with <svg");
	CHECK(balanced(r.out), "tags not balanced");
	CHECK(count(r.out, "class=\"lane cpu\"") == cpus,
	      "%d CPU lanes for %d CPUs", count(r.out, "class=\"lane cpu\""),
	      cpus);
	for (i = 0; i < cpus; i++) {
		snprintf(id, sizeof(id), "id=\"cpu-%d\"", i);
		CHECK(count(r.out, id) == 1, "no lane for CPU %d", i);
	}
	for (i = 0; i < n; i++) {
		misses += v[i].miss;
		if (!first_of_pid(v, i))
			continue;
		tasks++;
		snprintf(id, sizeof(id), "id=\"task-%d\"", v[i].pid);
		CHECK(count(r.out, id) == 1, "no lane for pid %d", v[i].pid);
	}
	CHECK(count(r.out, "class=\"lane task\"") == tasks,
	      "%d task lanes for %d tasks", count(r.out, "class=\"lane task\""),
	      tasks);
	REQUIRE(sscanf(r.err, "dlchart: %lld tasks, %lld jobs, %lld misses",
		       &t, &j, &m) == 3, "summary: %s", r.err);
	CHECK(t == tasks && j == n && m == misses,
	      "summary %s, want %d tasks, %d jobs, %d misses", r.err, tasks, n,
	      misses);
}

/* One release and one deadline arrow per job of the log. */
static void releases_and_deadlines(void)
{
	struct job v[MAX_JOBS];
	int n = read_jobs(v), i;
	struct result r = chart();

	CHECK(count(r.out, "class=\"release\"") == n, "%d releases for %d jobs",
	      count(r.out, "class=\"release\""), n);
	CHECK(count(r.out, "class=\"deadline") == n, "%d deadlines for %d jobs",
	      count(r.out, "class=\"deadline"), n);
	for (i = 0; i < n; i++) {
		char *tag = job_item(r.out, "path", "release", &v[i]);

		CHECK(tag, "no release of pid %d job %lld", v[i].pid, v[i].job);
		free(tag);
	}
}

/* Job @j's bar or deadline @el of class @cls is there, red iff missed. */
static void check_red(const char *svg, const char *el, const char *cls,
		      const struct job *j)
{
	char *tag = job_item(svg, el, cls, j);

	CHECK(tag && !!strstr(tag, RED) == j->miss,
	      "pid %d job %lld (miss=%d): %s %s", j->pid, j->job, j->miss, cls,
	      tag ? tag : "missing");
	free(tag);
}

/* Red deadline arrows and job bars for the jobs marked missed, only. */
static void misses_red_exactly(void)
{
	struct job v[MAX_JOBS];
	int n = read_jobs(v), i, misses = 0;
	struct result r = chart();

	for (i = 0; i < n; i++) {
		misses += v[i].miss;
		check_red(r.out, "rect", v[i].miss ? "job miss" : "job", &v[i]);
		check_red(r.out, "path",
			  v[i].miss ? "deadline miss" : "deadline", &v[i]);
	}
	REQUIRE(misses > 0, "the fixture has no miss to test");
	CHECK(count(r.out, "class=\"job miss\"") == misses,
	      "%d red job bars for %d misses",
	      count(r.out, "class=\"job miss\""), misses);
	CHECK(count(r.out, "class=\"deadline miss\"") == misses,
	      "%d red deadlines for %d misses",
	      count(r.out, "class=\"deadline miss\""), misses);
}

/* The time at @x in the chart @svg, in ns. */
static double time_at(const char *svg, double x)
{
	double x0 = attr(svg, "data-plot-x0"), x1 = attr(svg, "data-plot-x1");
	long long from = attr_ll(svg, "data-from-ns");
	long long to = attr_ll(svg, "data-to-ns");

	return from + (x - x0) / (x1 - x0) * (double)(to - from);
}

/* Whether a missed job of @pid was under way at @t, give or take 1 ms. */
static bool in_missed_job(const struct job *v, int n, int pid, double t)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].pid == pid && v[i].miss && t >= v[i].start - MS &&
		    t <= v[i].end + MS)
			return true;
	return false;
}

/* The throttled intervals of @pid drawn in @svg, checked against @v. */
static int check_throttles(const char *svg, const struct job *v, int n,
			   int pid)
{
	long long origin = first_release(v, n);
	char head[64], *p;
	int shown = 0;

	snprintf(head, sizeof(head),
		 "<rect class=\"throttled\" data-pid=\"%d\"", pid);
	for (p = strstr(svg, head); p; p = strstr(p + 1, head)) {
		char *tag = element(p, head);
		double x = attr(tag, " x") + attr(tag, "width") / 2;
		double mid = time_at(svg, x);

		shown++;
		CHECK(in_missed_job(v, n, pid, mid),
		      "pid %d throttled at %.3f ms, in no missed job", pid,
		      (mid - origin) / 1e6);
		free(tag);
	}
	return shown;
}

/*
 * Throttling is drawn for the task that overran (the one with misses),
 * inside its missed jobs, and for no other task.
 */
static void throttled_overrunner_only(void)
{
	struct job v[MAX_JOBS];
	int n = read_jobs(v), i, k;
	struct result r = chart();

	for (i = 0; i < n; i++) {
		bool overran = false;
		int shown;

		if (!first_of_pid(v, i))
			continue;
		for (k = 0; k < n; k++)
			overran |= v[k].pid == v[i].pid && v[k].miss;
		shown = check_throttles(r.out, v, n, v[i].pid);
		CHECK(overran ? shown > 0 : shown == 0,
		      "pid %d (%s): %d throttled intervals", v[i].pid,
		      overran ? "overran" : "kept to its runtime", shown);
	}
}

/* Every run, job and throttle box of @svg lies inside the plot. */
static void check_inside(const char *svg)
{
	double x0 = attr(svg, "data-plot-x0"), x1 = attr(svg, "data-plot-x1");
	const char *head = "<rect class=", *p;
	int boxes = 0;

	for (p = strstr(svg, head); p; p = strstr(p + 1, head)) {
		char *tag = element(p, head);
		double x = attr(tag, " x"), w = attr(tag, "width");

		boxes++;
		CHECK(x >= x0 - 0.01 && x + w <= x1 + 0.01,
		      "drawn outside the window: %s", tag);
		free(tag);
	}
	CHECK(boxes > 0, "nothing drawn in the window");
}

/* --from/--to: the window, what is drawn in it and nothing outside. */
static void window_cuts(void)
{
	struct job v[MAX_JOBS];
	int n = read_jobs(v), i, rel = 0, dl = 0;
	long long from = first_release(v, n) + 200 * MS;
	long long to = first_release(v, n) + 500 * MS;
	struct result r = run("--jobs", fixture("jobs.csv"), "--from", "200ms",
			      "--to", "500", fixture("trace"), NULL);

	REQUIRE(r.status == 0, "exit status %d: %s", r.status, r.err);
	CHECK(attr_ll(r.out, "data-from-ns") == from &&
	      attr_ll(r.out, "data-to-ns") == to, "window %lld to %lld",
	      attr_ll(r.out, "data-from-ns"), attr_ll(r.out, "data-to-ns"));
	for (i = 0; i < n; i++) {
		rel += v[i].release >= from && v[i].release <= to;
		dl += v[i].deadline >= from && v[i].deadline <= to;
	}
	REQUIRE(rel > 0 && rel < n, "window holds %d of %d releases", rel, n);
	CHECK(count(r.out, "class=\"release\"") == rel, "%d releases, want %d",
	      count(r.out, "class=\"release\""), rel);
	CHECK(count(r.out, "class=\"deadline") == dl, "%d deadlines, want %d",
	      count(r.out, "class=\"deadline"), dl);
	check_inside(r.out);
}

/* --from @SECONDS is a time on the trace's clock. */
static void window_absolute(void)
{
	struct job v[MAX_JOBS];
	int n = read_jobs(v);
	long long a = v[n / 2].release, b = v[n - 1].end;
	char from[64], to[64];
	struct result r;

	snprintf(from, sizeof(from), "@%lld.%09lld", a / 1000000000,
		 a % 1000000000);
	snprintf(to, sizeof(to), "@%lld.%09lld", b / 1000000000,
		 b % 1000000000);
	r = run("--jobs", fixture("jobs.csv"), "--from", from, "--to", to,
		fixture("trace"), NULL);
	REQUIRE(r.status == 0, "exit status %d: %s", r.status, r.err);
	CHECK(attr_ll(r.out, "data-from-ns") == a &&
	      attr_ll(r.out, "data-to-ns") == b, "window %lld to %lld",
	      attr_ll(r.out, "data-from-ns"), attr_ll(r.out, "data-to-ns"));
}

/*
 * Writes the fixture's trace to a temporary file @path: without the
 * lines that contain @drop, with @extra before every @every-th line.
 */
static void copy_trace(char *path, size_t len, const char *drop,
		       const char *extra, int every)
{
	FILE *in = fopen(fixture("trace"), "r"), *out;
	int fd = temp_file(path, len), n = 0;
	char line[1024];

	out = fdopen(fd, "w");
	REQUIRE(in && out, "copy: %s", strerror(errno));
	while (fgets(line, sizeof(line), in)) {
		if (extra && ++n % every == 0)
			fputs(extra, out);
		if (!drop || !strstr(line, drop))
			fputs(line, out);
	}
	fclose(in);
	REQUIRE(fclose(out) == 0, "write %s", path);
}

/* A trace without sched_switch events is refused, with a reason. */
static void no_switch_is_error(void)
{
	struct result r;
	char path[256];

	copy_trace(path, sizeof(path), "sched_switch:", NULL, 0);
	r = run(path, NULL);
	unlink(path);
	CHECK(r.status == 1, "exit status %d, want 1", r.status);
	CHECK(strstr(r.err, "sched_switch"), "message: %s", r.err);
	CHECK(!*r.out, "output despite the error");
}

/* The number before @name in the summary line @err. */
static long summary_field(const char *err, const char *name)
{
	const char *p = strstr(err, name);

	REQUIRE(p, "summary without '%s': %s", name, err);
	while (p > err && p[-1] == ' ')
		p--;
	while (p > err && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return atol(p);
}

/* Lines that are not events are skipped, counted, and change nothing. */
static void garbage_skipped(void)
{
	static const char junk[] =
		"garbage, not a trace line\n"
		"CPU:1 [LOST 42 EVENTS]\n"
		"  x-1 [000] d..2. 1.000000: sched_switch: prev_comm=x prev_pid=1\n"
		"  x-1 [0a0] d..2. 1.0: sched_wakeup: comm=x pid=1 prio=1 target_cpu=000\n";
	const int per = 4, every = 50;
	int lines = count(slurp(fixture("trace")), "\n");
	struct result clean, r;
	char path[256];

	copy_trace(path, sizeof(path), NULL, junk, every);
	clean = run("--jobs", fixture("jobs.csv"), "--title", "t",
		    fixture("trace"), NULL);
	r = run("--jobs", fixture("jobs.csv"), "--title", "t", path, NULL);
	unlink(path);
	REQUIRE(clean.status == 0 && r.status == 0, "exit status %d, %d: %s",
		clean.status, r.status, r.err);
	CHECK(summary_field(r.err, "lines skipped") ==
	      summary_field(clean.err, "lines skipped") + per * (lines / every),
	      "skipped: %s, clean: %s, %d junk lines", r.err, clean.err,
	      per * (lines / every));
	CHECK(summary_field(r.err, "events parsed") ==
	      summary_field(clean.err, "events parsed"),
	      "events: %s, clean: %s", r.err, clean.err);
	CHECK(!strcmp(r.out, clean.out), "the chart changed");
}

static void __attribute__((sentinel)) expect(int want, const char *what, ...)
{
	struct result r;
	va_list ap;

	va_start(ap, what);
	r = vrun(va_arg(ap, const char *), ap);
	va_end(ap);
	CHECK(r.status == want, "%s: exit status %d, want %d (%s)", what,
	      r.status, want, r.err);
	CHECK(*r.err, "%s: no message", what);
}

/* Usage errors are 2, bad input 1. */
static void bad_options(void)
{
	const char *trace = fixture("trace"), *jobs = fixture("jobs.csv");

	expect(2, "--bogus", "--bogus", trace, NULL);
	expect(2, "--width 10", "--width", "10", trace, NULL);
	expect(2, "--width without a value", trace, "--width", NULL);
	expect(2, "--from soon", "--from", "soon", trace, NULL);
	expect(2, "--from after --to", "--from", "300ms", "--to", "200ms",
	       trace, NULL);
	expect(2, "no trace", NULL);
	expect(2, "two traces", trace, trace, NULL);
	expect(1, "a trace that is not there", "/nonexistent/trace", NULL);
	expect(1, "a trace as the job log", "--jobs", trace, trace, NULL);
	expect(1, "--tasks matching nothing", "--jobs", jobs, "--tasks",
	       "nosuch*", trace, NULL);
}

/* --tasks keeps the lanes it names; -o writes the file. */
static void tasks_filter_and_output(void)
{
	struct job v[MAX_JOBS];
	char path[256], *svg;
	int n = read_jobs(v), i;
	struct result r;

	close(temp_file(path, sizeof(path)));
	r = run("--jobs", fixture("jobs.csv"), "--tasks", "dl-f*", "-o", path,
		fixture("trace"), NULL);
	svg = slurp(path);
	unlink(path);
	REQUIRE(r.status == 0, "exit status %d: %s", r.status, r.err);
	CHECK(!*r.out, "chart on stdout despite -o");
	CHECK(!strncmp(svg, "<svg", 4) && balanced(svg), "bad SVG in -o file");
	for (i = 0; i < n; i++) {
		bool want = !fnmatch("dl-f*", v[i].name, 0);
		char id[32];

		snprintf(id, sizeof(id), "id=\"task-%d\"", v[i].pid);
		CHECK(!!strstr(svg, id) == want, "pid %d (%s) %s", v[i].pid,
		      v[i].name, want ? "not shown" : "shown");
	}
}

/* Without a job log: the trace's deadline tasks, no arrows. */
static void without_jobs(void)
{
	struct job v[MAX_JOBS];
	int n = read_jobs(v), i;
	struct result r = run(fixture("trace"), NULL);
	char id[32];

	REQUIRE(r.status == 0, "exit status %d: %s", r.status, r.err);
	CHECK(balanced(r.out), "tags not balanced");
	for (i = 0; i < n; i++) {
		snprintf(id, sizeof(id), "id=\"task-%d\"", v[i].pid);
		CHECK(strstr(r.out, id), "no lane for pid %d", v[i].pid);
	}
	CHECK(!strstr(r.out, "class=\"release\"") &&
	      !strstr(r.out, "class=\"deadline"), "arrows without jobs");
	CHECK(strstr(r.out, "class=\"throttled\""),
	      "throttling is inferred from the trace alone");
}

static const struct tap_test tests[] = {
	TAP_TEST(fixture_renders),
	TAP_TEST(releases_and_deadlines),
	TAP_TEST(misses_red_exactly),
	TAP_TEST(throttled_overrunner_only),
	TAP_TEST(window_cuts),
	TAP_TEST(window_absolute),
	TAP_TEST(no_switch_is_error),
	TAP_TEST(garbage_skipped),
	TAP_TEST(bad_options),
	TAP_TEST(tasks_filter_and_output),
	TAP_TEST(without_jobs),
	{ NULL, NULL },
};

int main(void)
{
	return tap_run(tests);
}
