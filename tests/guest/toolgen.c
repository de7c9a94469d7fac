// SPDX-License-Identifier: GPL-2.0
/*
 * toolgen: dlgen, the workload generator of the toolkit, as installed in
 * /usr/local/bin, run the way users run it and judged by what it prints.
 *
 * Its input: rt-app's -t specs and JSON files, every error naming the
 * field or key (and the line and column) with exit status 2.  Its runs:
 * the job log's header and the relations between its columns, which hold
 * on any machine; releases on the period's grid, exactly, since dlgen
 * computes them; the kernel's refusals (EBUSY, a deadline task pinned
 * without a cpuset) as exit status 1 with the reason; the same program
 * under the name rt-app, as the documentation's HOWTO runs it.  Timing
 * (no misses, CPU time per job) is asserted only under -icount, where
 * guest time is faithful.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dl.h"
#include "file.h"
#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define DLGEN "/usr/local/bin/dlgen"
#define OUT "/tmp/toolgen.out"
#define ERR "/tmp/toolgen.err"
#define LOG "/tmp/toolgen.log"
#define JSON "/tmp/toolgen.json"
#define MS 1000000LL
#define MAX_JOBS 512

#define HEADER "task,pid,job,release_ns,start_ns,end_ns,deadline_ns," \
	       "runtime_ns,response_ns,slack_ns,miss"

struct job {
	char task[64];
	int pid;
	long job;
	long long release, start, end, deadline, runtime, response, slack;
	int miss;
};

static char out[1 << 16], err[1 << 14];
static struct job jobs[MAX_JOBS];

static void slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* Runs "PROG ARGS" with sh; its exit status, stdout in out, stderr in err. */
static int sh(const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int sh(const char *prog, const char *fmt, ...)
{
	char cmd[1024], args[768];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "%s %s >" OUT " 2>" ERR, prog, args);
	st = system(cmd);
	slurp(OUT, out, sizeof(out));
	slurp(ERR, err, sizeof(err));
	tap_diag("$ %s %s: status %d", prog, args,
		 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define dlgen(...) sh(DLGEN, __VA_ARGS__)

static void need_dlgen(void)
{
	REQUIRE(access(DLGEN, X_OK) == 0, "%s: %s", DLGEN, strerror(errno));
}

/*
 * Writes @text to @path with each ' made a ": the JSON of the tests,
 * readable in C.  The columns stay where they are.
 */
static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	REQUIRE(f, "%s: %s", path, strerror(errno));
	for (; *text; text++)
		fputc(*text == '\'' ? '"' : *text, f);
	REQUIRE(fclose(f) == 0, "writing %s: %s", path, strerror(errno));
}

/* The deadline tests start with the sysctls and the bandwidth known. */
static void dl_settle(void)
{
	need_dlgen();
	REQUIRE(dl_sysctl_known_state() == 0, "sysctls: %s", strerror(errno));
	if (dl_total_bw_wait_idle(0, 2000))
		tap_diag("deadline bandwidth still allocated at the start");
}

static int ncpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static bool icount(void)
{
	const char *v = getenv("DLK_ICOUNT");

	return v && *v;
}

/* The CSV log: its header, exactly, then its rows into jobs[]. */
static int load_log(void)
{
	FILE *f = fopen(LOG, "r");
	char line[512];
	int n = 0;

	REQUIRE(f, "%s: %s", LOG, strerror(errno));
	REQUIRE(fgets(line, sizeof(line), f), "the log is empty");
	line[strcspn(line, "\n")] = '\0';
	CHECK(!strcmp(line, HEADER), "header \"%s\"", line);
	while (n < MAX_JOBS && fgets(line, sizeof(line), f)) {
		struct job *j = &jobs[n++];

		REQUIRE(sscanf(line,
			       "%63[^,],%d,%ld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%d",
			       j->task, &j->pid, &j->job, &j->release, &j->start,
			       &j->end, &j->deadline, &j->runtime, &j->response,
			       &j->slack, &j->miss) == 11,
			"log row %d: %s", n, line);
	}
	fclose(f);
	return n;
}

/* The relations every row holds, whatever the timing. */
static void check_row(const struct job *j, long long rel_deadline)
{
	CHECK(j->start >= j->release,
	      "%s job %ld starts %lld before its release",
	      j->task, j->job, j->release - j->start);
	CHECK(j->end >= j->start, "%s job %ld ends before it starts",
	      j->task, j->job);
	CHECK(j->response == j->end - j->release, "%s job %ld: response",
	      j->task, j->job);
	if (!rel_deadline) {
		CHECK(!j->deadline && !j->slack && !j->miss,
		      "%s job %ld: a deadline where none is", j->task, j->job);
		return;
	}
	CHECK(j->deadline == j->release + rel_deadline,
	      "%s job %ld: deadline %lld after the release, want %lld",
	      j->task, j->job, j->deadline - j->release, rel_deadline);
	CHECK(j->slack == j->deadline - j->end, "%s job %ld: slack", j->task,
	      j->job);
	CHECK(j->miss == (j->end > j->deadline), "%s job %ld: miss", j->task,
	      j->job);
}

/*
 * The rows of @task: numbered from 0 with no gap, of one thread, each
 * released @period after the one before when @period is not 0; the count.
 */
static int check_task(int n, const char *task, long long period,
		      long long rel_deadline, long long run)
{
	const struct job *prev = NULL;
	long long cpu = 0;
	int i, k = 0;

	for (i = 0; i < n; i++) {
		const struct job *j = &jobs[i];

		if (strcmp(j->task, task))
			continue;
		CHECK(j->job == k, "%s: job %ld where %d was due", task, j->job,
		      k);
		check_row(j, rel_deadline);
		CHECK(j->runtime >= 0, "%s job %ld: runtime %lld", task,
		      j->job, j->runtime);
		cpu += j->runtime;
		if (prev) {
			CHECK(j->pid == prev->pid, "%s: two pids", task);
			if (period)
				CHECK(j->release - prev->release == period,
				      "%s job %ld released %lld after the one before, period %lld",
				      task, j->job, j->release - prev->release,
				      period);
		}
		prev = j;
		k++;
	}
	CHECK(k > 0, "no job of %s in the log", task);
	/*
	 * Each job's CPU time counts from the one before's end, and a job
	 * gives back what the one before overshot: the sum is the runs'
	 * at least, and more by what the emulation stole at most.
	 */
	CHECK(cpu >= k * run && cpu <= 2 * k * run + 50 * MS,
	      "%s: %lld ns of CPU time for %d runs of %lld", task, cpu, k,
	      run);
	return k;
}

static void check_summary(const char *task, const char *policy)
{
	char row[128];

	CHECK(strstr(out, "task") && strstr(out, "jobs") &&
	      strstr(out, "misses") && strstr(out, "worst resp") &&
	      strstr(out, "worst tard") && strstr(out, "used") &&
	      strstr(out, "asked"), "no summary header in:\n%s", out);
	snprintf(row, sizeof(row), "\n%s ", task);
	CHECK(strstr(out, row) && strstr(strstr(out, row), policy),
	      "no summary row of %s (%s) in:\n%s", task, policy, out);
}

/* Bad -t specs: exit status 2, and the message names the field. */
static void spec_errors(void)
{
	static const struct {
		const char *spec, *says;
	} bad[] = {
		{ "100000", "run: missing" },
		{ "x:10", "period: \"x\" is not a duration" },
		{ "0:0", "period: must not be 0" },
		{ "100000:1y", "run: \"1y\" is not a duration" },
		{ "100000:200000", "run: 200ms is longer than the period" },
		{ "100000:10000:q", "policy: \"q\" is none of" },
		{ "100000:10000:d:zz", "cpus: \"zz\" is not a CPU list" },
		{ "100000:10000:d:0-", "cpus:" },
		{ "100000:10000:f:999", "cpus: there is no CPU 999" },
		{ "100000:10000:f:-:0", "priority: \"0\"" },
		{ "100000:10000:o:-:20", "priority: \"20\"" },
		{ "100000:10000:d:-:5000", "deadline: 5ms is not between" },
		{ "100000:10000:f:-:10:200ms", "deadline: 200ms is not" },
		{ "100000:10000:d:-:50000:60000", "deadline: given twice" },
		{ "1:1:o:-:-:1:1", "more than 6 fields" },
	};
	char want[160];
	size_t i;

	need_dlgen();
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int st = dlgen("-t %s -D1", bad[i].spec);

		snprintf(want, sizeof(want), "dlgen: -t %s: %s", bad[i].spec,
			 bad[i].says);
		CHECK(st == 2, "-t %s: status %d", bad[i].spec, st);
		CHECK(strstr(err, want), "-t %s: want \"%s\", got: %s",
		      bad[i].spec, want, err);
	}
	CHECK(dlgen("-t 100000:10000 -D 0") == 2 && strstr(err, "-D 0"),
	      "-D 0: %s", err);
	CHECK(dlgen("-t 100000:10000 --log-format xml") == 2 &&
	      strstr(err, "csv or json"), "--log-format xml: %s", err);
	CHECK(dlgen("%s", "") == 2 && strstr(err, "no task"), "no task: %s",
	      err);
	CHECK(dlgen("--help") == 0 && strstr(out, "usage: dlgen") &&
	      strstr(out, "PERIOD:RUN"), "--help: %s", out);
}

