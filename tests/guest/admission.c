// SPDX-License-Identifier: GPL-2.0
/*
 * admission: where SCHED_DEADLINE's admission control draws its line.
 *
 * A root domain admits tasks while the sum of their bandwidths (runtime /
 * period, in units of 2^-20) stays at or below bw * M, where bw is
 * sched_rt_runtime_us / sched_rt_period_us and M the CPUs' capacity in
 * units of one CPU.  Users size their task sets against that line, so it
 * is tested exactly: the limit is computed from the sysctls and the total
 * the kernel reports as allocated (which includes the fair servers' share
 * when it is charged), never hard-coded.  Tasks holding bandwidth are
 * sleeping children with period 2^20 ns, whose bandwidth is their runtime
 * in ns exactly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dl.h"
#include "file.h"
#include "spin.h"
#include "tap.h"

#define MAX_TASKS 64
#define P20 (1ULL << 20)	/* a period whose bandwidth is the runtime */

struct holders {
	pid_t pid[MAX_TASKS];
	int n;
};

/*
 * The sysctls at their defaults, and no deadline bandwidth held beyond
 * the fair servers'.  Tasks of earlier tests and suites may hold theirs
 * until their 0-lag times, which a debt puts further than
 * dl_sysctl_known_state() waits: wait for them too, or a test would take
 * their later release for its own.  A 0-lag time comes at most a period
 * after the task's last replenishment, and the abi suite's tasks have
 * periods up to sched_deadline_period_max_us (4.19 s by default): 5 s
 * covers them.  A debt puts it k periods further for a debt of k
 * budgets: a host that stalls a vCPU for seconds while a 200 ms / 2 s
 * task runs leaves such a debt (its 0-lag time 48 s away was seen once
 * on a loaded host): wait up to 60 s, which costs nothing when nothing
 * is held.
 */
static bool wait_nothing_held(int max_ms)
{
	static bool stuck;	/* a wait that failed: the next ones are short */
	long long bw, total = -1, srv;
	int waited = 0, step = 10;

	if (stuck)
		max_ms = 2000;
	srv = dl_fair_servers_bw();
	while (waited < max_ms) {
		if (dl_bw_of_cpu(0, &bw, &total) == 0 && total <= srv)
			return true;
		waited += dl_debug_backoff(&step, 100);
	}
	tap_diag("total_bw %lld, still above the fair servers' %lld after %d ms",
		 total, srv, waited);
	stuck = true;
	return false;
}

static void known_state(void)
{
	REQUIRE(dl_sysctl_known_state() == 0, "setting the sysctls: %s",
		strerror(errno));
	wait_nothing_held(60000);
}

/*
 * As known_state(), for a test whose figures are the total's changes
 * over time: bandwidth an earlier task gives back during the test would
 * be taken for the test's own, so one still held fails the test.
 */
static void quiet(void)
{
	REQUIRE(dl_sysctl_known_state() == 0, "setting the sysctls: %s",
		strerror(errno));
	REQUIRE(wait_nothing_held(60000), "an earlier task's bandwidth is "
		"still held 60 s later");
}

static int ncpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* The bandwidth still free in CPU 0's root domain, and what is allocated. */
static long long avail_bw(long long *total)
{
	long long bw, t;

	REQUIRE(dl_bw_of_cpu(0, &bw, &t) == 0, "read sched/debug dl_bw");
	if (total)
		*total = t;
	return bw * ncpus() - t;
}

/* A sleeping child holding @runtime ns, deadline @d, period @p. */
static long hold_dp(struct holders *h, unsigned long long runtime,
		    unsigned long long d, unsigned long long p)
{
	struct dl_attr a = dl_attr_make(runtime, d, p, 0);
	long r;

	REQUIRE(h->n < MAX_TASKS, "too many holders");
	h->pid[h->n] = sleeper_spawn();
	r = dl_setattr(h->pid[h->n], &a, 0);
	if (r) {
		int e = errno;

		sleeper_end(h->pid[h->n]);
		errno = e;
	} else {
		h->n++;
	}
	return r;
}

/* A sleeping child holding @runtime ns every 2^20 ns; the setattr's result. */
static long hold(struct holders *h, unsigned long long runtime)
{
	return hold_dp(h, runtime, P20, P20);
}

static void release_all(struct holders *h)
{
	while (h->n)
		sleeper_end(h->pid[--h->n]);
}

/* Fills the free bandwidth but @left units with tasks of at most U = 1. */
static void fill(struct holders *h, long long left)
{
	long long avail = avail_bw(NULL) - left;
	long long k = (avail + P20 - 1) / P20, i;

	for (i = 0; i < k; i++) {
		long long part = i < k - 1 ? avail / k : avail - (k - 1) * (avail / k);

		REQUIRE(hold(h, part) == 0, "holding %lld of %lld: %s", part,
			avail, strerror(errno));
	}
}

/*
 * After a test, what it allocated must come back (0-lag: poll).  The
 * tasks of the tests that call it have periods of 100 ms at most, so
 * their 0-lag times come within that: 1 s is ten of them.
 */
static bool returned(long long base, long long *t)
{
	long long bw;

	*t = -1;
	if (dl_total_bw_wait(0, base, 1000) == 0)
		return true;
	dl_bw_of_cpu(0, &bw, t);
	return false;
}

