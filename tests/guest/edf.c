// SPDX-License-Identifier: GPL-2.0
/*
 * edf: Earliest Deadline First and the guarantees it gives, on one vCPU
 * under -icount where guest time is faithful.
 *
 * On one CPU, EDF with CBS reservations meets every deadline of any task
 * set whose bandwidth fits (Liu and Layland), and a task that overruns
 * its reservation hurts nobody but itself.  Those are the promises users
 * buy SCHED_DEADLINE for, so they are tested as promises: zero misses over
 * at least a thousand jobs of random task sets (UUniFast, seed printed),
 * up to the admission limit, with and without a task that spins forever.
 * Work is thread CPU time; each job's work is 3/4 of its budget, the rest
 * is what the job's own wakeup and bookkeeping cost.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dl.h"
#include "spin.h"
#include "tap.h"

#define MS 1000000LL
#define MAX_TASKS 16

struct task {
	int64_t q, d, p, c;	/* reservation, and the work of each job */
	int hog;		/* spins forever instead of running jobs */
	int jobs, misses, failed;
	int64_t worst_resp, worst_late;
	/* the job of the worst response: how it went */
	int64_t worst_wake;	/* woken this long after its release */
	int64_t worst_cpu;	/* CPU time from its wakeup to its end */
	long worst_preempted;	/* involuntary switches in it */
	int64_t end[4];		/* for the order tests: when each job ended */
};

static struct task *shared_tasks(int n)
{
	void *p = mmap(NULL, sizeof(struct task) * n, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	REQUIRE(p != MAP_FAILED, "mmap: %s", strerror(errno));
	memset(p, 0, sizeof(struct task) * n);
	return p;
}

static void need_one_cpu(void)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) != 1)
		SKIP("EDF guarantees are measured on one vCPU");
	tap_skip_on_debug_kernel();
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { t / 1000000000, t % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* A periodic task: a job released every period from @start until @stop. */
static void worker(struct task *t, int64_t start, int64_t stop)
{
	int64_t rel, fin;
	int k;

	if (dl_become(t->q, t->d, t->p, 0)) {
		t->failed = errno;
		_exit(1);
	}
	if (t->hog) {
		sleep_until(start);
		while (now_ns() < stop)
			;
		_exit(0);
	}
	for (k = 0; (rel = start + k * t->p) + t->d <= stop; k++) {
		struct rusage r0, r1;
		int64_t woke, c0;

		sleep_until(rel);
		woke = now_ns();
		c0 = cpu_ns();
		getrusage(RUSAGE_SELF, &r0);
		spin_cpu(t->c);
		fin = now_ns();
		t->jobs++;
		if (fin - rel > t->worst_resp) {
			getrusage(RUSAGE_SELF, &r1);
			t->worst_resp = fin - rel;
			t->worst_wake = woke - rel;
			t->worst_cpu = cpu_ns() - c0;
			t->worst_preempted = r1.ru_nivcsw - r0.ru_nivcsw;
		}
		if (fin > rel + t->d) {
			t->misses++;
			if (fin - rel - t->d > t->worst_late)
				t->worst_late = fin - rel - t->d;
		}
	}
	_exit(0);
}

/* Runs the task set for @len ns; returns the total number of misses. */
static int run_set(struct task *ts, int n, int64_t len, int *jobs)
{
	int64_t start = now_ns() + 200 * MS;
	pid_t pid[MAX_TASKS];
	int i, misses = 0;

	for (i = 0; i < n; i++) {
		pid[i] = fork();
		REQUIRE(pid[i] >= 0, "fork: %s", strerror(errno));
		if (pid[i] == 0)
			worker(&ts[i], start, start + len);
	}
	for (i = 0; i < n; i++)
		waitpid(pid[i], NULL, 0);
	*jobs = 0;
	for (i = 0; i < n; i++) {
		struct task *t = &ts[i];

		tap_diag("task %d: %.3f/%.3f/%.3f ms work %.3f%s: %d jobs, %d missed, worst response %.3f ms (woken after %.3f ms, %.3f ms of CPU, preempted %ld times), late %.3f ms",
			 i, t->q / 1e6, t->d / 1e6, t->p / 1e6, t->c / 1e6,
			 t->hog ? " (hog)" : "", t->jobs, t->misses,
			 t->worst_resp / 1e6, t->worst_wake / 1e6,
			 t->worst_cpu / 1e6, t->worst_preempted,
			 t->worst_late / 1e6);
		CHECK(!t->failed, "task %d not admitted: %s", i,
		      strerror(t->failed));
		if (!t->hog) {
			misses += t->misses;
			*jobs += t->jobs;
		}
	}
	return misses;
}

static uint64_t rng_state;

static double rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / (double)(1ULL << 53);
}