/* JSON syntax errors: status 2, FILE:LINE:COLUMN and what is wrong. */
static void json_syntax_errors(void)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "{\n  'tasks': {\n    't1': { 'run': 1000 'sleep': 1 }\n  }\n}\n",
		  "3:25: ',' or '}' expected" },
		{ "{'tasks': {'t1': {'run': '10ms}}}",
		  "1:26: string does not end" },
		{ "{'a': 'x\\q'}", "1:9: bad escape '\\q'" },
		{ "{\n'tasks' {}}", "2:9: ':' expected" },
		{ "{'tasks': {}} x", "1:15: text after the end of the value" },
		{ "{\n  /* no end\n", "2:3: comment does not end" },
		{ "{'tasks': {", "1:12: unexpected end of input" },
		{ "{'a': [1, 2,, 3]}", "1:13: value expected" },
		{ "{'a': 01}", "1:8: ',' or '}' expected" },
		{ "{'a': '\\ud800'}", "1:8: high surrogate without its pair" },
	};
	char want[160];
	size_t i;

	need_dlgen();
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int st;

		put(JSON, bad[i].text);
		st = dlgen("%s", JSON);
		snprintf(want, sizeof(want), "dlgen: " JSON ":%s", bad[i].says);
		CHECK(st == 2, "case %zu: status %d", i, st);
		CHECK(strstr(err, want), "case %zu: want \"%s\", got: %s", i,
		      want, err);
	}
}

