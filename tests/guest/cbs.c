// SPDX-License-Identifier: GPL-2.0
/*
 * cbs: the Constant Bandwidth Server's timing rules, measured.
 *
 * Run on one vCPU under -icount, where guest time follows executed
 * instructions and is faithful.  A deadline task that spins is throttled
 * when its budget runs out and runs again at its next period with a full
 * budget; enforcement happens at the tick (1 ms, HZ=1000, HRTICK off), so
 * every bound here is the rule plus one tick.  These are the guarantees a
 * user sizes a reservation with: no more than the runtime each period, no
 * less, and the documented answers to sleeping, yielding and overrunning.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "dl.h"
#include "spin.h"
#include "tap.h"

#define MS 1000000LL
#define TICK (1 * MS)
/* What measuring costs: a few clock reads around each boundary. */
#define SLACK (MS / 4)

static void need_one_cpu(void)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) != 1)
		SKIP("timing rules are measured on one vCPU");
	tap_skip_on_debug_kernel();
}

static void become(int64_t q, int64_t d, int64_t p, uint64_t flags)
{
	need_one_cpu();
	REQUIRE(dl_sysctl_known_state() == 0, "sysctls: %s", strerror(errno));
	REQUIRE(dl_become(q, d, p, flags) == 0, "setattr %lld/%lld/%lld: %s",
		(long long)q, (long long)d, (long long)p, strerror(errno));
}

/* Spins to the first throttle: returns the start of the next period. */
static int64_t align(void)
{
	struct run r = spin_until_gap(2000 * MS);

	REQUIRE(r.gap > 0, "never throttled in 2 s");
	return r.resumed;
}

#define NEAR(v, want, tol) ((v) >= (want) - (tol) && (v) <= (want) + (tol))

/*
 * A spinning 10/100 ms task runs 10 ms each period, no more and no less
 * but for a tick of overrun (HRTICK is off), repaid by the next period;
 * it is throttled for the rest of the period, and runs again exactly at
 * the next period.
 */
static void runtime_each_period(void)
{
	const int64_t q = 10 * MS, p = 100 * MS;
	int64_t sum, c0, prev, first[10];
	struct run r[10];
	int i;

	become(q, p, p, 0);
	prev = align();
	c0 = cpu_ns();
	/* Nothing printed while measuring: printing costs budget. */
	for (i = 0; i < 10; i++) {
		first[i] = prev;
		r[i] = spin_until_gap(2 * p);
		prev = r[i].resumed;
	}
	for (i = 0; i < 10; i++) {
		tap_diag("period %d: ran %.3f ms from +%.3f, off %.3f ms", i,
			 r[i].used / 1e6, (r[i].start - first[i]) / 1e6,
			 r[i].gap / 1e6);
		CHECK(r[i].gap > 0, "period %d: not throttled", i);
		CHECK(NEAR(r[i].used, q, TICK + SLACK), "period %d: ran %lld ns",
		      i, (long long)r[i].used);
		CHECK(NEAR(r[i].resumed - first[i], p, SLACK),
		      "period %d: next run %lld ns after the last began", i,
		      (long long)(r[i].resumed - first[i]));
	}
	sum = r[9].cpu_end - c0;
	CHECK(NEAR(sum, 10 * q, TICK + SLACK), "10 periods: ran %lld ns",
	      (long long)sum);
}

/*
 * With a runtime that is not a whole number of ticks the budget is
 * overrun every period; the debt is paid in the next one, so over many
 * periods the task still gets exactly its runtime.  The total is read
 * from the thread's CPU clock across all the periods, so the little run
 * between two measured stretches is counted too.
 */
