// SPDX-License-Identifier: GPL-2.0
/*
 * dlbench: SCHED_DEADLINE micro-benchmarks, run in the guest on stock and
 * on ours by harness/bench-dl.sh.  Each subcommand prints result lines
 *
 *	dlbench FIGURE key=value ...
 *
 * with integers, times in guest ns.  FIGURE names the measurement and its
 * parameters; the keys the harness compares are ns_per_switch,
 * overhead_ns_per_job, p50_ns, p99_ns, max_ns and ns_per_call (lower is
 * better), the others are there to read.
 *
 *	switch [ROUNDS] [policy=other]
 *				two deadline tasks on one CPU, pipe ping-pong;
 *				policy=other: two SCHED_OTHER tasks, the same
 *	scale N [cpus=C] [ms=D] [tries=T]
 *				N periodic deadline tasks: overhead per job
 *	latency [periods=K]	wakeup latency of a periodic task under load
 *	setattr N [calls=M] [cg=D]	sched_setattr with N deadline tasks admitted
 *				(cg=D: all of them in a cgroup D deep, each
 *				level capped, cpu.dl.max; ours only)
 *
 * Deadline tasks cannot fork or create threads (EAGAIN), so every thread
 * is created first and makes itself a deadline task.  A deadline task's
 * affinity must span its root domain, so "cpus=C" is the number of CPUs
 * online (boot the guest with SMP=C); all threads inherit the mask.  With
 * admission off (kernel.sched_rt_runtime_us = -1) that rule is not
 * enforced, and "cpus=C" may be fewer CPUs than are online: the tasks are
 * pinned to CPUs 0..C-1 and the others stay idle (the figure's name then
 * says "of" the CPUs online); switch then runs on CPU 0 of any guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "dl.h"
#include "file.h"
#include "spin.h"

#define US ((int64_t)NSEC_PER_USEC)
#define MS ((int64_t)NSEC_PER_MSEC)
#define MAX_CPUS 64
#define MAX_TASKS 4096
#define STACK_SIZE (128 * 1024)

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("dlbench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void bad_usage(void)
{
	fputs("usage: dlbench switch [ROUNDS] [policy=other]\n"
	      "       dlbench scale N [cpus=C] [ms=D] [tries=T]\n"
	      "       dlbench latency [periods=K]\n"
	      "       dlbench setattr N [calls=M] [cg=D]\n", stderr);
	exit(2);
}

static long parse_num(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		die("'%s': want an integer from %ld to %ld", s, min, max);
	return v;
}

/* The value of "key=N" options in @argv, or @def when absent. */
static long opt_num(int argc, char **argv, const char *key, long def,
		    long min, long max)
{
	size_t len = strlen(key);
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], key, len) && argv[i][len] == '=')
			return parse_num(argv[i] + len + 1, min, max);
	}
	return def;
}

static int ncpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/*
 * For a figure's name: "-ofN", N the CPUs online, when the tasks use
 * only @used of them; else "".
 */
static const char *of_online(int used)
{
	static char buf[16];

	if (used >= ncpus())
		return "";
	snprintf(buf, sizeof(buf), "-of%d", ncpus());
	return buf;
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}


/*
 * Makes the calling thread a deadline task.  The bandwidth of the tasks
 * of an earlier run comes back only at their 0-lag time, so a refusal
 * (EBUSY) is retried for 2 s.
 */
static void become_dl(int64_t runtime, int64_t deadline, int64_t period)
{
	int64_t end = now_ns() + 2000 * MS;
	long long bw = -1, total = -1;
	int e;

	while (dl_become(runtime, deadline, period, 0)) {
		e = errno;
		if (e != EBUSY || now_ns() > end) {
			dl_bw_of_cpu(0, &bw, &total);
			die("sched_setattr(%lld/%lld/%lld ns): %s (CPU 0's root domain: total_bw %lld, bw %lld per CPU)",
			    (long long)runtime, (long long)deadline,
			    (long long)period, strerror(e), total, bw);
		}
		sleep_until(now_ns() + 10 * MS);
	}
}