static void check_returned(long long base, const char *what)
{
	long long t;
	bool ok = returned(base, &t);

	CHECK(ok, "%s: total_bw %lld, was %lld before", what, t, base);
}

/* The same, where the classic class is known to keep it (@reason). */
static void defect_check_returned(long long base, const char *what,
				  const char *reason)
{
	long long t;
	bool ok = returned(base, &t);

	DEFECT_CHECK(ok, reason, "%s: total_bw %lld, was %lld before", what, t,
		     base);
}

/* The sysctls give bw = runtime/period in 2^-20 units. */
static void limit_follows_sysctls(void)
{
	long long bw, total;

	known_state();
	REQUIRE(dl_bw_of_cpu(0, &bw, &total) == 0, "read sched/debug dl_bw");
	tap_diag("bw %lld total_bw %lld cpus %d", bw, total, ncpus());
	CHECK(bw == (950000LL << 20) / 1000000, "bw %lld for 950000/1000000", bw);
	REQUIRE(sysctl_set("sched_rt_runtime_us", 500000) == 0,
		"write 500000: %s", strerror(errno));
	REQUIRE(dl_bw_of_cpu(0, &bw, &total) == 0, "read sched/debug dl_bw");
	CHECK(bw == (500000LL << 20) / 1000000, "bw %lld for 500000/1000000", bw);
	known_state();
}

/*
 * Our sched/deadline_pool shows each CPU's root domain's limit and total
 * as sched/debug does (the suites read it there on ours, away from the
 * tree's race in sched/debug, dl.h): the two must agree, with a task
 * holding bandwidth and with the limit changed.
 */
static void pool_file_matches_sched_debug(void)
{
	long long pb[DL_MAX_CPUS], pt[DL_MAX_CPUS];
	long long db[DL_MAX_CPUS], dt[DL_MAX_CPUS];
	struct holders h = { .n = 0 };
	int n = ncpus(), c, round;

	if (dl_bw_of_cpus_pool(n, pb, pt))
		SKIP("no sched/deadline_pool with the root domain's figures (the classic implementation)");
	known_state();
	REQUIRE(hold(&h, P20 / 8) == 0, "holding 1/8: %s", strerror(errno));
	for (round = 0; round < 2; round++) {
		REQUIRE(dl_bw_of_cpus_pool(n, pb, pt) == 0, "read deadline_pool");
		REQUIRE(dl_bw_of_cpus_debug(n, db, dt) == 0, "read sched/debug");
		for (c = 0; c < n; c++) {
			CHECK(pb[c] != DL_BW_NONE && pb[c] == db[c] &&
			      pt[c] == dt[c],
			      "cpu%d: deadline_pool bw %lld total %lld, sched/debug bw %lld total %lld",
			      c, pb[c], pt[c], db[c], dt[c]);
		}
		tap_diag("cpu0: bw %lld total %lld", pb[0], pt[0]);
		if (!round)
			REQUIRE(sysctl_set("sched_rt_runtime_us", -1) == 0,
				"write -1: %s", strerror(errno));
	}
	CHECK(pb[0] == -1, "bw %lld with the runtime at -1", pb[0]);
	release_all(&h);
	known_state();
}

/* A task set exactly at the limit is admitted; one unit more is EBUSY. */
static void exactly_at_limit(void)
{
	struct holders h = { .n = 0 };
	long long base, avail;

	known_state();
	avail = avail_bw(&base);
	tap_diag("free %lld units (%.4f CPUs) of %d CPUs, %lld allocated",
		 avail, (double)avail / P20, ncpus(), base);
	REQUIRE(avail > (long long)P20 / 2 + 2048, "less than half a CPU free");
	/*
	 * Half a CPU is left for the last task, so that it can pay back an
	 * overrun of its first budget quickly when it exits: a tiny task's
	 * 0-lag time, where its bandwidth is returned, can be seconds away.
	 */
	fill(&h, P20 / 2);
	CHECK_ERRNO(hold(&h, P20 / 2 + 1), EBUSY, "one unit above the limit");
	CHECK(hold(&h, P20 / 2) == 0, "exactly at the limit: %s",
	      strerror(errno));
	CHECK(avail_bw(NULL) == 0, "%lld units still free", avail_bw(NULL));
	CHECK_ERRNO(hold(&h, 1024), EBUSY, "a task more when full");
	tap_diag("%d tasks admitted", h.n);
	release_all(&h);
	check_returned(base, "after the tasks exited");
}

/* There is no per-task cap: U = 1 is admitted when a CPU's worth is free. */
static void full_cpu_task(void)
{
	struct holders h = { .n = 0 };
	long long base, avail;

	known_state();
	avail = avail_bw(&base);
	if (avail >= (long long)P20)
		CHECK(hold(&h, P20) == 0, "U = 1 with %lld free: %s", avail,
		      strerror(errno));
	else
		CHECK_ERRNO(hold(&h, P20), EBUSY, "U = 1 with less than a CPU free");
	release_all(&h);
	check_returned(base, "after the task exited");
}

/* sched_rt_runtime_us = -1: no admission control at all. */
static void runtime_minus_one_disables(void)
{
	struct holders h = { .n = 0 };
	long long base;
	int i;

	known_state();
	avail_bw(&base);
	REQUIRE(sysctl_set("sched_rt_runtime_us", -1) == 0, "write -1: %s",
		strerror(errno));
	for (i = 0; i <= ncpus(); i++)
		CHECK(hold(&h, P20) == 0, "U = 1 task %d of %d with -1: %s",
		      i + 1, ncpus() + 1, strerror(errno));
	release_all(&h);
	check_returned(base, "after the tasks exited");
	known_state();
}