static void overrun_debt_repaid(void)
{
	const int64_t q = 10 * MS + MS / 2, p = 50 * MS;
	int64_t sum, c0, last = 0;
	struct run r;
	int i;

	become(q, p, p, 0);
	align();
	c0 = cpu_ns();
	for (i = 0; i < 20; i++) {
		r = spin_until_gap(2 * p);
		CHECK(r.gap > 0, "period %d: not throttled", i);
		CHECK(NEAR(r.used, q, TICK + SLACK), "period %d: ran %lld ns", i,
		      (long long)r.used);
		/* what one period overran, the next one runs less */
		if (i)
			CHECK(NEAR(last + r.used, 2 * q, TICK + SLACK),
			      "periods %d-%d: ran %lld ns, debt not repaid", i - 1,
			      i, (long long)(last + r.used));
		last = r.used;
	}
	sum = r.cpu_end - c0;
	tap_diag("20 periods of %.1f ms: ran %.3f ms", q / 1e6, sum / 1e6);
	CHECK(NEAR(sum, 20 * q, TICK + SLACK), "20 periods: ran %lld ns",
	      (long long)sum);
}

/*
 * The wakeup rule: waking with more runtime left than the time to the
 * deadline allows at the reserved bandwidth (5 ms left, 5 ms to go, for
 * 10/100) starts a new period, with a full budget.
 */
static void wakeup_rule_new_period(void)
{
	const int64_t q = 10 * MS, p = 100 * MS;
	int64_t s;
	struct run r;

	become(q, p, p, 0);
	s = align();
	spin_cpu(5 * MS);
	sleep_until(s + 95 * MS);
	r = spin_until_gap(2 * p);
	tap_diag("after waking at +95 ms: ran %.3f ms", r.used / 1e6);
	CHECK(NEAR(r.used, q, TICK + SLACK), "ran %lld ns, want a full %lld",
	      (long long)r.used, (long long)q);
}

/* Waking with little enough left (8 ms for 90 ms) keeps the budget. */
static void wakeup_rule_keeps_budget(void)
{
	const int64_t q = 10 * MS, p = 100 * MS;
	int64_t s;
	struct run r;

	become(q, p, p, 0);
	s = align();
	spin_cpu(2 * MS);
	sleep_until(s + 10 * MS);
	r = spin_until_gap(2 * p);
	tap_diag("after waking at +10 ms: ran %.3f ms, next run at +%.3f ms",
		 r.used / 1e6, (r.resumed - s) / 1e6);
	CHECK(NEAR(r.used, 8 * MS, TICK + SLACK), "ran %lld ns, want the 8 ms left",
	      (long long)r.used);
	CHECK(NEAR(r.resumed - s, p, SLACK), "next run %lld ns after the period began",
	      (long long)(r.resumed - s));
}

/*
 * Deadline below period: the revised rule.  Waking at +15 ms with 5 ms
 * left and the deadline at +20 ms would overflow the density Q/D = 1/2;
 * instead of a new period the task keeps its deadline with the runtime
 * the density allows in the 5 ms left: 2.5 ms.
 */
static void revised_rule_deadline_below_period(void)
{
	const int64_t q = 10 * MS, d = 20 * MS, p = 100 * MS;
	int64_t s;
	struct run r;

	become(q, d, p, 0);
	s = align();
	spin_cpu(5 * MS);
	sleep_until(s + 15 * MS);
	r = spin_until_gap(2 * p);
	tap_diag("after waking at +15 ms: ran %.3f ms, next run at +%.3f ms",
		 r.used / 1e6, (r.resumed - s) / 1e6);
	CHECK(NEAR(r.used, 5 * MS / 2, TICK + SLACK), "ran %lld ns, want 2.5 ms",
	      (long long)r.used);
	CHECK(NEAR(r.resumed - s, p, SLACK), "next run %lld ns after the period began",
	      (long long)(r.resumed - s));
}

/* sched_yield ends the job: the task runs next at its next period, in full. */
static void yield_ends_job(void)
{
	const int64_t q = 10 * MS, p = 100 * MS;
	int64_t s, back;
	struct run r;

	become(q, p, p, 0);
	s = align();
	spin_cpu(2 * MS);
	sched_yield();
	back = now_ns();
	r = spin_until_gap(2 * p);
	tap_diag("yield at +2 ms: back at +%.3f ms, then ran %.3f ms",
		 (back - s) / 1e6, r.used / 1e6);
	CHECK(NEAR(back - s, p, SLACK), "back %lld ns after the period began",
	      (long long)(back - s));
	CHECK(NEAR(r.used, q, TICK + SLACK), "then ran %lld ns, want %lld",
	      (long long)r.used, (long long)q);
}