/*
 * Back to SCHED_OTHER, to exit unthrottled: a thread's exit (its stack
 * unmapped, IPIs) can cost more than a small budget, and then takes
 * periods.
 */
static void leave_dl(void)
{
	struct sched_param sp = { 0 };

	if (sched_setscheduler(0, SCHED_OTHER, &sp))
		die("SCHED_OTHER: %s", strerror(errno));
}

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity(cpu %d): %s", cpu, strerror(errno));
}

/* Whether admission control is off: kernel.sched_rt_runtime_us is -1. */
static int admission_off(void)
{
	FILE *f = fopen("/proc/sys/kernel/sched_rt_runtime_us", "r");
	long v = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%ld", &v) != 1)
		v = 0;
	fclose(f);
	return v == -1;
}

/* CPUs 0..@c-1 for the caller and the threads it creates after. */
static void use_cpus(int c)
{
	cpu_set_t set;
	int i;

	if (c != ncpus() && !(c < ncpus() && admission_off()))
		die("cpus=%d: a deadline task's affinity must span its root domain, and %d CPUs are online: boot with SMP=%d, or turn admission off (sched_rt_runtime_us -1) to pin the tasks",
		    c, ncpus(), c);
	CPU_ZERO(&set);
	for (i = 0; i < c; i++)
		CPU_SET(i, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity(cpus=%d): %s", c, strerror(errno));
}

static pthread_t thread_start(void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	pthread_t t;
	int err;

	/* Small stacks: 1024 threads of the default 8 MB are too many. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	err = pthread_create(&t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	if (err)
		die("pthread_create: %s", strerror(err));
	return t;
}

static void thread_join(pthread_t t)
{
	int err = pthread_join(t, NULL);

	if (err)
		die("pthread_join: %s", strerror(err));
}

/*
 * switch: two deadline tasks on one CPU hand it to each other through a
 * pair of pipes.  Ping-pong keeps each of them running half the time, and
 * two reservations of 50% are more than admission allows, so the rounds
 * are done in batches, one per period, in which each task uses about half
 * its budget: every batch starts with fresh budgets and neither task is
 * throttled in it.  Only the batches are timed.
 */
#define SW_RUNTIME (8 * MS)
#define SW_PERIOD (20 * MS)
#define SW_BATCH (8 * MS)
/* Rounds between two looks at the clock. */
#define SW_STRIDE 8

struct pingpong {
	int ab[2], ba[2];
	int other;		/* SCHED_OTHER: no reservation */
	long rounds;
	long periods;
	int64_t ns;
};

static void pipe_xfer(int in, int out, char *c)
{
	if (out >= 0 && write(out, c, 1) != 1)
		die("write: %s", strerror(errno));
	if (in >= 0 && read(in, c, 1) != 1)
		die("read: %s", strerror(errno));
}

static void *sw_echo(void *arg)
{
	struct pingpong *pp = arg;
	char c = 0;

	if (!pp->other)
		become_dl(SW_RUNTIME, SW_PERIOD, SW_PERIOD);
	for (;;) {
		pipe_xfer(pp->ab[0], -1, &c);
		if (c == 'q')
			break;
		pipe_xfer(-1, pp->ba[1], &c);
	}
	return NULL;
}

static void *sw_lead(void *arg)
{
	struct pingpong *pp = arg;
	int64_t rel, t0, t;
	long done = 0;
	char c = 'p';
	int i;

	if (!pp->other)
		become_dl(SW_RUNTIME, SW_PERIOD, SW_PERIOD);
	/* One untimed round: the other task is a deadline task by then. */
	pipe_xfer(pp->ba[0], pp->ab[1], &c);
	rel = now_ns() + SW_PERIOD;
	while (done < pp->rounds) {
		sleep_until(rel);
		rel += SW_PERIOD;
		t0 = now_ns();
		do {
			for (i = 0; i < SW_STRIDE && done < pp->rounds; i++) {
				pipe_xfer(pp->ba[0], pp->ab[1], &c);
				done++;
			}
			t = now_ns();
		} while (t - t0 < SW_BATCH && done < pp->rounds);
		pp->ns += t - t0;
		pp->periods++;
	}
	c = 'q';
	pipe_xfer(-1, pp->ab[1], &c);
	return NULL;
}

/*
 * Called before and after each run of scale's set, its threads created
 * and not yet joined, and around switch's rounds; does nothing.  It lies at an address of its own
 * (BENCH_LDFLAGS in the Makefile, and harness/bench-dl.sh when it builds
 * dlbench itself), where harness/tbcount.c (mark=) takes a count of the
 * kernel instructions run so far each time it runs: bench-dl's figure of
 * kernel instructions per job on several vCPUs, which the host's load
 * cannot move, and the span harness/prof-switch.sh counts on several.
 */
static __attribute__((noinline, section(".dlk_mark"))) void dlk_mark(void)
{
	__asm__ volatile("" ::: "memory");
}

static int cmd_switch(int argc, char **argv)
{
	struct pingpong pp = { .rounds = 20000 };
	pthread_t a, b;

	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "policy=other"))
			pp.other = 1;
		else if (!strcmp(argv[i], "policy=deadline"))
			pp.other = 0;
		else if (i == 0)
			pp.rounds = parse_num(argv[0], 1, 100000000);
		else
			bad_usage();
	}
	if (ncpus() != 1 && !pp.other && !admission_off())
		die("switch: needs one CPU (SMP=1), or admission off: a deadline task's affinity must span its root domain");
	pin_self(0);
	if (pipe(pp.ab) || pipe(pp.ba))
		die("pipe: %s", strerror(errno));
	dlk_mark();
	b = thread_start(sw_echo, &pp);
	a = thread_start(sw_lead, &pp);
	thread_join(a);
	thread_join(b);
	dlk_mark();
	/* "switch" alone is the deadline one of one CPU, as it always was. */
	printf("dlbench switch%s%s rounds=%ld periods=%ld ns_per_switch=%lld\n",
	       pp.other ? "-other" : "", of_online(1),
	       pp.rounds, pp.periods, (long long)(pp.ns / (2 * pp.rounds)));
	return 0;
}