/* What dlgen does not do is refused, naming the key. */
static void json_unsupported_keys(void)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "{'tasks': {'t1': {'run': 1000, 'foo': 1}}}",
		  "tasks.t1.foo: unsupported key" },
		{ "{'global': {'zz': 1}, 'tasks': {'t1': {'run': 1}}}",
		  "global.zz: unsupported key" },
		{ "{'resources': {}, 'tasks': {'t1': {'run': 1}}}",
		  "resources: unsupported key" },
		{ "{'tasks': {'t1': {'run': 1, 'lock': 'm'}}}",
		  "tasks.t1.lock: unsupported key" },
		{ "{'tasks': {'t1': {'run': 1, 'timer': {'ref': 'unique',\n"
		  "'period': 1000, 'x': 1}}}}",
		  "tasks.t1.timer.x: unsupported key" },
		{ "{'tasks': {'t1': {'phases': {'p1': {'run': 1,\n"
		  "'policy': 'SCHED_FIFO'}}}}}",
		  "tasks.t1.phases.p1.policy: unsupported key" },
		{ "{'tasks': {'t1': {'run': 1, 'loop': 2, 'loop': 3}}}",
		  "tasks.t1.loop: duplicate key" },
		{ "{'tasks': {'t1': {'sleep': 1000}}}",
		  "tasks.t1: no run event" },
		{ "{'tasks': {'t1': {'run': 1, 'policy': 'SCHED_DEADLINE'}}}",
		  "tasks.t1: SCHED_DEADLINE needs dl-runtime" },
		{ "{'tasks': {'t1': {'run': 1, 'dl-runtime': 1}}}",
		  "tasks.t1.dl-runtime: only for SCHED_DEADLINE" },
		{ "{'tasks': {'t1': {'run': -5}}}",
		  "tasks.t1.run: \"-5\" is not a duration" },
		{ "{'tasks': {'a': {'run': 1, 'timer': {'ref': 't', 'period': 10}},\n"
		  "'b': {'run': 1, 'timer': {'ref': 't', 'period': 10}}}}",
		  "tasks.a: timer \"t\" is also tasks.b's: shared timers" },
	};
	char want[160];
	size_t i;

	need_dlgen();
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int st;

		put(JSON, bad[i].text);
		st = dlgen("%s", JSON);
		snprintf(want, sizeof(want), "dlgen: %s", bad[i].says);
		CHECK(st == 2, "case %zu: status %d", i, st);
		CHECK(strstr(err, want), "case %zu: want \"%s\", got: %s", i,
		      want, err);
	}
	put(JSON, "{'global': {'calibration': 'CPU0'},\n"
	    "'tasks': {'t1': {'run': 'x'}}}");
	dlgen("%s", JSON);
	CHECK(strstr(err, "note: global.calibration ignored"),
	      "no note on calibration: %s", err);
}