/* sched_rt_runtime_us = 0: no deadline task can be created (EPERM). */
static void runtime_zero_refuses(void)
{
	struct dl_attr a = dl_attr_make(1 * NSEC_PER_MSEC, 10 * NSEC_PER_MSEC,
					100 * NSEC_PER_MSEC, 0);
	int r, e;

	known_state();
	REQUIRE(sysctl_set("sched_rt_runtime_us", 0) == 0, "write 0: %s",
		strerror(errno));
	r = dl_setattr(0, &a, 0);
	e = errno;
	known_state();
	tap_check_errno(r, e, EPERM, "EPERM", __FILE__, __LINE__,
			"setattr with sched_rt_runtime_us 0");
}

/* Lowering the limit below what is allocated is EBUSY and changes nothing. */
static void lowering_below_allocated(void)
{
	struct holders h = { .n = 0 };
	long long base, need, us, srv;

	known_state();
	avail_bw(&base);
	srv = dl_fair_servers_bw();
	REQUIRE(srv >= 0, "reading the fair servers' parameters");
	REQUIRE(hold(&h, P20 / 2) == 0, "holding half a CPU: %s", strerror(errno));
	/*
	 * The smallest runtime_us whose bw * M still covers what tasks hold.
	 * The fair servers are no task: a limit need not cover them (0 must
	 * stay possible), whether or not the total still counts them.
	 */
	need = (base >= srv ? base - srv : base) + P20 / 2;
	us = (need * 1000000 + ncpus() * P20 - 1) / (ncpus() * P20) + 1;
	tap_diag("allocated %lld: runtime_us %lld fits, %lld does not", need,
		 us, us - 2);
	CHECK(sysctl_set("sched_rt_runtime_us", us - 2) == -1 && errno == EBUSY,
	      "write %lld below the allocation: %s", us - 2, strerror(errno));
	CHECK(sysctl_get("sched_rt_runtime_us") == 950000,
	      "value changed to %ld", sysctl_get("sched_rt_runtime_us"));
	CHECK(sysctl_set("sched_rt_runtime_us", us) == 0,
	      "write %lld above the allocation: %s", us, strerror(errno));
	release_all(&h);
	check_returned(base, "after the task exited");
	known_state();
}

/* sched_rt_runtime_us above sched_rt_period_us is EINVAL. */
static void runtime_above_period(void)
{
	known_state();
	CHECK(sysctl_set("sched_rt_runtime_us", 1000001) == -1 && errno == EINVAL,
	      "write 1000001: %s", strerror(errno));
	CHECK(sysctl_get("sched_rt_runtime_us") == 950000, "value changed to %ld",
	      sysctl_get("sched_rt_runtime_us"));
}

/* A running task that leaves the class gives its bandwidth back. */
static void returned_when_running_task_leaves(void)
{
	long long base;
	int status;
	pid_t pid;

	known_state();
	avail_bw(&base);
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		struct dl_attr other = { .size = DL_ATTR_SIZE_VER1 };

		if (dl_become(10 * NSEC_PER_MSEC, 100 * NSEC_PER_MSEC,
			      100 * NSEC_PER_MSEC, 0))
			_exit(2);
		spin_cpu(2 * NSEC_PER_MSEC);
		if (dl_setattr(0, &other, 0))
			_exit(3);
		/* Stay alive, as SCHED_OTHER, while the parent looks. */
		sleep(3);
		_exit(0);
	}
	usleep(100000);
	check_returned(base, "1 s after leaving the class");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status), "child failed: status %#x", status);
}

/* Our release pools, where the implementation has them: why a total is off. */
static void diag_pools(void)
{
	FILE *f = fopen("/sys/kernel/debug/sched/deadline_pool", "r");
	char line[256];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		tap_diag("deadline_pool: %s", line);
	}
	fclose(f);
}

/* When a task the parent watches left the class, and how. */
struct departure {
	int64_t t0;		/* the start of its period */
	int64_t gone;		/* when it left (or was about to exit) */
};

/*
 * A task that leaves the class, or dies, with budget left keeps its
 * bandwidth until its 0-lag time, d - q * P / Q (q the runtime left):
 * until then what it was promised still counts against what the CBS
 * promised the others, so it may not go to a new task.  With Q = 200 ms
 * and D = P = 2 s, and c ms of its budget run from the period's start
 * t0, the 0-lag time is t0 + 2000 - (200 - c) * 2000 / 200 = t0 + 10c
 * ms.  The task spins 100 ms (c >= 100: t0 + 1000 ms at the earliest,
 * a second after the task is gone); a host that stalls the vCPU while it
 * runs is charged too, up to c = 200 (t0 + 2000 ms) before the task
 * would be throttled, which the time it took to run shows.  So the
 * total is read at t0 + 700 ms (held) and at t0 + 2100 ms (given back).
 */