/*
 * The loop that is both the spinners' measure of free CPU time and the
 * jobs' work, so that the work of a job is known in the spinners' units.
 * Both look at the spinners' stop flag (a job after the measured span
 * may be cut short), and the spinners' count limit is a variable as a
 * job's is: the loop compiles to the same code for both.
 */
static atomic_int spin_stop;

static uint64_t spin_loop(uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (atomic_load_explicit(&spin_stop, memory_order_relaxed))
			break;
	}
	return i;
}

/*
 * scale: N periodic deadline tasks released together at every period, so
 * that the deadline run queue holds up to N of them, each doing a job of
 * fixed work (JOB_NS, 20 us) then sleeping (clock_nanosleep, TIMER_ABSTIME)
 * until its next release, for D ms.
 *
 * Overhead is measured as idle time lost: a SCHED_IDLE spinner on each CPU
 * counts iterations of spin_loop, first alone (calibration: ns per
 * iteration), then beside the set.  The CPU time the set took is what the
 * spinners lost; less the jobs' own work, it is what the scheduler and
 * the kernel spent on the jobs: releases (timer interrupts and wakeups),
 * context switches, accounting, the sleep call.  Unlike the threads'
 * CPU clocks, this sees work done in interrupts and on the idle task.
 *
 * Each task's period is N ms / C (1 ms at least), so the jobs come at 1000
 * a second per CPU for every N; its runtime SC_RUNTIME covers a job and
 * its overhead (about 100 us under -icount, more without on a busy host),
 * and the total, at most C / 2, is within admission.
 */