static uint64_t seed(void)
{
	const char *s = getenv("DLK_SEED");
	uint64_t v = s ? strtoull(s, NULL, 0) : 20261203;

	tap_diag("seed %llu (DLK_SEED= to repeat)", (unsigned long long)v);
	return v ? v : 1;
}

/*
 * UUniFast (Bini and Buttazzo 2005): @n utilisations summing to @u, drawn
 * uniformly; periods uniform in [10, 100] ms; the work of a job is 3/4 of
 * its budget and at least 300 us short of it, for the job's own overhead.
 * Sets with a budget under 1 ms are drawn again: such a job's overhead is
 * a large part of it under emulation.
 */
static void uunifast(struct task *ts, int n, double u)
{
	int i, tries;

	for (tries = 0; tries < 1000; tries++) {
		double sum = u, next;
		int small = 0;

		for (i = 0; i < n; i++) {
			double ui;

			next = i < n - 1 ? sum * pow(rnd(), 1.0 / (n - 1 - i)) : 0;
			ui = sum - next;
			sum = next;
			ts[i].p = (10 + (int64_t)(rnd() * 90)) * MS;
			ts[i].d = ts[i].p;
			ts[i].q = (int64_t)(ui * ts[i].p);
			ts[i].c = ts[i].q * 3 / 4;
			if (ts[i].q - ts[i].c < 300000)
				ts[i].c = ts[i].q - 300000;
			small |= ts[i].q < 1 * MS;
		}
		if (!small)
			return;
	}
	REQUIRE(0, "no set of %d tasks with budgets over 1 ms for U = %.3f", n, u);
}

/*
 * The bandwidth free in the root domain, as a fraction of a CPU, once
 * what earlier task sets held is back (a set's tasks return theirs at
 * their 0-lag times, up to a period after they exit).
 */
static double free_bw(void)
{
	long long bw, total;

	usleep(150 * 1000);
	REQUIRE(dl_sysctl_known_state() == 0, "sysctls: %s", strerror(errno));
	REQUIRE(dl_bw_of_cpu(0, &bw, &total) == 0, "read sched/debug");
	return (double)(bw - total) / DL_BW_UNIT;
}

static void random_sets(double frac, int nsets)
{
	struct task *ts = shared_tasks(MAX_TASKS);
	int s, jobs, total_jobs = 0, misses = 0;

	need_one_cpu();
	rng_state = seed();
	for (s = 0; s < nsets; s++) {
		int n = 3 + (int)(rnd() * 5);
		/* The tasks of the last set give their bandwidth back first. */
		double limit = free_bw();
		/* a little under the line, for the rounding of each budget */
		double u = frac * limit - 0.002;

		memset(ts, 0, sizeof(*ts) * MAX_TASKS);
		uunifast(ts, n, u);
		tap_diag("set %d: %d tasks, U = %.3f of %.3f free", s, n, u, limit);
		misses += run_set(ts, n, 3000 * MS, &jobs);
		total_jobs += jobs;
	}
	tap_diag("%d jobs, %d missed", total_jobs, misses);
	CHECK(total_jobs >= 1000, "only %d jobs", total_jobs);
	CHECK(misses == 0, "%d of %d jobs missed their deadline", misses,
	      total_jobs);
}

/* Random sets at half the limit: zero misses. */
static void uunifast_half_limit_no_misses(void)
{
	random_sets(0.5, 4);
}

/* Random sets right at the admission limit: still zero misses. */
static void uunifast_at_limit_no_misses(void)
{
	random_sets(1.0, 4);
}

/* A task spinning forever in its reservation makes nobody else miss. */
static void hog_does_not_hurt_others(void)
{
	struct task *ts = shared_tasks(MAX_TASKS);
	int jobs, misses, n = 5;
	double limit;

	need_one_cpu();
	limit = free_bw();
	rng_state = seed();
	uunifast(ts, n, limit - 0.3 - 0.002);
	ts[n].q = 30 * MS;
	ts[n].d = ts[n].p = 100 * MS;
	ts[n].hog = 1;
	misses = run_set(ts, n + 1, 3000 * MS, &jobs);
	CHECK(misses == 0, "%d of %d jobs missed beside the hog", misses, jobs);
	CHECK(jobs > 150, "only %d jobs", jobs);
}