/*
 * A field of /proc/self/sched, such as "dl.deadline"; -1 if missing.  The
 * file shows times in ms with six decimals ("se.exec_start"): those are
 * read as ns.
 */
static long long proc_sched(const char *field)
{
	char line[256];
	long long v = -1, frac;
	FILE *f = fopen("/proc/self/sched", "r");
	size_t n = strlen(field);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, field, n) || line[n] != ' ')
			continue;
		if (sscanf(strchr(line, ':') + 1, "%lld.%6lld", &v, &frac) == 2)
			v = v * 1000000 + frac;
	}
	fclose(f);
	return v;
}

/*
 * /proc/PID/sched shows the deadline entity: at the start of a period,
 * its runtime is the budget less what the task has used of it (the
 * kernel charges it at each tick: up to a tick less), and less the debt
 * of the last period's overrun (under a tick); its deadline is a period
 * after the period began, in the clock of se.exec_start, the time the
 * task was last charged.  A new runtime keeps the deadline.
 */
static void param_change_keeps_deadline(void)
{
	const int64_t q = 10 * MS, p = 100 * MS;
	struct dl_attr a = dl_attr_make(q / 2, p, p, 0);
	long long d0, d1, rt, at;
	int64_t c0, c1, c2;

	become(q, p, p, 0);
	align();
	c0 = cpu_ns();
	spin_cpu(1 * MS);
	c1 = cpu_ns() - c0;
	rt = proc_sched("dl.runtime");
	d0 = proc_sched("dl.deadline");
	at = proc_sched("se.exec_start");
	c2 = cpu_ns() - c0;
	tap_diag("used %.3f ms, then %.3f with the reads: dl.runtime %lld, dl.deadline %lld, %.3f ms after se.exec_start",
		 c1 / 1e6, c2 / 1e6, rt, d0, (d0 - at) / 1e6);
	CHECK(proc_sched("policy") == SCHED_DEADLINE, "policy %lld",
	      proc_sched("policy"));
	CHECK(rt >= q - TICK - c2 - SLACK && rt <= q - c1 + TICK + SLACK,
	      "dl.runtime %lld after using %lld to %lld ns of %lld", rt,
	      (long long)c1, (long long)c2, (long long)q);
	CHECK(d0 - at >= p - c2 - SLACK && d0 - at <= p + SLACK,
	      "dl.deadline %lld ns after se.exec_start, %lld ns into a period",
	      d0 - at, (long long)c2);
	REQUIRE(dl_setattr(0, &a, 0) == 0, "new runtime: %s", strerror(errno));
	d1 = proc_sched("dl.deadline");
	CHECK(d1 == d0, "deadline moved from %lld to %lld", d0, d1);
}