/*
 * Events run in the order of their keys, repeated keys included.  Run,
 * sleep, run: a job spans the sleep, and the next is released at its end.
 * Run, run, sleep (rt-app's numbered keys, comments, trailing commas):
 * the sleep releases the next job, 20 ms after the end, nominally.
 */
static void json_events_in_order(void)
{
	long long gap;
	int n, i, k;

	need_dlgen();
	put(JSON, "{'global': {'duration': 5},\n"
	    "'tasks': {'seq': {'loop': 5, 'run': 2000, 'sleep': 20000, 'run': 1000}}}");
	REQUIRE(dlgen(JSON " --log " LOG) == 0, "%s", err);
	n = load_log();
	CHECK(check_task(n, "seq", 0, 0, 3 * MS) == 5, "5 jobs for loop 5");
	for (i = 0; i < n; i++) {
		CHECK(jobs[i].end - jobs[i].start >= 20 * MS,
		      "job %d spans %lld ns, without the sleep", i,
		      jobs[i].end - jobs[i].start);
		CHECK(!i || jobs[i].release == jobs[i - 1].end,
		      "job %d released %lld after the end of the one before",
		      i, jobs[i].release - jobs[i - 1].end);
	}
	put(JSON, "/* rt-app's style */\n"
	    "{'tasks': {'seq': {'loop': 4, // numbered keys\n"
	    "'run0': 1000, 'run1': '1ms', 'sleep0': '20ms',},},}\n");
	REQUIRE(dlgen(JSON " --log " LOG) == 0, "%s", err);
	n = load_log();
	k = check_task(n, "seq", 0, 0, 2 * MS);
	CHECK(k == 4, "%d jobs for loop 4", k);
	for (i = 1; i < n; i++) {
		gap = jobs[i].release - jobs[i - 1].end;
		CHECK(gap >= 20 * MS && gap < 40 * MS,
		      "job %d released %lld after the end of the one before",
		      i, gap);
	}
	check_summary("seq", "other");
}

/*
 * Two deadline tasks for 300 ms: the log's columns agree, releases keep
 * to the grid of each period exactly, and 300 ms holds 15 and 10 jobs.
 */
static void dl_run_log(void)
{
	int n, a, b;

	dl_settle();
	REQUIRE(dlgen("-t 20000:2000:d -t 30ms:3ms:d:-:20ms -D 300ms --log "
		      LOG) == 0, "status: %s", err);
	n = load_log();
	a = check_task(n, "t0", 20 * MS, 20 * MS, 2 * MS);
	b = check_task(n, "t1", 30 * MS, 20 * MS, 3 * MS);
	CHECK(a == 15, "t0: %d jobs in 300 ms of 20 ms periods", a);
	CHECK(b == 10, "t1: %d jobs in 300 ms of 30 ms periods", b);
	CHECK(jobs[0].pid != jobs[n - 1].pid, "the tasks share a pid");
	CHECK(jobs[0].release == jobs[a].release, "the tasks start apart");
	check_summary("t0", "deadline");
	check_summary("t1", "deadline");
	CHECK(strstr(out, "2ms/20ms/20ms") && strstr(out, "3ms/20ms/30ms"),
	      "the parameters are not in the summary:\n%s", out);
}