/*
 * Tasks released together run in deadline order: the earliest absolute
 * deadline first, whatever the order they were created in.
 */
static void release_together_run_in_deadline_order(void)
{
	static const int64_t d[] = { 80 * MS, 20 * MS, 60 * MS, 40 * MS };
	struct task *ts = shared_tasks(4);
	int64_t start;
	pid_t pid[4];
	int i, j;

	need_one_cpu();
	REQUIRE(dl_sysctl_known_state() == 0, "sysctls: %s", strerror(errno));
	start = now_ns() + 200 * MS;
	for (i = 0; i < 4; i++) {
		pid[i] = fork();
		REQUIRE(pid[i] >= 0, "fork");
		if (pid[i] == 0) {
			if (dl_become(10 * MS, d[i], 200 * MS, 0))
				_exit(1);
			sleep_until(start);
			spin_cpu(5 * MS);
			ts[i].end[0] = now_ns();
			_exit(0);
		}
	}
	for (i = 0; i < 4; i++)
		waitpid(pid[i], NULL, 0);
	for (i = 0; i < 4; i++) {
		tap_diag("deadline %lld ms: done at +%.3f ms", (long long)(d[i] / MS),
			 (ts[i].end[0] - start) / 1e6);
		for (j = 0; j < 4; j++)
			if (d[j] < d[i])
				CHECK(ts[j].end[0] < ts[i].end[0],
				      "deadline %lld ms ended before %lld ms",
				      (long long)(d[i] / MS), (long long)(d[j] / MS));
	}
}

/* A task waking with an earlier deadline preempts the running one. */
static void earlier_deadline_preempts(void)
{
	struct task *ts = shared_tasks(2);
	int64_t start;
	pid_t a, b;

	need_one_cpu();
	REQUIRE(dl_sysctl_known_state() == 0, "sysctls: %s", strerror(errno));
	start = now_ns() + 200 * MS;
	a = fork();
	REQUIRE(a >= 0, "fork");
	if (a == 0) {
		if (dl_become(40 * MS, 100 * MS, 100 * MS, 0))
			_exit(1);
		sleep_until(start);
		spin_cpu(30 * MS);
		ts[0].end[0] = now_ns();
		_exit(0);
	}
	b = fork();
	REQUIRE(b >= 0, "fork");
	if (b == 0) {
		if (dl_become(10 * MS, 20 * MS, 100 * MS, 0))
			_exit(1);
		sleep_until(start + 5 * MS);
		ts[1].end[1] = now_ns();
		spin_cpu(5 * MS);
		ts[1].end[0] = now_ns();
		_exit(0);
	}
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	tap_diag("long job done at +%.3f ms; short one woke at +%.3f, done at +%.3f ms",
		 (ts[0].end[0] - start) / 1e6, (ts[1].end[1] - start) / 1e6,
		 (ts[1].end[0] - start) / 1e6);
	CHECK(ts[1].end[0] < ts[0].end[0], "the earlier deadline did not preempt");
	CHECK(ts[1].end[0] - start <= 5 * MS + 5 * MS + 2 * MS,
	      "the short job took %lld ns", (long long)(ts[1].end[0] - start));
}

/* A FIFO task spinning on this CPU for at most 3 s; killed by the caller. */
static pid_t fork_rt_hog(void)
{
	struct sched_param sp = { .sched_priority = 50 };
	pid_t rt = fork();

	REQUIRE(rt >= 0, "fork");
	if (rt == 0) {
		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(1);
		alarm(3);
		for (;;)
			;
	}
	return rt;
}

/* CFS keeps the fair server's share (50 ms/s) under RT and DL hogs. */
static void cfs_keeps_fair_server_share(void)
{
	struct task *ts = shared_tasks(1);
	pid_t rt, dl, cfs;
	int64_t used;

	need_one_cpu();
	REQUIRE(dl_sysctl_known_state() == 0, "sysctls: %s", strerror(errno));
	cfs = fork();
	REQUIRE(cfs >= 0, "fork");
	if (cfs == 0) {
		int64_t c0 = cpu_ns(), t0 = now_ns();

		while (now_ns() - t0 < 2200 * MS)
			;
		ts->end[0] = cpu_ns() - c0;
		_exit(0);
	}
	rt = fork_rt_hog();
	dl = fork();
	REQUIRE(dl >= 0, "fork");
	if (dl == 0) {
		if (dl_become(30 * MS, 100 * MS, 100 * MS, 0))
			_exit(1);
		alarm(3);
		for (;;)
			;
	}
	waitpid(cfs, NULL, 0);
	kill(rt, SIGKILL);
	kill(dl, SIGKILL);
	waitpid(rt, NULL, 0);
	waitpid(dl, NULL, 0);
	used = ts->end[0];
	tap_diag("the CFS task ran %.3f ms in 2.2 s under an RT and a DL hog",
		 used / 1e6);
	CHECK(used >= 2 * 50 * MS * 9 / 10, "CFS got %lld ns in 2.2 s",
	      (long long)used);
}