#define JOB_NS (20 * US)
#define SC_RUNTIME (500 * US)
/*
 * The spinners start this long before the first release: a SCHED_IDLE
 * thread would only get to start after the first burst of jobs.
 */
#define SPIN_LEAD (5 * MS)
/* Runs of the set until one starts in time (see sc_run) */
#define SC_TRIES 4

struct scale;

struct spinner {
	pthread_t t;
	struct scale *sc;
	int cpu;
	int64_t start, end;
	uint64_t iters;
};

struct scale {
	int n, cpus;
	int64_t period, t0, dur;
	uint64_t job_iters;
	uint64_t forever;	/* the spinners' limit: none */
	pthread_barrier_t go;
	int late, rescued;
	long jobs, late_jobs;
	struct spinner spin[MAX_CPUS];
};

struct task {
	pthread_t t;
	struct scale *sc;
	pid_t tid;
	int done;
};

static void *sc_task(void *arg)
{
	struct task *me = arg;
	struct scale *sc = me->sc;
	long k, jobs = 0, late_jobs = 0;
	int64_t rel;

	me->tid = gettid_();
	pthread_barrier_wait(&sc->go);
	become_dl(SC_RUNTIME, sc->period, sc->period);
	if (now_ns() >= sc->t0 - 2 * SPIN_LEAD)
		__atomic_add_fetch(&sc->late, 1, __ATOMIC_SEQ_CST);
	for (k = 0; (rel = sc->t0 + k * sc->period) < sc->t0 + sc->dur; k++) {
		sleep_until(rel);
		spin_loop(sc->job_iters);
		late_jobs += now_ns() > rel + sc->period;
		jobs++;
	}
	/* The same sleep ends the last job, outside the measured span. */
	sleep_until(sc->t0 + sc->dur + 20 * MS);
	leave_dl();
	__atomic_add_fetch(&sc->jobs, jobs, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&sc->late_jobs, late_jobs, __ATOMIC_SEQ_CST);
	__atomic_store_n(&me->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * Without -icount, a vCPU that the host stops while a deadline task runs
 * charges the task the stop as runtime, and the CBS makes it pay the debt
 * back at SC_RUNTIME a period: minutes for a stop of some milliseconds.
 * A task not done 200 ms (and 1 ms per task, for N to wake and leave)
 * after its last wakeup is such a throttled one, runnable, not asleep:
 * put back to SCHED_OTHER from here, it ends, and its bandwidth is
 * returned as for a task that leaves the class running.  Only a debt
 * made in the measured span spoils the figures: its jobs end late.
 */
static void sc_rescue(struct scale *sc, struct task *tasks)
{
	struct sched_param sp = { 0 };
	int i;

	sleep_until(sc->t0 + sc->dur + 200 * MS + sc->n * MS);
	for (i = 0; i < sc->n; i++) {
		if (__atomic_load_n(&tasks[i].done, __ATOMIC_SEQ_CST))
			continue;
		if (sched_setscheduler(tasks[i].tid, SCHED_OTHER, &sp) &&
		    errno != ESRCH)
			die("SCHED_OTHER for %d: %s", tasks[i].tid,
			    strerror(errno));
		sc->rescued++;
	}
}

static void *sc_spinner(void *arg)
{
	struct spinner *s = arg;
	struct scale *sc = s->sc;
	struct sched_param sp = { 0 };

	pin_self(s->cpu);
	if (sched_setscheduler(0, SCHED_IDLE, &sp))
		die("SCHED_IDLE: %s", strerror(errno));
	sleep_until(sc->t0 - SPIN_LEAD);
	s->start = now_ns();
	s->iters = spin_loop(sc->forever);
	s->end = now_ns();
	return NULL;
}

/* Spinners from @sc->t0 until the main thread says stop at t0 + dur. */
static void sc_spin(struct scale *sc)
{
	int i;

	atomic_store(&spin_stop, 0);
	for (i = 0; i < sc->cpus; i++) {
		sc->spin[i].sc = sc;
		sc->spin[i].cpu = i;
		sc->spin[i].t = thread_start(sc_spinner, &sc->spin[i]);
	}
}

static void sc_spin_end(struct scale *sc)
{
	int i;

	sleep_until(sc->t0 + sc->dur);
	atomic_store(&spin_stop, 1);
	for (i = 0; i < sc->cpus; i++)
		thread_join(sc->spin[i].t);
}

/* Free CPU time lost by the spinners in ns; ns_iter from calibration. */
static int64_t sc_lost(const struct scale *sc, const double *ns_iter)
{
	double lost = 0;
	int i;

	for (i = 0; i < sc->cpus; i++) {
		const struct spinner *s = &sc->spin[i];

		lost += (double)(s->end - s->start) - s->iters * ns_iter[i];
	}
	return (int64_t)lost;
}

/* ns per iteration on each CPU, alone; returns their mean. */
static double sc_calibrate(struct scale *sc, double *ns_iter)
{
	double sum = 0;
	int i;

	sc->t0 = now_ns() + 4 * SPIN_LEAD;
	sc_spin(sc);
	sc_spin_end(sc);
	for (i = 0; i < sc->cpus; i++) {
		struct spinner *s = &sc->spin[i];

		if (!s->iters)
			die("scale: the spinner on CPU %d did not run", i);
		ns_iter[i] = (double)(s->end - s->start) / s->iters;
		sum += ns_iter[i];
	}
	sc->job_iters = (uint64_t)(JOB_NS / (sum / sc->cpus));
	return sum / sc->cpus;
}

/*
 * One run of the set beside the spinners; nonzero if a task was still
 * getting ready when the spinners started (its setup would count as
 * overhead): the run is done again.  A run with jobs late for a debt
 * (see sc_rescue) is not: it would only make more debts, and it is
 * reported as not clean.  The threads become deadline tasks together,
 * once all are created, and the first release leaves them twice the time
 * their creation took for it, more at each @try: on a busy host, a vCPU
 * can stop for a while.
 */
static int sc_run(struct scale *sc, int try)
{
	static struct task tasks[MAX_TASKS];
	int64_t t;
	int i;

	sc->late = 0;
	sc->rescued = 0;
	sc->jobs = 0;
	sc->late_jobs = 0;
	pthread_barrier_init(&sc->go, NULL, sc->n + 1);
	t = now_ns();
	for (i = 0; i < sc->n; i++) {
		tasks[i].sc = sc;
		tasks[i].done = 0;
		tasks[i].t = thread_start(sc_task, &tasks[i]);
	}
	t = now_ns() - t;
	sc->t0 = now_ns() + (4 * SPIN_LEAD + 2 * t) * (1 << try);
	dlk_mark();
	sc_spin(sc);
	pthread_barrier_wait(&sc->go);
	sc_spin_end(sc);
	dlk_mark();
	sc_rescue(sc, tasks);
	for (i = 0; i < sc->n; i++)
		thread_join(tasks[i].t);
	pthread_barrier_destroy(&sc->go);
	return sc->late;
}

static int cmd_scale(int argc, char **argv)
{
	static struct scale sc;
	double ns_iter[MAX_CPUS], mean, work_ns;
	int64_t lost;
	int i, tries;

	if (argc < 1)
		bad_usage();
	sc.n = (int)parse_num(argv[0], 1, MAX_TASKS);
	sc.cpus = (int)opt_num(argc - 1, argv + 1, "cpus", ncpus(), 1,
			       MAX_CPUS);
	sc.dur = opt_num(argc - 1, argv + 1, "ms", 1000, 10, 60000) * MS;
	tries = (int)opt_num(argc - 1, argv + 1, "tries", SC_TRIES, 1,
			     SC_TRIES);
	sc.period = sc.n * MS / sc.cpus;
	if (sc.period < MS)
		sc.period = MS;
	sc.forever = UINT64_MAX;
	use_cpus(sc.cpus);
	mean = sc_calibrate(&sc, ns_iter);
	/* Past SC_TRIES, the last run is reported with its late starts. */
	for (i = 1; sc_run(&sc, i - 1) && i < tries; i++)
		;
	lost = sc_lost(&sc, ns_iter);
	work_ns = (double)sc.jobs * sc.job_iters * mean;
	/* Pinned to fewer CPUs than are online: "-ofM", M online. */
	printf("dlbench scale-n%d-cpus%d%s tasks=%d cpus=%d period_ns=%lld jobs=%ld runs=%d clean=%d late_start=%d late_jobs=%ld rescued=%d work_per_job_ns=%lld lost_ns=%lld overhead_ns_per_job=%lld\n",
	       sc.n, sc.cpus, of_online(sc.cpus), sc.n, sc.cpus, (long long)sc.period, sc.jobs, i,
	       !(sc.late || sc.late_jobs), sc.late, sc.late_jobs,
	       sc.rescued,
	       (long long)(work_ns / sc.jobs), (long long)lost,
	       (long long)((lost - work_ns) / sc.jobs));
	return 0;
}

/*
 * latency: like cyclicdeadline, a periodic deadline task (300 us every
 * 1.031 ms: waking costs it some 100 us on a busy host without -icount)
 * takes the time it wakes at each release: latency is that minus the
 * release.  Beside it, a CPU-bound SCHED_OTHER thread per CPU and a
 * second deadline task that never sleeps (1 ms every 3 ms: the CBS
 * throttles it each period), so releases find the CPUs busy.  The
 * period is not a multiple of the tick's (1 ms at HZ=1000): releases
 * come at every phase of it in turn, and not at one that the run's
 * start happened to pick, which under -icount is the same phase for
 * the whole run and moved the p99 by a quarter between runs.
 */
#define LAT_RUNTIME (300 * US)
#define LAT_PERIOD (1031 * US)
#define HOG_RUNTIME MS
#define HOG_PERIOD (3 * MS)

struct latency {
	long periods;
	long skipped;
	int64_t *lat;
	atomic_int stop;
	pthread_barrier_t go;
};

static void *lat_hog_fair(void *arg)
{
	struct latency *l = arg;

	pthread_barrier_wait(&l->go);
	while (!atomic_load(&l->stop))
		;
	return NULL;
}

static void *lat_hog_dl(void *arg)
{
	struct latency *l = arg;

	become_dl(HOG_RUNTIME, HOG_PERIOD, HOG_PERIOD);
	pthread_barrier_wait(&l->go);
	while (!atomic_load(&l->stop))
		;
	return NULL;
}

/*
 * Takes a latency at each release; a release already past when the task
 * sleeps again (a vCPU stopped by a busy host) is skipped and counted,
 * as cyclictest does, so one long stall cannot add to every later figure.
 */
static void *lat_task(void *arg)
{
	struct latency *l = arg;
	int64_t rel, t;
	long k;

	become_dl(LAT_RUNTIME, LAT_PERIOD, LAT_PERIOD);
	pthread_barrier_wait(&l->go);
	rel = now_ns() + 10 * LAT_PERIOD;
	for (k = 0; k < l->periods; k++) {
		sleep_until(rel);
		t = now_ns();
		l->lat[k] = t - rel;
		for (rel += LAT_PERIOD; rel <= t; rel += LAT_PERIOD)
			l->skipped++;
	}
	atomic_store(&l->stop, 1);
	return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int cmd_latency(int argc, char **argv)
{
	static pthread_t hogs[MAX_CPUS];
	struct latency l = { 0 };
	pthread_t task, dl;
	int i, n = ncpus();
	long k;

	if (n > MAX_CPUS)
		n = MAX_CPUS;
	l.periods = opt_num(argc, argv, "periods", 5000, 100, 1000000);
	l.lat = malloc(l.periods * sizeof(*l.lat));
	if (!l.lat)
		die("out of memory");
	/* Touched now: no page faults in the measurement. */
	memset(l.lat, 0xff, l.periods * sizeof(*l.lat));
	pthread_barrier_init(&l.go, NULL, n + 2);
	for (i = 0; i < n; i++)
		hogs[i] = thread_start(lat_hog_fair, &l);
	dl = thread_start(lat_hog_dl, &l);
	task = thread_start(lat_task, &l);
	thread_join(task);
	thread_join(dl);
	for (i = 0; i < n; i++)
		thread_join(hogs[i]);

	qsort(l.lat, l.periods, sizeof(*l.lat), cmp_i64);
	k = (l.periods * 99 + 99) / 100 - 1;
	printf("dlbench latency-cpus%d cpus=%d periods=%ld skipped=%ld p50_ns=%lld p99_ns=%lld max_ns=%lld\n",
	       ncpus(), ncpus(), l.periods, l.skipped,
	       (long long)l.lat[l.periods / 2],
	       (long long)l.lat[k], (long long)l.lat[l.periods - 1]);
	free(l.lat);
	return 0;
}

/*
 * setattr: N threads are admitted deadline tasks with a small bandwidth
 * (500 us every 2 s: enough to exit at the end without being throttled,
 * even under -icount; 1024 of them take a quarter of a CPU) and sleep.
 * The main thread changes the runtime of one more sleeping deadline
 * thread M times, alternating two values so that every call is a real
 * change and goes through admission.
 */
#define SA_IDLE_RUNTIME (500 * US)
#define SA_IDLE_PERIOD (2000 * MS)
#define SA_PERIOD (10 * MS)

struct setattr {
	int n;
	int ready;
	pid_t target;
	int quit[2];
};

static void *sa_sleeper(void *arg)
{
	struct setattr *sa = arg;
	char c;

	become_dl(SA_IDLE_RUNTIME, SA_IDLE_PERIOD, SA_IDLE_PERIOD);
	__atomic_add_fetch(&sa->ready, 1, __ATOMIC_SEQ_CST);
	if (read(sa->quit[0], &c, 1) < 0)
		die("read: %s", strerror(errno));
	leave_dl();
	return NULL;
}

static void *sa_target(void *arg)
{
	struct setattr *sa = arg;
	char c;

	__atomic_store_n(&sa->target, gettid_(), __ATOMIC_SEQ_CST);
	if (read(sa->quit[0], &c, 1) < 0)
		die("read: %s", strerror(errno));
	return NULL;
}

static void sa_set(pid_t pid, int64_t runtime)
{
	struct dl_attr a = dl_attr_make(runtime, SA_PERIOD, SA_PERIOD, 0);

	if (dl_setattr(pid, &a, 0))
		die("sched_setattr(%d, runtime %lld): %s", pid,
		    (long long)runtime, strerror(errno));
}

#define SA_CG "/sys/fs/cgroup"
#define SA_CG_MAX 8

/* Level @d (1..) of the chain of cgroups: dlbench1/dlbench2/... */
static void sa_cg_path(char *b, size_t n, int d, const char *file)
{
	int len = snprintf(b, n, SA_CG), i;

	for (i = 1; i <= d; i++)
		len += snprintf(b + len, n - len, "/dlbench%d", i);
	if (file)
		snprintf(b + len, n - len, "/%s", file);
}

/*
 * This process into a chain of @depth cgroups, each capped at half a CPU
 * (cpu.dl.max 500000 1000000): every admission then walks the chain and
 * its caps.  Returns 0, or -1 where the kernel has no cpu.dl.max.
 */
static int sa_cg_enter(int depth)
{
	char p[256];
	int d;

	mkdir(SA_CG, 0755);
	if (access(SA_CG "/cgroup.controllers", F_OK) &&
	    mount("none", SA_CG, "cgroup2", 0, NULL))
		die("mount cgroup2: %s", strerror(errno));
	for (d = 1; d <= depth; d++) {
		sa_cg_path(p, sizeof(p), d - 1, "cgroup.subtree_control");
		if (file_put(p, "+cpu"))
			die("+cpu in %s: %s", p, strerror(errno));
		sa_cg_path(p, sizeof(p), d, NULL);
		if (mkdir(p, 0755) && errno != EEXIST)
			die("mkdir %s: %s", p, strerror(errno));
		sa_cg_path(p, sizeof(p), d, "cpu.dl.max");
		if (access(p, F_OK))
			return -1;
		if (file_put(p, "500000 1000000"))
			die("capping %s: %s", p, strerror(errno));
	}
	sa_cg_path(p, sizeof(p), depth, "cgroup.procs");
	if (file_put(p, "%d", getpid()))
		die("moving into %s: %s", p, strerror(errno));
	return 0;
}

/* Back to the root cgroup; the chain goes (what it holds, to its parent). */
static void sa_cg_leave(int depth)
{
	char p[256];
	int d;

	if (file_put(SA_CG "/cgroup.procs", "%d", getpid()))
		die("leaving the cgroups: %s", strerror(errno));
	for (d = depth; d >= 1; d--) {
		sa_cg_path(p, sizeof(p), d, NULL);
		rmdir(p);
	}
}

static int cmd_setattr(int argc, char **argv)
{
	static pthread_t tasks[MAX_TASKS + 1];
	struct setattr sa = { 0 };
	char name[32] = "";
	int64_t t0, t1;
	long calls, i;
	int depth;

	if (argc < 1)
		bad_usage();
	sa.n = (int)parse_num(argv[0], 0, MAX_TASKS);
	calls = opt_num(argc - 1, argv + 1, "calls", 2000, 2, 10000000);
	depth = (int)opt_num(argc - 1, argv + 1, "cg", 0, 0, SA_CG_MAX);
	if (depth) {
		snprintf(name, sizeof(name), "-cg%d", depth);
		if (sa_cg_enter(depth)) {
			sa_cg_leave(depth);
			printf("dlbench setattr-n%d%s skipped: no cpu.dl.max\n",
			       sa.n, name);
			return 0;
		}
	}
	if (pipe(sa.quit))
		die("pipe: %s", strerror(errno));
	for (i = 0; i < sa.n; i++)
		tasks[i] = thread_start(sa_sleeper, &sa);
	tasks[sa.n] = thread_start(sa_target, &sa);
	while (__atomic_load_n(&sa.ready, __ATOMIC_SEQ_CST) < sa.n ||
	       !__atomic_load_n(&sa.target, __ATOMIC_SEQ_CST))
		sleep_until(now_ns() + MS);
	/* The first call makes it a deadline task; the timed ones change it. */
	sa_set(sa.target, 100 * US);
	t0 = now_ns();
	for (i = 0; i < calls; i++)
		sa_set(sa.target, i & 1 ? 100 * US : 200 * US);
	t1 = now_ns();
	close(sa.quit[1]);
	for (i = 0; i <= sa.n; i++)
		thread_join(tasks[i]);
	if (depth)
		sa_cg_leave(depth);
	printf("dlbench setattr-n%d%s tasks=%d calls=%ld ns_per_call=%lld\n",
	       sa.n, name, sa.n, calls, (long long)((t1 - t0) / calls));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		bad_usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "switch"))
		return cmd_switch(argc - 2, argv + 2);
	if (!strcmp(argv[1], "scale"))
		return cmd_scale(argc - 2, argv + 2);
	if (!strcmp(argv[1], "latency"))
		return cmd_latency(argc - 2, argv + 2);
	if (!strcmp(argv[1], "setattr"))
		return cmd_setattr(argc - 2, argv + 2);
	bad_usage();
	return 2;
}