static void held_until_zero_lag(bool die)
{
	const int64_t ms = NSEC_PER_MSEC;
	struct departure *dep;
	long long base, bw, total, held = (200LL << 20) / 2000;
	int status;
	pid_t pid;

	dep = mmap(NULL, sizeof(*dep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	REQUIRE(dep != MAP_FAILED, "mmap: %s", strerror(errno));
	quiet();
	REQUIRE(dl_bw_of_cpu(0, &bw, &base) == 0, "read the total");
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		struct dl_attr other = { .size = DL_ATTR_SIZE_VER1 };

		if (dl_become(200 * ms, 2000 * ms, 2000 * ms, 0))
			_exit(2);
		dep->t0 = now_ns();
		spin_cpu(100 * ms);
		dep->gone = now_ns();
		if (die)
			_exit(0);
		if (dl_setattr(0, &other, 0))
			_exit(3);
		/* Alive, as SCHED_OTHER, while the parent looks. */
		sleep(4);
		_exit(0);
	}
	if (die) {
		waitpid(pid, &status, 0);
		REQUIRE(WIFEXITED(status) && !WEXITSTATUS(status),
			"child failed: status %#x", status);
	}
	while (!dep->gone)
		usleep(10000);
	tap_diag("the task ran from +0 to +%.1f ms", (dep->gone - dep->t0) / 1e6);
	REQUIRE(dep->gone - dep->t0 < 200 * ms, "the task took %lld ms to run "
		"100 ms", (long long)((dep->gone - dep->t0) / ms));
	sleep_until(dep->t0 + 700 * ms);
	REQUIRE(dl_bw_of_cpu(0, &bw, &total) == 0, "read the total");
	tap_diag("total at +700 ms: %lld (%lld without the task)", total, base);
	CHECK(total == base + held, "300 ms or more before its 0-lag time the "
	      "task's %lld are not held: total %lld, %lld before", held, total,
	      base);
	if (total != base + held)
		diag_pools();
	sleep_until(dep->t0 + 2100 * ms);
	REQUIRE(dl_bw_of_cpu(0, &bw, &total) == 0, "read the total");
	tap_diag("total at +2100 ms: %lld", total);
	CHECK(total == base, "100 ms or more past its 0-lag time: total %lld, "
	      "%lld before", total, base);
	if (total != base)
		diag_pools();
	if (!die) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		CHECK(WIFSIGNALED(status), "child failed: status %#x", status);
	}
}

static void held_until_zero_lag_after_exit(void)
{
	held_until_zero_lag(true);
}

static void held_until_zero_lag_after_leaving(void)
{
	held_until_zero_lag(false);
}

/*
 * A sleeping deadline task switched to another policy gives its bandwidth
 * back.  The classic implementation leaves that to the task's 0-lag time,
 * which it only tracks for a task on a runqueue: for one asleep since its
 * 0-lag passed (or that never ran), the bandwidth stays allocated forever,
 * and each such switch shrinks what the root domain can admit.
 */
static void returned_when_sleeping_task_leaves(void)
{
	struct dl_attr a = dl_attr_make(10 * NSEC_PER_MSEC, 100 * NSEC_PER_MSEC,
					100 * NSEC_PER_MSEC, 0);
	struct dl_attr other = { .size = DL_ATTR_SIZE_VER1 };
	long long base;
	pid_t pid;

	known_state();
	avail_bw(&base);
	pid = sleeper_spawn();
	REQUIRE(dl_setattr(pid, &a, 0) == 0, "setattr: %s", strerror(errno));
	usleep(200 * 1000);
	REQUIRE(dl_setattr(pid, &other, 0) == 0, "to SCHED_OTHER: %s",
		strerror(errno));
	defect_check_returned(base, "1 s after the sleeping task left the class",
			      "a sleeping task leaving SCHED_DEADLINE keeps its "
			      "bandwidth allocated");
	sleeper_end(pid);
	/* The sysctl write rebuilds the accounting: the next test starts clean. */
	known_state();
}

/*
 * A child that becomes a deadline task of @runtime every @period (D = P),
 * spins @spin ns, switches itself to SCHED_OTHER and stays alive; it is
 * back to the caller once it has left the class.
 */