/*
 * A fair task that sleeps often (1 ms of work, then 1 ms asleep) under an
 * RT hog still gets the fair server's share.  Each sleep leaves the CPU's
 * fair class empty and stops the server; a server that opened a new
 * deferred period at every restart would push the share out of reach.
 */
static void cfs_sleeper_keeps_fair_server_share(void)
{
	struct task *ts = shared_tasks(1);
	struct timespec ms = { 0, 1000 * 1000 };
	pid_t rt, cfs;
	int64_t used;

	need_one_cpu();
	REQUIRE(dl_sysctl_known_state() == 0, "sysctls: %s", strerror(errno));
	cfs = fork();
	REQUIRE(cfs >= 0, "fork");
	if (cfs == 0) {
		int64_t c0 = cpu_ns(), t0 = now_ns(), w;

		while (now_ns() - t0 < 2200 * MS) {
			for (w = cpu_ns(); cpu_ns() - w < MS;)
				;
			nanosleep(&ms, NULL);
		}
		ts->end[0] = cpu_ns() - c0;
		_exit(0);
	}
	rt = fork_rt_hog();
	waitpid(cfs, NULL, 0);
	kill(rt, SIGKILL);
	waitpid(rt, NULL, 0);
	used = ts->end[0];
	tap_diag("the sleeping CFS task ran %.3f ms in 2.2 s under an RT hog",
		 used / 1e6);
	CHECK(used >= 2 * 50 * MS * 8 / 10, "CFS got %lld ns in 2.2 s",
	      (long long)used);
}

/*
 * Fair tasks that start to starve wait at most one period, less the
 * budget, for the server: here its budget was just spent by idle time
 * (the server is deferred, so idle time counts as the fair class's).  A
 * server that then waited for the end of that period before deferring
 * again would leave them starving for up to two periods.
 */
static void cfs_starved_served_within_a_period(void)
{
	struct task *ts = shared_tasks(1);
	struct timespec idle = { 0, 200 * 1000 * 1000 };
	int64_t gap;
	pid_t rt, cfs;

	need_one_cpu();
	REQUIRE(dl_sysctl_known_state() == 0, "sysctls: %s", strerror(errno));
	cfs = fork();
	REQUIRE(cfs >= 0, "fork");
	if (cfs == 0) {
		int64_t t0, last, t, worst = 0;

		nanosleep(&idle, NULL);
		for (t0 = last = now_ns(); last - t0 < 2200 * MS; last = t) {
			t = now_ns();
			if (t - last > worst)
				worst = t - last;
		}
		ts->end[0] = worst;
		_exit(0);
	}
	nanosleep(&idle, NULL);
	rt = fork_rt_hog();
	waitpid(cfs, NULL, 0);
	kill(rt, SIGKILL);
	waitpid(rt, NULL, 0);
	gap = ts->end[0];
	tap_diag("the longest the CFS task waited under an RT hog: %.3f ms",
		 gap / 1e6);
	/* 950 ms is the zero-laxity time; the margin is for the hog's start. */
	CHECK(gap <= 1000 * MS, "CFS waited %lld ns for the server",
	      (long long)gap);
}

int main(void)
{
	static const struct tap_test tests[] = {
		TAP_TEST(release_together_run_in_deadline_order),
		TAP_TEST(earlier_deadline_preempts),
		TAP_TEST(uunifast_half_limit_no_misses),
		TAP_TEST(uunifast_at_limit_no_misses),
		TAP_TEST(hog_does_not_hurt_others),
		TAP_TEST(cfs_keeps_fair_server_share),
		TAP_TEST(cfs_sleeper_keeps_fair_server_share),
		TAP_TEST(cfs_starved_served_within_a_period),
		{ NULL, NULL }
	};

	return tap_run(tests);
}