/* @pid's CPU time so far, in ns, or -1. */
static int64_t task_cpu_ns(pid_t pid)
{
	struct timespec ts;
	clockid_t clk;

	if (clock_getcpuclockid(pid, &clk) || clock_gettime(clk, &ts))
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * A spinning task whose parameters another task keeps changing, at every
 * point of its periods (running, in debt, throttled), still gets no more
 * than its largest budget each period.  Each change takes the running
 * task out of the queue and puts it back; when that leaves it throttled
 * it must also lose the CPU, or nothing would charge it again.  (Should
 * it run away, its alarm ends it after 4 s, and the share shows it.)
 */
static void param_changes_keep_enforcing(void)
{
	const int64_t p = 10 * MS, len = 2000 * MS;
	struct dl_attr a[2] = {
		dl_attr_make(1 * MS, p, p, 0), dl_attr_make(3 * MS, p, p, 0),
	};
	int64_t t0, t1, c0, c1, t;
	unsigned int x = 12345;
	int changes = 0, failed = 0;
	double share;
	pid_t child;

	need_one_cpu();
	REQUIRE(dl_sysctl_known_state() == 0, "sysctls: %s", strerror(errno));
	child = fork();
	REQUIRE(child >= 0, "fork: %s", strerror(errno));
	if (child == 0) {
		alarm(4);
		if (dl_setattr(0, &a[1], 0))
			_exit(1);
		for (;;)
			;
	}
	usleep(50 * 1000);
	t0 = now_ns();
	c0 = task_cpu_ns(child);
	for (t = t0; t - t0 < len; t = now_ns()) {
		/* 0.5 to 4 ms apart: every phase of the child's periods. */
		x = x * 1103515245 + 12345;
		usleep(500 + (x >> 16) % 3500);
		failed += dl_setattr(child, &a[changes & 1], 0) != 0;
		changes++;
	}
	t1 = now_ns();
	c1 = task_cpu_ns(child);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	share = (double)(c1 - c0) / (double)(t1 - t0);
	tap_diag("%d changes (%d refused); the child ran %.3f of the CPU",
		 changes, failed, share);
	CHECK(c0 >= 0 && c1 >= 0, "schedstat unreadable");
	CHECK(!failed, "%d changes refused", failed);
	CHECK(changes > 200, "only %d changes", changes);
	/*
	 * Each period, the runtime of one budget or the other: between 1 and
	 * 3 ms of every 10; a tick of overrun is repaid by the next period.
	 * The margin is that tick over the 2 s, and the change's own rounding.
	 */
	CHECK(share >= 0.095 && share <= 0.305,
	      "the child ran %.3f of the CPU, budgets 0.100 and 0.300", share);
}

static volatile sig_atomic_t xcpu;

static void on_xcpu(int sig)
{
	(void)sig;
	xcpu++;
}

/*
 * Runs out of a 5/50 ms budget 5 times, then runs 2 ticks into the next
 * period: the kernel sends the signal of an overrun at the first tick
 * that finds the task running, so the last one is in by then.
 */
static void overrun_five_times(uint64_t flags)
{
	const int64_t q = 5 * MS, p = 50 * MS;
	struct sigaction sa = { .sa_handler = on_xcpu };
	struct run r;
	int i;

	sigaction(SIGXCPU, &sa, NULL);
	become(q, p, p, flags);
	align();
	for (i = 1; i < 5; i++) {
		r = spin_until_gap(2 * p);
		CHECK(r.gap > 0, "period %d: not throttled", i);
	}
	spin_cpu(2 * TICK);
}

/* SCHED_FLAG_DL_OVERRUN: each time the budget runs out, one SIGXCPU. */
static void overrun_sends_sigxcpu(void)
{
	overrun_five_times(DL_FLAG_DL_OVERRUN);
	tap_diag("%d SIGXCPU for 5 overruns", (int)xcpu);
	CHECK(xcpu == 5, "%d SIGXCPU for 5 overruns", (int)xcpu);
}

/* Without the flag, no signal. */
static void no_sigxcpu_without_flag(void)
{
	overrun_five_times(0);
	CHECK(xcpu == 0, "%d SIGXCPU without SCHED_FLAG_DL_OVERRUN", (int)xcpu);
}

/*
 * This CPU's running bandwidth, from our sched/deadline_pool (the
 * classic implementation has no such file, and shows it nowhere).
 */
static long long running_bw_of_cpu0(void)
{
	FILE *f = fopen("/sys/kernel/debug/sched/deadline_pool", "r");
	long long running = -1;
	char line[256];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu0 this_bw %*u running_bw %lld", &running) == 1)
			break;
	fclose(f);
	return running;
}

/* What the CPU does after the task blocks, and who looks. */
enum zero_lag_scene {
	FAIR_SPINS,		/* a fair task spins throughout; a fair reader */
	IDLES,			/* nothing runs; a real-time reader */
	FAIR_LEAVES,		/* a fair task spins, exits 1 ms after the block */
};

/*
 * A deadline task that blocks before its 0-lag time stays in its CPU's
 * running bandwidth (GRUB's active utilization, what schedutil reads)
 * until then, and leaves it within a tick of it, whatever the CPU does
 * meanwhile.  Here a 10/100 ms task starts at t0, spins 1 ms and sleeps:
 * its 0-lag time is 9 ms on (the 9 ms of budget it has left, served at
 * 10%).  The reader sleeps until t0 + 5 ms, so that the CPU goes from
 * the deadline task to the spinner, or idles; it finds the task counted
 * then, and 40 ms after the block not: exactly its bandwidth less.  It
 * is a real-time task where the CPU idles, so that no fair task's
 * accounting runs before it looks.
 */
static void zero_lag_scene(enum zero_lag_scene scene)
{
	const long long bw = (10 * MS << 20) / (100 * MS);
	struct sched_param fifo = { .sched_priority = 1 };
	volatile int64_t *blocked;
	long long before, after;
	pid_t spinner = -1, task;
	int64_t t0;

	need_one_cpu();
	if (running_bw_of_cpu0() < 0)
		SKIP("no sched/deadline_pool with the running bandwidth (the classic implementation)");
	REQUIRE(dl_sysctl_known_state() == 0, "sysctls: %s", strerror(errno));
	blocked = mmap(NULL, sizeof(*blocked), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	REQUIRE(blocked != MAP_FAILED, "mmap: %s", strerror(errno));
	*blocked = 0;
	t0 = now_ns() + 10 * MS;
	if (scene != IDLES) {
		spinner = fork();
		REQUIRE(spinner >= 0, "fork: %s", strerror(errno));
		if (spinner == 0) {
			while (scene == FAIR_SPINS || !*blocked ||
			       now_ns() < *blocked + MS)
				;
			_exit(0);
		}
	}
	task = fork();
	REQUIRE(task >= 0, "fork: %s", strerror(errno));
	if (task == 0) {
		sleep_until(t0);
		if (dl_become(10 * MS, 100 * MS, 100 * MS, 0))
			_exit(1);
		spin_cpu(MS);
		*blocked = now_ns();
		sleep_until(now_ns() + 300 * MS);
		_exit(0);
	}
	if (scene != FAIR_SPINS)
		REQUIRE(sched_setscheduler(0, SCHED_FIFO, &fifo) == 0,
			"SCHED_FIFO: %s", strerror(errno));
	sleep_until(t0 + 5 * MS);
	REQUIRE(*blocked, "the deadline task has not blocked 5 ms after its start");
	before = running_bw_of_cpu0();
	sleep_until(*blocked + 40 * MS);
	after = running_bw_of_cpu0();
	if (before - after != bw)
		tap_diag_file("/sys/kernel/debug/sched/deadline_pool");
	if (spinner > 0) {
		kill(spinner, SIGKILL);
		waitpid(spinner, NULL, 0);
	}
	waitpid(task, NULL, 0);
	tap_diag("running_bw %lld %.1f ms after the block, %lld 40 ms after (the task's bandwidth %lld)",
		 before, (t0 + 5 * MS - *blocked) / 1e6, after, bw);
	CHECK(before - after == bw,
	      "running_bw %lld before the 0-lag time, %lld 40 ms after the block: want %lld less",
	      before, after, bw);
}

static void inactive_at_zero_lag_beside_fair_work(void)
{
	zero_lag_scene(FAIR_SPINS);
}

static void inactive_at_zero_lag_on_an_idle_cpu(void)
{
	zero_lag_scene(IDLES);
}

/* The fair tasks go, their server still active: the CPU idles. */
static void inactive_at_zero_lag_after_fair_work_ends(void)
{
	zero_lag_scene(FAIR_LEAVES);
}

int main(void)
{
	static const struct tap_test tests[] = {
		TAP_TEST(runtime_each_period),
		TAP_TEST(overrun_debt_repaid),
		TAP_TEST(wakeup_rule_new_period),
		TAP_TEST(wakeup_rule_keeps_budget),
		TAP_TEST(revised_rule_deadline_below_period),
		TAP_TEST(yield_ends_job),
		TAP_TEST(param_change_keeps_deadline),
		TAP_TEST(param_changes_keep_enforcing),
		TAP_TEST(overrun_sends_sigxcpu),
		TAP_TEST(no_sigxcpu_without_flag),
		TAP_TEST(inactive_at_zero_lag_beside_fair_work),
		TAP_TEST(inactive_at_zero_lag_on_an_idle_cpu),
		TAP_TEST(inactive_at_zero_lag_after_fair_work_ends),
		{ NULL, NULL }
	};

	return tap_run(tests);
}