static pid_t leaver_spawn(int64_t runtime, int64_t period, int64_t spin)
{
	struct sched_param sp = { 0 };
	int r, done[2];
	pid_t pid;
	char c = 0;

	REQUIRE(pipe(done) == 0, "pipe: %s", strerror(errno));
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(done[0]);
		if (dl_become(runtime, period, period, 0))
			_exit(1);
		spin_cpu(spin);
		if (sched_setscheduler(0, SCHED_OTHER, &sp) ||
		    write(done[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(done[1]);
	r = read(done[0], &c, 1);
	close(done[0]);
	if (r != 1) {
		waitpid(pid, NULL, 0);
		REQUIRE(0, "the task did not become a %lld / %lld ms deadline "
			"task and leave the class (admission?)",
			(long long)(runtime / NSEC_PER_MSEC),
			(long long)(period / NSEC_PER_MSEC));
	}
	return pid;
}

/*
 * The 0-lag time of a task that leaves the class is runtime * period /
 * dl_runtime before its deadline.  For a runtime of 3 s in a period of
 * 4 s the product, 1.2e19 ns^2, does not fit 63 bits.  The task spins
 * 10 ms and leaves, so its 0-lag time is 13.3 ms after it became a
 * deadline task: its bandwidth must be back 1 s later at the most.  The
 * classic class's product wraps and puts the 0-lag time some 6 s later;
 * the test waits for that too, so that the next rebuild does not come
 * before it (the rebuild's own defect would then take it twice).
 */
#define ZERO_LAG_WRAPS "the 0-lag time of a task whose runtime * period exceeds 2^63 ns^2 wraps"

static void zero_lag_of_a_long_runtime(void)
{
	long long base, t;
	bool ok;
	pid_t pid;

	known_state();
	avail_bw(&base);
	pid = leaver_spawn(3000 * NSEC_PER_MSEC, 4000 * NSEC_PER_MSEC,
			   10 * NSEC_PER_MSEC);
	ok = returned(base, &t);
	if (!ok)
		dl_total_bw_wait(0, base, 10000);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	DEFECT_CHECK(ok, ZERO_LAG_WRAPS, "1 s after the task left: total_bw "
		     "%lld, was %lld before", t, base);
	known_state();
}

/*
 * Any access to the sched_rt sysctls rebuilds the root domains'
 * accounting from the deadline tasks that exist.  A task that has left
 * the class but whose bandwidth is held until its 0-lag time is not among
 * them, yet its bandwidth is still subtracted when that time comes: the
 * total allocated goes below zero (and, being unsigned inside, the next
 * write of a sysctl is refused with EBUSY).  The allocated total must
 * never drop below what the remaining tasks hold.
 *
 * The task leaves by switching itself to SCHED_OTHER and stays alive:
 * a task that exits may still be on its way out of the class when the
 * rebuild comes (its parent can reap it before its last switch), and
 * the rebuild does not see dying tasks, on either kernel.  That is
 * another race, not what this test is about.
 */
#define UNDERFLOW "a root-domain rebuild during a 0-lag wait makes total_bw underflow"

static void rebuild_with_pending_zero_lag(void)
{
	long long base, total, bw;
	int r, e;
	pid_t pid;

	quiet();
	avail_bw(&base);
	/* Use most of the budget: the 0-lag time is near the deadline. */
	pid = leaver_spawn(50 * NSEC_PER_MSEC, 500 * NSEC_PER_MSEC,
			   45 * NSEC_PER_MSEC);
	/* A read is enough to rebuild; the 0-lag timer is still pending. */
	sysctl_get("sched_rt_runtime_us");
	usleep(700 * 1000);
	REQUIRE(dl_bw_of_cpu(0, &bw, &total) == 0, "read sched/debug");
	tap_diag("total_bw %lld after the 0-lag time, %lld before", total, base);
	DEFECT_CHECK(total == base, UNDERFLOW, "total_bw %lld, was %lld",
		     total, base);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	r = sysctl_set("sched_rt_runtime_us", 950000);
	e = errno;
	/* The total below zero, the write is refused (EBUSY): that defect. */
	DEFECT_CHECK(r == 0, UNDERFLOW, "rewriting sched_rt_runtime_us: %s",
		     strerror(e));
	known_state();
}

/*
 * The fair servers' reservations stay allocated however often the root
 * domains are rebuilt (any access to the sched_rt sysctls rebuilds them).
 * The classic implementation starts the rebuilt total from the tasks
 * alone: the servers' share is then admitted to deadline tasks, and the
 * fair class loses the bandwidth it was promised.
 */
static void servers_kept_across_rebuild(void)
{
	long long bw, total, srv;

	known_state();
	sysctl_get("sched_rt_runtime_us");
	srv = dl_fair_servers_bw();
	REQUIRE(srv > 0, "reading the fair servers' parameters");
	REQUIRE(dl_bw_of_cpu(0, &bw, &total) == 0, "read sched/debug");
	tap_diag("total_bw %lld, the fair servers hold %lld", total, srv);
	DEFECT_CHECK(total == srv, "a root-domain rebuild drops the fair "
		     "servers' reservations", "total_bw %lld with no task, the "
		     "servers hold %lld", total, srv);
}

/*
 * A zombie (exited, not yet reaped) can still be given deadline
 * parameters, as sched_getattr() then shows, but it never runs again: it
 * must take no bandwidth, or what it took would never come back.
 */
#define ZOMBIE "a zombie given deadline parameters holds their bandwidth forever"

static void zombie_takes_no_bandwidth(void)
{
	struct dl_attr a = dl_attr_make(10 * NSEC_PER_MSEC, 100 * NSEC_PER_MSEC,
					100 * NSEC_PER_MSEC, 0);
	struct dl_attr got = { 0 };
	long long base, total;
	siginfo_t si;
	pid_t pid;

	known_state();
	avail_bw(&base);
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		_exit(0);
	/* A zombie from here on: waited for, not reaped. */
	REQUIRE(waitid(P_PID, pid, &si, WEXITED | WNOWAIT) == 0, "waitid: %s",
		strerror(errno));
	/*
	 * A zombie to its parent already, it still runs the rest of its
	 * exit path (a few microseconds) up to its last switch, and takes
	 * bandwidth until then: let it get there.
	 */
	usleep(20 * 1000);
	REQUIRE(dl_setattr(pid, &a, 0) == 0, "setattr on the zombie: %s",
		strerror(errno));
	REQUIRE(dl_getattr(pid, &got, sizeof(got), 0) == 0, "getattr: %s",
		strerror(errno));
	CHECK(got.sched_policy == SCHED_DEADLINE &&
	      got.sched_runtime == a.sched_runtime,
	      "getattr: policy %u runtime %llu", got.sched_policy,
	      (unsigned long long)got.sched_runtime);
	avail_bw(&total);
	tap_diag("total_bw %lld with the zombie, %lld before", total, base);
	DEFECT_CHECK(total == base, ZOMBIE, "the zombie took %lld",
		     total - base);
	waitpid(pid, NULL, 0);
	defect_check_returned(base, "after the zombie was reaped", ZOMBIE);
	/* The sysctl write rebuilds the accounting: the next test starts clean. */
	known_state();
}

/* How many WARNING reports the kernel's log holds. */
/*
 * kernel.sched_dl_admission = 1 adds the test of Goossens, Funk and Baruah
 * for global EDF on M CPUs: U <= M - (M - 1) * Umax over the densities
 * runtime / deadline, in units of 2^-20 (the fair servers and what waits
 * for a 0-lag time count in U at their bandwidth).  M light tasks of 0.2
 * (deadline = period, density = bandwidth), then a heavy one of deadline
 * 2^20 ns, whose density is its runtime x in ns, and period 2^21 ns (its
 * bandwidth x / 2): with U the total before it, x fits while
 * U + x <= M * 2^20 - (M - 1) * x, so up to x = (M * 2^20 - U) / M.
 */
static void density_test_on(void)
{
	if (sysctl_get("sched_dl_admission") < 0)
		SKIP("no kernel.sched_dl_admission: the density test is the EDF-CBS class's");
	known_state();
	REQUIRE(dl_density_test_on() == 0,
		"turning the density test on: %s", strerror(errno));
}

/* The lights, and the heavy task's largest runtime, in *@x. */
static void density_lights(struct holders *h, long long *x)
{
	long long u, m = ncpus(), i;

	for (i = 0; i < m; i++)
		REQUIRE(hold(h, P20 / 5) == 0, "a light task: %s",
			strerror(errno));
	avail_bw(&u);
	*x = (m * (long long)P20 - u) / m;
	tap_diag("%lld CPUs, U %lld with %lld light tasks: the heavy task fits up to density %lld",
		 m, u, m, *x);
}

/*
 * The line, exactly: one unit over it refused, at it admitted; a shorter
 * deadline alone (same bandwidth, a larger density) refused.  By
 * utilization, the same set one unit over goes through, and then turning
 * the test on is refused; at the line it is not.
 */
static void density_test_line(void)
{
	struct dl_attr over, shorter, at;
	struct holders h = { .n = 0 };
	long long base, x;
	pid_t heavy;

	density_test_on();
	avail_bw(&base);
	density_lights(&h, &x);
	over = dl_attr_make(x + 1, P20, 2 * P20, 0);
	shorter = dl_attr_make(x, P20 - 1024, 2 * P20, 0);
	at = dl_attr_make(x, P20, 2 * P20, 0);
	CHECK_ERRNO(hold_dp(&h, x + 1, P20, 2 * P20), EBUSY,
		    "one unit of density over the bound");
	REQUIRE(hold_dp(&h, x, P20, 2 * P20) == 0,
		"exactly at the bound: %s", strerror(errno));
	heavy = h.pid[h.n - 1];
	CHECK_ERRNO(dl_setattr(heavy, &shorter, 0), EBUSY,
		    "a deadline 1024 ns shorter, the same bandwidth");
	REQUIRE(sysctl_set("sched_dl_admission", 0) == 0,
		"turning the test off: %s", strerror(errno));
	CHECK(dl_setattr(heavy, &over, 0) == 0,
	      "one unit over, by utilization: %s", strerror(errno));
	CHECK_ERRNO(sysctl_set("sched_dl_admission", 1), EBUSY,
		    "turning the test on over the bound");
	CHECK(sysctl_get("sched_dl_admission") == 0,
	      "the test is on after a refused write");
	CHECK(dl_setattr(heavy, &at, 0) == 0, "back to the bound: %s",
	      strerror(errno));
	CHECK(sysctl_set("sched_dl_admission", 1) == 0,
	      "turning the test on at the bound: %s", strerror(errno));
	release_all(&h);
	sysctl_set("sched_dl_admission", 0);
	check_returned(base, "after the tasks exited");
}

/*
 * What tasks that exited held leaves the test with them: the same set at
 * the same line is admitted round after round.
 */
static void density_test_follows_exits(void)
{
	struct holders h = { .n = 0 };
	long long base, x, first = -1;
	int round;

	density_test_on();
	avail_bw(&base);
	for (round = 0; round < 3; round++) {
		density_lights(&h, &x);
		if (first < 0)
			first = x;
		CHECK(x == first, "round %d: U grew by %lld", round, first - x);
		CHECK(hold_dp(&h, x, P20, 2 * P20) == 0,
		      "round %d, at the bound: %s", round, strerror(errno));
		CHECK_ERRNO(hold_dp(&h, 1024, 1024, 2 * P20), EBUSY,
			    "a task more at the bound");
		release_all(&h);
		check_returned(base, "after the tasks exited");
	}
	sysctl_set("sched_dl_admission", 0);
}

static int kernel_warnings(void)
{
	int len = klogctl(10, NULL, 0), n = 0;
	char *buf, *s;

	REQUIRE(len > 0, "klogctl size: %s", strerror(errno));
	buf = calloc(1, len + 1);
	REQUIRE(buf, "calloc");
	len = klogctl(3, buf, len);
	REQUIRE(len >= 0, "klogctl read: %s", strerror(errno));
	for (s = buf; (s = strstr(s, "WARNING:")); s++)
		n++;
	free(buf);
	return n;
}

struct boost {
	pthread_mutex_t lock;
	volatile int locked, go_sleep, release;
};

static void boost_wake(int sig)
{
	(void)sig;
}

/*
 * Takes the lock as a 10/100 ms deadline task and spins; when told,
 * sleeps, still holding it, until told to let go.
 */
static void boost_holder(struct boost *b)
{
	struct timespec nap = { 1, 0 };

	alarm(10);	/* never outlive the test */
	signal(SIGUSR1, boost_wake);
	if (dl_become(10 * NSEC_PER_MSEC, 100 * NSEC_PER_MSEC,
		      100 * NSEC_PER_MSEC, 0) ||
	    pthread_mutex_lock(&b->lock))
		_exit(1);
	b->locked = 1;
	while (!b->go_sleep)
		;
	while (!b->release)
		nanosleep(&nap, NULL);
	pthread_mutex_unlock(&b->lock);
	_exit(0);
}

/* Waits 400 ms for the lock as a 5/20 ms deadline task: it boosts. */
static void boost_donor(struct boost *b)
{
	struct timespec until;

	if (dl_become(5 * NSEC_PER_MSEC, 20 * NSEC_PER_MSEC,
		      20 * NSEC_PER_MSEC, 0))
		_exit(1);
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += 400 * NSEC_PER_MSEC;
	until.tv_sec += until.tv_nsec / NSEC_PER_SEC;
	until.tv_nsec %= NSEC_PER_SEC;
	_exit(pthread_mutex_clocklock(&b->lock, CLOCK_MONOTONIC, &until) ==
	      ETIMEDOUT ? 0 : 2);
}

static struct boost *boost_lock(void)
{
	struct boost *b = shared_with_mutex(sizeof(*b), PTHREAD_PRIO_INHERIT);

	REQUIRE(b, "shared mutex: %s", strerror(errno));
	return b;
}

/*
 * A deadline task boosted through a PI mutex, switched to SCHED_OTHER
 * while it runs (it stays in the class while boosted) and deboosted
 * later while asleep (the donor's wait times out), leaves the class
 * once: no runqueue's share of the accounting is taken twice (which the
 * kernel reports with a WARNING, at the latest when the other tasks
 * leave), and its bandwidth comes back.  The classic class may keep
 * that bandwidth, as for any task leaving the class asleep: the defect
 * returned_when_sleeping_task_leaves shows; only the warning is checked
 * there.
 */
static void returned_after_boosted_task_leaves(void)
{
	struct sched_param sp = { 0 };
	int warn0, st_h, st_w, i, r;
	struct boost *b;
	long long base;
	pid_t h, w;

	if (ncpus() < 2)
		SKIP("the holder spins on one CPU while the test runs");
	known_state();
	avail_bw(&base);
	warn0 = kernel_warnings();
	b = boost_lock();
	h = fork();
	REQUIRE(h >= 0, "fork: %s", strerror(errno));
	if (h == 0)
		boost_holder(b);
	for (i = 0; i < 2000 && !b->locked; i++)
		usleep(1000);
	REQUIRE(b->locked, "the holder never took the lock");
	/*
	 * Once boosted, the holder spins unthrottled: a fair task on its CPU
	 * would wait for the fair server, near the end of its period.  So
	 * the test runs at an earlier deadline than the boost's, from before
	 * the donor exists (reset-on-fork lets it fork the donor).
	 */
	REQUIRE(dl_become(2 * NSEC_PER_MSEC, 10 * NSEC_PER_MSEC,
			  10 * NSEC_PER_MSEC, DL_FLAG_RESET_ON_FORK) == 0,
		"test to deadline: %s", strerror(errno));
	w = fork();
	REQUIRE(w >= 0, "fork: %s", strerror(errno));
	if (w == 0)
		boost_donor(b);
	usleep(50 * 1000);
	st_w = 0;
	r = waitpid(w, &st_w, WNOHANG);
	REQUIRE(r == 0, "the donor is not waiting: waitpid %d, status %#x",
		r, st_w);
	CHECK(sched_setscheduler(h, SCHED_OTHER, &sp) == 0,
	      "holder to SCHED_OTHER while boosted: %s", strerror(errno));
	b->go_sleep = 1;
	waitpid(w, &st_w, 0);
	b->release = 1;
	kill(h, SIGUSR1);
	waitpid(h, &st_h, 0);
	CHECK(sched_setscheduler(0, SCHED_OTHER, &sp) == 0,
	      "test back to SCHED_OTHER: %s", strerror(errno));
	CHECK(WIFEXITED(st_w) && WEXITSTATUS(st_w) == 0,
	      "donor: status %#x (2: the lock did not time out)", st_w);
	CHECK(WIFEXITED(st_h) && WEXITSTATUS(st_h) == 0,
	      "holder: status %#x", st_h);
	if (!CLASSIC_DL())
		check_returned(base, "after the boosted task left the class");
	CHECK(kernel_warnings() == warn0, "the kernel warned during the test");
	munmap(b, sizeof(*b));
	known_state();
}

/* @pid's involuntary switches (/proc/PID/status), or -1. */
static long long involuntary_switches(pid_t pid)
{
	static const char key[] = "nonvoluntary_ctxt_switches:";
	char path[64], line[128];
	long long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, sizeof(key) - 1))
			n = atoll(line + sizeof(key) - 1);
	fclose(f);
	return n;
}

/* Waits up to 1 s for @pid to sleep; whether it does. */
static int asleep(pid_t pid)
{
	char st;
	int i;

	for (i = 0; i < 1000; i++) {
		if (!proc_stat_cpu(pid, &st, NULL) && st == 'S')
			return 1;
		usleep(1000);
	}
	return 0;
}

/*
 * One exit held open across a rebuild, on one CPU: the child, asleep on
 * a pipe, is made a deadline task (10 ms every 1 s) by its parent, itself
 * one already (20 ms every 50 ms).  The child's first deadline comes at
 * its wakeup, 1 s later; the parent's is at most 50 ms after its own
 * wakeup.  Told to exit, the child runs when its parent sleeps in
 * waitid(), and its exit wakes the parent, of the earlier deadline, which
 * preempts it at once (CONFIG_PREEMPT) and rebuilds the root domains
 * before the child's last switch.  Nothing there depends on timing but
 * a stall of the host longer than 0.95 s between the two wakeups, and the
 * child's way out taking 10 ms.  Whether the child was preempted on its
 * way out (its involuntary switches).
 */
static int exit_across_rebuild(void)
{
	struct dl_attr a = dl_attr_make(10 * NSEC_PER_MSEC, NSEC_PER_SEC,
					NSEC_PER_SEC, 0);
	struct sched_param sp = { 0 };
	long long before = -1, after = -1;
	int go[2], ok;
	siginfo_t si;
	char c = 1;
	pid_t pid;

	REQUIRE(pipe(go) == 0, "pipe: %s", strerror(errno));
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(go[1]);
		_exit(read(go[0], &c, 1) == 1 ? 0 : 1);
	}
	close(go[0]);
	/* Asleep on the pipe when it becomes a deadline task. */
	ok = !dl_become(20 * NSEC_PER_MSEC, 50 * NSEC_PER_MSEC,
			50 * NSEC_PER_MSEC, 0) &&
	     asleep(pid) && !dl_setattr(pid, &a, 0);
	if (ok)
		before = involuntary_switches(pid);
	if (ok && write(go[1], &c, 1) == 1 &&
	    !waitid(P_PID, pid, &si, WEXITED | WNOWAIT)) {
		/* A read of the sysctl rebuilds the root domains. */
		sysctl_get("sched_rt_runtime_us");
		after = involuntary_switches(pid);
	} else {
		ok = 0;
	}
	sched_setscheduler(0, SCHED_OTHER, &sp);
	close(go[1]);
	waitpid(pid, NULL, 0);
	REQUIRE(ok, "setting up the exit: %s", strerror(errno));
	tap_diag("the child's involuntary switches: %lld before its exit, "
		 "%lld at the rebuild", before, after);
	return before >= 0 && after > before;
}