/* The JSON log: the same keys, one object per job, in an array. */
static void json_log(void)
{
	static const char *const keys[] = {
		"\"task\":\"t0\"", "\"pid\":", "\"job\":0,", "\"release_ns\":",
		"\"start_ns\":", "\"end_ns\":", "\"deadline_ns\":",
		"\"runtime_ns\":", "\"response_ns\":", "\"slack_ns\":",
		"\"miss\":",
	};
	const char *p;
	size_t i;
	int n = 0;

	need_dlgen();
	REQUIRE(dlgen("-t 20000:1000:o -D 100ms --log-format json --log -") ==
		0, "%s", err);
	CHECK(out[0] == '[' && strstr(out, "}]\n"), "not an array: %s", out);
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		CHECK(strstr(out, keys[i]), "no %s in %s", keys[i], out);
	for (p = out; (p = strstr(p, "{\"task\"")); p++)
		n++;
	CHECK(n == 5, "%d jobs in 100 ms of 20 ms periods", n);
	/* With the log on stdout, the summary goes to stderr. */
	CHECK(strstr(err, "worst resp"), "no summary on stderr: %s", err);
	CHECK(!strstr(out, "worst resp"), "the summary is in the log");
}

/* A set that does not fit: EBUSY, explained, exit status 1. */
static void ebusy_reported(void)
{
	char spec[1024] = "";
	int i, st;

	dl_settle();
	/* n + 1 tasks of 90 %: more than n CPUs admit at 95 %. */
	for (i = 0; i <= ncpus(); i++)
		strcat(spec, " -t 100ms:90ms:d");
	st = dlgen("%s -D 1 --log " LOG, spec);
	CHECK(st == 1, "status %d", st);
	CHECK(strstr(err, "sched_setattr: Device or resource busy"),
	      "no EBUSY in: %s", err);
	CHECK(strstr(err, "admission control refused it"), "no reason: %s",
	      err);
	CHECK(!strstr(out, "worst resp"), "a summary of a run that was not");
}

/*
 * A deadline task pinned to fewer CPUs than it may use: the kernel would
 * refuse it (EPERM), so dlgen does, explaining the cpuset it needs.  On
 * one CPU, the pinning is already there and it runs.
 */
static void dl_affinity(void)
{
	int st;

	dl_settle();
	st = dlgen("-t 100ms:5ms:d:0 -D 200ms");
	if (ncpus() == 1) {
		CHECK(st == 0, "status %d on the only CPU: %s", st, err);
		return;
	}
	CHECK(st == 1, "status %d", st);
	CHECK(strstr(err, "affinity: SCHED_DEADLINE with CPU affinity 0") &&
	      strstr(err, "cpuset"), "no explanation: %s", err);
	/* Other policies are pinned. */
	CHECK(dlgen("-t 100ms:5ms:f:0 -D 200ms") == 0, "fifo pinned: %s", err);
}

#define V2 "/sys/fs/cgroup"

/*
 * The HOWTO's pinning, in cgroup v2: a partition of the last CPU is a
 * root domain of its own; there "rt-app -t 100000:10000:d:CPU" runs, its
 * affinity a no-op.
 */
static void dl_in_partition(void)
{
	int last = ncpus() - 1, r, st;
	pid_t pid;

	if (ncpus() < 2)
		SKIP("needs 2 CPUs");
	dl_settle();
	mkdir(V2, 0755);
	REQUIRE(mount("none", V2, "cgroup2", 0, NULL) == 0, "mount cgroup2: %s",
		strerror(errno));
	r = file_put(V2 "/cgroup.subtree_control", "+cpuset") ||
	    (mkdir(V2 "/dlgen", 0755) && errno != EEXIST) ||
	    file_put(V2 "/dlgen/cpuset.cpus", "%d", last) ||
	    file_put(V2 "/dlgen/cpuset.cpus.partition", "root");
	if (r) {
		tap_diag("making the partition: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (pid == 0) {
		if (file_put(V2 "/dlgen/cgroup.procs", "%d", getpid()))
			_exit(10);
		_exit(dlgen("-t 100000:10000:d:%d -D 300ms", last));
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	/* Past the task's 0-lag time before the rebuild of the domains. */
	usleep(200 * 1000);
	file_put(V2 "/dlgen/cpuset.cpus.partition", "member");
out:
	rmdir(V2 "/dlgen");
	umount(V2);
	CHECK(!r, "no partition");
}

/* The HOWTO's command, under the name the HOWTO uses. */
static void rt_app_name(void)
{
	int st;

	dl_settle();
	unlink("/tmp/rt-app");
	REQUIRE(symlink(DLGEN, "/tmp/rt-app") == 0, "symlink: %s",
		strerror(errno));
	unlink(LOG);
	st = sh("DLGEN_LOG=" LOG " /tmp/rt-app",
		"-t 100000:10000:d -t 150000:20000:f:-:10 -D1");
	CHECK(st == 0, "status %d: %s", st, err);
	check_summary("t0", "deadline");
	check_summary("t1", "fifo:10");
	/* DLGEN_LOG: a log without changing the HOWTO's command line */
	check_task(load_log(), "t0", 100 * MS, 100 * MS, 10 * MS);
	CHECK(sh("/tmp/rt-app", "--help") == 0 && strstr(out, "usage: rt-app"),
	      "help: %s", out);
	CHECK(sh("/tmp/rt-app", "-t 1") == 2 && strstr(err, "rt-app: -t 1:"),
	      "errors in rt-app's name: %s", err);
	unlink("/tmp/rt-app");
}

/* SIGINT ends a run without an end: the log and summary still come. */
static void sigint_ends_run(void)
{
	int n, st, fd;
	pid_t pid;

	dl_settle();
	pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (pid == 0) {
		fd = open(OUT, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
		execl(DLGEN, DLGEN, "-t", "20000:2000:d", "--log", LOG, NULL);
		_exit(127);
	}
	usleep(500 * 1000);
	kill(pid, SIGINT);
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	slurp(OUT, out, sizeof(out));
	check_summary("t0", "deadline");
	n = load_log();
	CHECK(check_task(n, "t0", 20 * MS, 20 * MS, 2 * MS) >= 1, "no job");
}

/*
 * A task whose jobs run 10 ms in a reservation of 2 ms every 20 ms, for
 * @secs seconds.  Its timer's period is the reservation's; each job ends
 * after the next job was due, so the next starts at once: the task runs
 * whenever its budget lets it.  It takes five budgets to run a job, so
 * job k (from 0) ends in the fifth period of its own, at 2 ms into
 * period 5 k + 4 of the run, and runs 100 ms from the end of the one
 * before: the CPU share is the reservation's, 0.1.
 */
#define OVER_Q (2 * MS)
#define OVER_P (20 * MS)
#define OVER_RUN (10 * MS)

static int run_overrun(const char *secs)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "{'global': {'duration': %s, 'default_policy': 'SCHED_DEADLINE'},\n"
		 "'tasks': {'over': {'run': 10000, 'dl-runtime': 2000, 'dl-period': 20000,\n"
		 "'timer': {'ref': 'unique', 'period': 20000}}}}\n", secs);
	dl_settle();
	put(JSON, text);
	REQUIRE(dlgen(JSON " --log " LOG) == 0, "status: %s", err);
	CHECK(strstr(out, "note: over: a job runs 10ms, its runtime is 2ms"),
	      "no note on the overrun: %s", out);
	return load_log();
}

/*
 * The task above, for 0.5 s: the CBS throttles it (every job takes
 * several periods and misses), which dlgen reports as data, and with
 * --fail-on-miss as exit status 3.  On a host that keeps the vCPU from
 * running now and then, the time of each job is not exact (the time
 * lost counts as the job's CPU time, and ended one after 37.5 ms,
 * once): most jobs, not all, must take between 3 and 7 periods, about
 * the 5 of the rule.  icount_overrun_throttled holds them to it.
 */
static void overrun_throttled(void)
{
	int n = run_overrun("0.5"), i, near = 0;

	check_task(n, "over", 0, 20 * MS, OVER_RUN);
	for (i = 0; i < n; i++) {
		long long took = jobs[i].end - jobs[i].start;

		CHECK(jobs[i].miss, "job %d did not miss", i);
		if (took >= 3 * OVER_P && took <= 7 * OVER_P)
			near++;
		else
			tap_diag("job %d: %lld ns for 10 ms in 2 ms a 20 ms period",
				 i, took);
	}
	CHECK(n > 0 && 2 * near > n, "%d of %d jobs took 3 to 7 periods",
	      near, n);
	dl_settle();
	CHECK(dlgen(JSON " --fail-on-miss") == 3, "--fail-on-miss");
}

static void need_icount(void)
{
	if (!icount())
		SKIP("timing is asserted under -icount only (DLK_ICOUNT)");
	tap_skip_on_debug_kernel();
}

/*
 * Under -icount: a light set misses nothing, and each job's CPU time is
 * its run within 3 %.
 */
static void icount_light_set(void)
{
	double worst = 0;
	int n, i;

	need_icount();
	dl_settle();
	/*
	 * Each deadline task's budget is 10% above its run: with a budget
	 * of exactly the run, the job's own overhead (the wakeup, the clock
	 * reads, the log) is an overrun, carried as debt from job to job
	 * until the CBS throttles a job and it misses, as it must.
	 */
	put(JSON, "{'global': {'duration': 2},\n"
	    "'tasks': {\n"
	    "'t0': {'run': 5000, 'policy': 'SCHED_DEADLINE',\n"
	    "       'dl-runtime': 5500, 'dl-period': 50000,\n"
	    "       'timer': {'ref': 'unique0', 'period': 50000}},\n"
	    "'t1': {'run': 20000, 'policy': 'SCHED_DEADLINE',\n"
	    "       'dl-runtime': 22000, 'dl-period': 100000,\n"
	    "       'timer': {'ref': 'unique1', 'period': 100000}},\n"
	    "'t2': {'run': 10000, 'policy': 'SCHED_FIFO', 'priority': 20,\n"
	    "       'timer': {'ref': 'unique2', 'period': 200000}}}}\n");
	REQUIRE(dlgen(JSON " --log " LOG) == 0, "status: %s", err);
	n = load_log();
	CHECK(check_task(n, "t0", 50 * MS, 50 * MS, 5 * MS) == 40, "t0 jobs");
	CHECK(check_task(n, "t1", 100 * MS, 100 * MS, 20 * MS) == 20,
	      "t1 jobs");
	CHECK(check_task(n, "t2", 200 * MS, 200 * MS, 10 * MS) == 10,
	      "t2 jobs");
	for (i = 0; i < n; i++) {
		long long run = jobs[i].task[1] == '0' ? 5 * MS :
				jobs[i].task[1] == '1' ? 20 * MS : 10 * MS;
		double off = fabs((double)(jobs[i].runtime - run) / run);

		if (off > worst)
			worst = off;
		CHECK(!jobs[i].miss, "%s job %ld missed by %lld ns",
		      jobs[i].task, jobs[i].job, -jobs[i].slack);
		CHECK(jobs[i].runtime > run * 97 / 100 &&
		      jobs[i].runtime < run * 103 / 100,
		      "%s job %ld: runtime %lld for a run of %lld",
		      jobs[i].task, jobs[i].job, jobs[i].runtime, run);
	}
	tap_diag("runtime within %.2f%% of the run in all %d jobs",
		 100 * worst, n);
}

/*
 * Under -icount, the task of run_overrun() for 1 s: job k ends 2 ms into
 * period 5 k + 4 of the run, less the debt of the overrun the period
 * before left (under a tick, HRTICK being off), and less what the job
 * used before its release (dlgen counts its CPU time from the end of the
 * last: a few us).  So each job's end is within a tick of the rule, and
 * its CPU time 10 ms within 2 %.  dlgen runs every job released before
 * the end to its own end: 11, the last released at 982 ms.  The share of
 * the CPU the task had until then is the budgets' of the periods it
 * took: 5 n Q / ((5 n - 1) P + Q), 0.1017.
 */
static void icount_overrun_throttled(void)
{
	const int want_n = 11;
	long long cpu = 0, span, lo = 0, hi = 0;
	double share, want_share;
	int n, k, late = 0;

	need_icount();
	n = run_overrun("1");
	CHECK(n == want_n, "%d jobs in 1 s, want %d", n, want_n);
	for (k = 0; k < n; k++) {
		const struct job *j = &jobs[k];
		long long want = (5 * k + 4) * OVER_P + OVER_Q;
		long long end = j->end - jobs[0].release;

		CHECK(!strcmp(j->task, "over") && j->job == k && j->miss,
		      "row %d: %s job %ld, miss %d", k, j->task, j->job,
		      j->miss);
		lo = k && lo < end - want ? lo : end - want;
		hi = k && hi > end - want ? hi : end - want;
		/*
		 * A debt of a whole budget costs the next period: the job
		 * ends a period later, less that debt (up to two ticks:
		 * the tick's charge and one more that a class may let a
		 * task run in debt inside an RCU read-side section).  The
		 * share below holds such jobs to a few.
		 */
		if (end > want + MS / 4 && late < 2 &&
		    end >= want + OVER_P - 2 * MS - MS / 4 &&
		    end <= want + OVER_P + MS / 4) {
			tap_diag("job %d ended a period late, %lld ns after the first release",
				 k, end);
			late++;
		} else {
			CHECK(end >= want - MS - MS / 4 && end <= want + MS / 4,
			      "job %d ended %lld ns after the first release, want %lld",
			      k, end, want);
		}
		CHECK(j->runtime >= OVER_RUN * 98 / 100 &&
		      j->runtime <= OVER_RUN * 102 / 100,
		      "job %d: %lld ns of CPU time", k, j->runtime);
		cpu += j->runtime;
	}
	REQUIRE(n > 0, "no job");
	span = jobs[n - 1].end - jobs[0].release;
	share = (double)cpu / span;
	want_share = (double)(5 * n * OVER_Q) / ((5 * n - 1) * OVER_P + OVER_Q);
	tap_diag("%d jobs, ending %.3f to %+.3f ms off the rule; the last ended %.3f ms after the first release, with %.3f ms of CPU: a share of %.5f, want %.5f",
		 n, lo / 1e6, hi / 1e6, span / 1e6, cpu / 1e6, share,
		 want_share);
	/* the last end within a tick, the CPU time within a few us a job */
	CHECK(share >= want_share * 0.997 && share <= want_share * 1.002,
	      "a share of %.4f, want %.4f", share, want_share);
}

/* Under -icount: of three tasks, the one overrunning hurts only itself. */
static void icount_overrun_isolated(void)
{
	int n, i;

	need_icount();
	dl_settle();
	put(JSON, "{'global': {'duration': 2, 'default_policy': 'SCHED_DEADLINE'},\n"
	    "'tasks': {\n"
	    "'a': {'run': 5000, 'dl-runtime': 6000, 'dl-period': 50000,\n"
	    "      'timer': {'ref': 'unique', 'period': 50000}},\n"
	    "'b': {'run': 10000, 'dl-runtime': 12000, 'dl-period': 100000,\n"
	    "      'timer': {'ref': 'unique', 'period': 100000}},\n"
	    "'hog': {'run': 30000, 'dl-runtime': 10000, 'dl-period': 100000,\n"
	    "        'timer': {'ref': 'unique', 'period': 100000}}}}\n");
	REQUIRE(dlgen(JSON " --log " LOG) == 0, "status: %s", err);
	n = load_log();
	CHECK(check_task(n, "a", 50 * MS, 50 * MS, 5 * MS) == 40, "a's jobs");
	CHECK(check_task(n, "b", 100 * MS, 100 * MS, 10 * MS) == 20,
	      "b's jobs");
	check_task(n, "hog", 0, 100 * MS, 30 * MS);
	for (i = 0; i < n; i++) {
		bool hog = !strcmp(jobs[i].task, "hog");

		CHECK(jobs[i].miss == hog, "%s job %ld: miss %d", jobs[i].task,
		      jobs[i].job, jobs[i].miss);
	}
}

/*
 * "toolgen" runs the functional tests, "toolgen timing" the two that hold
 * dlgen's timing to account, for a boot under -icount.
 */
int main(int argc, char **argv)
{
	static const struct tap_test tests[] = {
		TAP_TEST(spec_errors),
		TAP_TEST(json_syntax_errors),
		TAP_TEST(json_unsupported_keys),
		TAP_TEST(json_events_in_order),
		TAP_TEST(json_log),
		TAP_TEST(dl_run_log),
		TAP_TEST(dl_affinity),
		TAP_TEST(dl_in_partition),
		TAP_TEST(rt_app_name),
		TAP_TEST(sigint_ends_run),
		TAP_TEST(overrun_throttled),
		TAP_TEST(ebusy_reported),
		{ NULL, NULL }
	};
	static const struct tap_test timing[] = {
		TAP_TEST(icount_light_set),
		TAP_TEST(icount_overrun_isolated),
		TAP_TEST(icount_overrun_throttled),
		{ NULL, NULL }
	};

	if (argc > 1 && !strcmp(argv[1], "timing"))
		return tap_run(timing);
	return tap_run(tests);
}