/*
 * A task holds its bandwidth until its last switch, after its cgroup
 * has let it go (cgroup_exit()) and its parent may have reaped it.  A
 * rebuild in between, which finds the tasks through their cgroups, does
 * not count it: its departure must not take from the rebuilt total what
 * that total never counted.  The classic class takes it, and the total
 * stays short until the next rebuild.  The exit is held open on one CPU
 * (exit_across_rebuild()).
 */
static void rebuild_while_task_exits(void)
{
	long long base, t;

	if (ncpus() != 1)
		SKIP("holding an exit open needs a root domain of one CPU");
	known_state();
	avail_bw(&base);
	REQUIRE(exit_across_rebuild(), "the child was not preempted on its "
		"way out by its parent, of the earlier deadline");
	/*
	 * Past both tasks' 0-lag times (the child's deadline is 1 s away at
	 * most, a debt adds some), or the parent's release alone could show
	 * the total back before the child's is taken.
	 */
	usleep(1500 * 1000);
	t = base;
	if (dl_total_bw_wait(0, base, 3000))
		avail_bw(&t);
	DEFECT_CHECK(t == base, "a task that exits across a rebuild takes "
		     "back bandwidth the rebuilt total never counted",
		     "total_bw %lld 4.5 s after the exit, was %lld before", t,
		     base);
	/* The sysctl write rebuilds the accounting: the next test starts clean. */
	known_state();
}

int main(void)
{
	static const struct tap_test tests[] = {
		TAP_TEST(limit_follows_sysctls),
		TAP_TEST(pool_file_matches_sched_debug),
		TAP_TEST(exactly_at_limit),
		TAP_TEST(full_cpu_task),
		TAP_TEST(runtime_minus_one_disables),
		TAP_TEST(runtime_zero_refuses),
		TAP_TEST(lowering_below_allocated),
		TAP_TEST(runtime_above_period),
		TAP_TEST(returned_when_running_task_leaves),
		TAP_TEST(returned_when_sleeping_task_leaves),
		TAP_TEST(held_until_zero_lag_after_exit),
		TAP_TEST(held_until_zero_lag_after_leaving),
		TAP_TEST(zero_lag_of_a_long_runtime),
		TAP_TEST(rebuild_with_pending_zero_lag),
		TAP_TEST(servers_kept_across_rebuild),
		TAP_TEST(returned_after_boosted_task_leaves),
		TAP_TEST(zombie_takes_no_bandwidth),
		TAP_TEST(rebuild_while_task_exits),
		TAP_TEST(density_test_line),
		TAP_TEST(density_test_follows_exits),
		{ NULL, NULL }
	};

	return tap_run(tests);
}
