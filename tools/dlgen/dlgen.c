// SPDX-License-Identifier: GPL-2.0
/*
 * dlgen: a workload generator in the manner of rt-app, for SCHED_DEADLINE.
 *
 * It takes rt-app's command line (-t, as the kernel's sched-deadline
 * documentation uses it) or the part of rt-app's JSON files that it
 * supports, runs each task as a thread that sets its own policy, and
 * records every job: its release, start and end in CLOCK_MONOTONIC (the
 * clock a tracefs trace shows with trace_clock mono), its CPU time and
 * its deadline.  Work is thread CPU time, not a calibrated loop: a job
 * that the CBS throttles takes longer, but does the same work.
 *
 * Nothing in a job does I/O or allocates: jobs go into a buffer sized
 * and touched before the start, and the log is written at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dlabi.h"
#include "conf.h"
#include "report.h"
#include "units.h"
#include "version.h"

enum { EXIT_RAN, EXIT_REFUSED, EXIT_USAGE, EXIT_MISSED };

/*
 * The first release comes this long after every thread is ready, so that
 * all of them are asleep waiting for it, even on a slow emulated CPU.
 */
#define LEAD_NS (100 * NSEC_PER_MSEC)
/* Jobs logged per thread when nothing bounds the run, and at most. */
#define DEFAULT_JOBS 65536
#define MAX_JOBS 262144
#define MAX_FILE (16 << 20)
#define STACK_SIZE (256 << 10)
static struct {
	struct dlgen_thread *th;
	int n;
	pthread_barrier_t ready, go;
	int64_t t0, stop_at;	/* stop_at: INT64_MAX for no end */
	atomic_bool abort;
	atomic_int running;
	pthread_t main;
} run;

struct opts {
	const char *file, *log;
	bool json, fail_on_miss;
	int64_t duration;	/* -D, or -2 if not given */
};

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * (int64_t)NSEC_PER_SEC + ts.tv_nsec;
}

static int64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static int64_t cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static bool aborted(void)
{
	return atomic_load_explicit(&run.abort, memory_order_relaxed);
}

/* Sleeps until @at unless that is past the end; 0, or 1 to stop. */
static int wait_until(struct dlgen_thread *t, int64_t at)
{
	struct timespec ts = {
		.tv_sec = at / (int64_t)NSEC_PER_SEC,
		.tv_nsec = at % (int64_t)NSEC_PER_SEC,
	};

	if (at >= run.stop_at) {
		t->at_end = true;
		return 1;
	}
	while (!aborted() && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					     &ts, NULL) == EINTR)
		;
	t->wake = at;
	t->waited = true;
	return aborted();
}

/* rt-app's timer: the next period of the timer, from the start. */
static int wait_timer(struct dlgen_thread *t, const struct dlgen_event *e)
{
	int64_t *next = &t->timer_next[e->timer], now;

	if (!*next)
		*next = run.t0;
	*next += e->ns;
	now = now_ns();
	if (now < *next)
		return wait_until(t, *next);
	/* Late: that period has begun.  A relative timer starts anew. */
	if (!t->task->timers[e->timer].absolute)
		*next = now;
	t->wake = *next;
	t->waited = true;
	return 0;
}

static int wait_event(struct dlgen_thread *t, const struct dlgen_event *e)
{
	if (e->type == DLGEN_TIMER)
		return wait_timer(t, e);
	return wait_until(t, now_ns() + (int64_t)e->ns);
}

/*
 * Burns @ns of the thread's CPU time, counted from where the last run
 * ended: what the thread spent since (waking up, dlgen's bookkeeping) is
 * part of this run, as the kernel charges it to the same budget.  So a
 * deadline task whose runtime is its run fits in it: counted from its
 * wakeup, every job would overrun it by that much, and the CBS would
 * carry the debt until it throttled a job.  The mark moves by @ns, not to
 * the last reading, so the loop's overshoot, even time stolen in its last
 * turn, is given back by the next run: the thread's CPU time keeps to the
 * sum of its runs.  Only a thread that lost more than @ns before the run
 * starts from where it is.  0, or 1 if the run was stopped.
 */
static int burn(struct dlgen_thread *t, int64_t ns, int64_t *cpu)
{
	int64_t end = t->mark + ns, c = cpu_ns();

	if (c >= end)
		end = c;
	while (c < end) {
		if (aborted())
			return 1;
		c = cpu_ns();
	}
	t->mark = end;
	*cpu = c;
	return 0;
}

static void account(struct dlgen_thread *t, const struct dlgen_rec *r)
{
	int64_t response = r->end - r->release;
	int64_t late = r->deadline ? r->end - r->deadline : 0;

	if (t->jobs < t->cap)
		t->recs[t->jobs] = *r;
	t->jobs++;
	t->cpu += r->runtime;
	if (response > t->worst_response)
		t->worst_response = response;
	if (late > 0) {
		t->misses++;
		if (late > t->worst_tardiness)
			t->worst_tardiness = late;
	}
}

static int last_run(const struct dlgen_phase *p)
{
	int i = p->nevents - 1;

	while (p->events[i].type != DLGEN_RUN)
		i--;
	return i;
}

/*
 * One job: the phase's events in order.  It is released by the waits
 * before its first run (or by the end of the job before), starts with
 * that run and ends with its last; the waits after the last run belong
 * to the next job's release.  Returns 1 to stop: at the end of the run,
 * a job cut short by it is not logged.
 */
static int job(struct dlgen_thread *t, const struct dlgen_phase *p)
{
	int last = last_run(p), i;
	struct dlgen_rec r = { 0 };
	int64_t cpu = 0;
	bool started = false;

	for (i = 0; i < p->nevents; i++) {
		const struct dlgen_event *e = &p->events[i];

		if (e->type != DLGEN_RUN) {
			if (wait_event(t, e))
				return 1;
			continue;
		}
		if (!started) {
			started = true;
			r.release = t->waited ? t->wake : t->last_end;
			if (r.release >= run.stop_at) {
				t->at_end = true;
				return 1;
			}
			r.start = now_ns();
		}
		if (burn(t, (int64_t)e->ns, &cpu))
			return 1;
		t->waited = false;
		if (i == last) {
			r.end = now_ns();
			r.runtime = cpu - t->cpu_end;
			r.deadline = p->deadline ? r.release + p->deadline : 0;
			t->last_end = r.end;
			t->cpu_end = cpu;
			account(t, &r);
		}
	}
	return 0;
}

static void run_jobs(struct dlgen_thread *t)
{
	const struct dlgen_task *k = t->task;
	long pass, j;
	int i;

	t->last_end = run.t0;
	t->mark = cpu_ns();
	t->cpu_end = t->mark;
	if (wait_until(t, run.t0))
		return;
	for (pass = 0; k->loop < 0 || pass < k->loop; pass++)
		for (i = 0; i < k->nphases; i++)
			for (j = 0; j < k->phases[i].loop; j++)
				if (job(t, &k->phases[i]))
					return;
}

static void fail_step(struct dlgen_thread *t, const char *step, int err)
{
	t->failed = step;
	t->err = err;
}

/*
 * SCHED_DEADLINE needs an affinity that covers the thread's root domain,
 * and a deadline thread may not narrow it afterwards.  So a deadline
 * thread is only "pinned" where the pinning is there already (started in
 * a cpuset of just those CPUs, the documentation's HOWTO) or admission
 * control is off; anything else is refused before the kernel does.
 */
static int pin(struct dlgen_thread *t)
{
	const struct dlgen_task *k = t->task;
	cpu_set_t now;

	if (CPU_EQUAL(&t->allowed, &k->cpus))
		return 0;
	if (k->policy == SCHED_DEADLINE &&
	    sysctl_get("sched_rt_runtime_us") != -1) {
		fail_step(t, "affinity", EPERM);
		return -1;
	}
	if (sched_setaffinity(0, sizeof(k->cpus), &k->cpus)) {
		fail_step(t, "sched_setaffinity", errno);
		return -1;
	}
	/* The kernel keeps the part the cpuset allows, silently. */
	if (sched_getaffinity(0, sizeof(now), &now) ||
	    !CPU_EQUAL(&now, &k->cpus)) {
		fail_step(t, "cpuset", EINVAL);
		return -1;
	}
	return 0;
}

static void sched_setup(struct dlgen_thread *t)
{
	const struct dlgen_task *k = t->task;
	struct dl_attr a = {
		.size = DL_ATTR_SIZE_VER1,
		.sched_policy = (uint32_t)k->policy,
	};

	if (sched_getaffinity(0, sizeof(t->allowed), &t->allowed)) {
		fail_step(t, "sched_getaffinity", errno);
		return;
	}
	if (k->has_cpus && pin(t))
		return;
	if (k->policy == SCHED_DEADLINE)
		a = dl_attr_make(k->runtime, k->deadline, k->period, 0);
	else if (k->policy == SCHED_OTHER)
		a.sched_nice = k->priority;
	else
		a.sched_priority = (uint32_t)k->priority;
	if (dl_setattr(0, &a, 0))
		fail_step(t, "sched_setattr", errno);
}

static void *worker(void *arg)
{
	struct dlgen_thread *t = arg;
	char comm[16];

	t->tid = gettid();
	snprintf(comm, sizeof(comm), "%.15s", t->name);
	pthread_setname_np(pthread_self(), comm);
	sched_setup(t);
	pthread_barrier_wait(&run.ready);
	pthread_barrier_wait(&run.go);
	if (!aborted())
		run_jobs(t);
	if (atomic_fetch_sub(&run.running, 1) == 1)
		pthread_kill(run.main, SIGUSR1);
	return NULL;
}

/*
 * Jobs a thread can do in the run: each takes at least its sleeps and
 * the periods of each of its timers, and its runs, which can be shorter
 * when they give back what the runs before overshot (see burn()): they
 * count for half.
 */
static size_t capacity(const struct dlgen_task *k, int64_t duration)
{
	uint64_t per_pass = 0, shortest = UINT64_MAX, cap = DEFAULT_JOBS;
	int i, j;

	for (i = 0; i < k->nphases; i++) {
		const struct dlgen_phase *p = &k->phases[i];
		uint64_t len = 0;

		for (j = 0; j < p->nevents; j++) {
			uint64_t ns = p->events[j].ns;

			if (p->events[j].type == DLGEN_RUN)
				len += ns / 2;
			else if (p->events[j].type == DLGEN_SLEEP)
				len += ns;
		}
		if (p->period > len)
			len = p->period;
		if (len < shortest)
			shortest = len;
		per_pass += p->loop < MAX_JOBS ? (uint64_t)p->loop : MAX_JOBS;
	}
	if (duration >= 0)
		cap = (uint64_t)duration / shortest + k->nphases + 1;
	if (k->loop > 0 && per_pass <= MAX_JOBS / (uint64_t)k->loop &&
	    per_pass * (uint64_t)k->loop < cap)
		cap = per_pass * (uint64_t)k->loop;
	return cap < MAX_JOBS ? cap : MAX_JOBS;
}

static int threads_make(const struct dlgen_conf *c)
{
	int i, j, n = 0;

	for (i = 0; i < c->ntasks; i++)
		n += c->tasks[i].instances;
	run.th = calloc(n, sizeof(*run.th));
	if (!run.th)
		return -1;
	for (i = 0; i < c->ntasks; i++) {
		const struct dlgen_task *k = &c->tasks[i];

		for (j = 0; j < k->instances; j++) {
			struct dlgen_thread *t = &run.th[run.n++];

			t->task = k;
			snprintf(t->name, sizeof(t->name), "%s", k->name);
			if (k->instances > 1)
				snprintf(t->name, sizeof(t->name), "%s-%d",
					 k->name, j);
			t->cap = capacity(k, c->duration);
			t->recs = malloc(t->cap * sizeof(*t->recs));
			t->timer_next = calloc(k->ntimers + 1, sizeof(int64_t));
			if (!t->recs || !t->timer_next)
				return -1;
			/* Fault the pages in now, not in a job. */
			memset(t->recs, 0, t->cap * sizeof(*t->recs));
		}
	}
	return 0;
}

static void on_wake(int sig)
{
	(void)sig;
}

/* Signals: the end comes to the main thread, which wakes the workers. */
static void signals_setup(sigset_t *set)
{
	struct sigaction sa = { .sa_handler = on_wake };

	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, set, NULL);
	sigaction(SIGUSR2, &sa, NULL);
}

/* Until the end, the last thread's end or a signal; true for a signal. */
static bool wait_for_end(const sigset_t *set)
{
	for (;;) {
		int64_t left = run.stop_at - now_ns();
		struct timespec ts = {
			.tv_sec = left / (int64_t)NSEC_PER_SEC,
			.tv_nsec = left % (int64_t)NSEC_PER_SEC,
		};
		int sig;

		if (left <= 0)
			return false;
		sig = sigtimedwait(set, NULL, &ts);
		if (sig == SIGUSR1)
			return false;
		if (sig == SIGINT || sig == SIGTERM)
			return true;
	}
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: %s [OPTIONS] -t PERIOD:RUN[:POLICY[:CPUS[:PRIO[:DEADLINE]]]] [-t ...]\n"
		"       %s [OPTIONS] FILE.json   (- for standard input)\n"
		"Runs periodic tasks, a thread each, and logs every job.\n"
		"  -t, --task SPEC      a task, in rt-app's form: times in us, or with a unit\n"
		"                       (10ms); POLICY d (SCHED_DEADLINE, runtime RUN), f, r\n"
		"                       or o; CPUS 0,2-3; PRIO a priority (f, r), a nice (o),\n"
		"                       or for d the deadline; DEADLINE (default PERIOD);\n"
		"                       '-' leaves a field out\n"
		"  -D, --duration TIME  stop after TIME (in s, or with a unit); default: when\n"
		"                       the tasks end, or at SIGINT\n"
		"      --log FILE       write the job log to FILE (- for standard output)\n"
		"      --log-format F   csv (the default) or json\n"
		"      --fail-on-miss   exit 3 when a job missed its deadline\n"
		"  -h, --help           this help\n"
		"  -V, --version        dlgen's version\n"
		"DLGEN_LOG=FILE in the environment is --log FILE when there is none.\n"
		"Exit status: 0 ran, 1 the kernel refused a task, 2 bad usage or input,\n"
		"3 a deadline missed (with --fail-on-miss).  See dlgen(1).\n",
		dlgen_prog, dlgen_prog);
}

static int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", dlgen_prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help'.\n", dlgen_prog);
	return EXIT_USAGE;
}

static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap), *nbuf;

	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n < cap)
			continue;
		nbuf = cap < MAX_FILE ? realloc(buf, cap * 2) : NULL;
		if (!nbuf) {
			free(buf);
			return NULL;
		}
		buf = nbuf;
		cap *= 2;
	}
	if (buf && ferror(f)) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static int load_json(struct dlgen_conf *c, const char *file)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	char err[512], *text;
	size_t len;
	int r;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", dlgen_prog, file,
			strerror(errno));
		return -1;
	}
	text = read_all(f, &len);
	if (f != stdin)
		fclose(f);
	if (!text) {
		fprintf(stderr, "%s: %s: cannot read it (16 MiB at most)\n",
			dlgen_prog, file);
		return -1;
	}
	r = dlgen_conf_json(c, text, len, err, sizeof(err));
	free(text);
	/* A syntax error has its position, which wants the file's name. */
	if (r)
		fprintf(stderr, "%s: %s%s%s\n", dlgen_prog,
			err[0] >= '0' && err[0] <= '9' ? file : "",
			err[0] >= '0' && err[0] <= '9' ? ":" : "", err);
	return r;
}

static int parse_args(int argc, char **argv, struct opts *o,
		      struct dlgen_conf *c)
{
	static const struct option longs[] = {
		{ "task", required_argument, NULL, 't' },
		{ "duration", required_argument, NULL, 'D' },
		{ "log", required_argument, NULL, 'L' },
		{ "log-format", required_argument, NULL, 'F' },
		{ "fail-on-miss", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	char err[512];
	uint64_t ns;
	int opt;

	while ((opt = getopt_long(argc, argv, "t:D:hV", longs, NULL)) != -1) {
		switch (opt) {
		case 't':
			if (dlgen_task_spec(c, optarg, err, sizeof(err)))
				return bad_usage("%s", err);
			break;
		case 'D':
			if (parse_duration(optarg, UNIT_S, &ns) || !ns ||
			    ns > INT64_MAX)
				return bad_usage("-D %s: not a duration above 0 (5, 2.5s, 300ms)",
						 optarg);
			o->duration = (int64_t)ns;
			break;
		case 'L':
			o->log = optarg;
			break;
		case 'F':
			if (strcmp(optarg, "csv") && strcmp(optarg, "json"))
				return bad_usage("--log-format %s: csv or json",
						 optarg);
			o->json = !strcmp(optarg, "json");
			break;
		case 'M':
			o->fail_on_miss = true;
			break;
		case 'h':
			print_usage(stdout);
			exit(EXIT_RAN);
		case 'V':
			/* Run as rt-app, it says what it is too. */
			if (strcmp(dlgen_prog, "dlgen"))
				printf("%s (dlgen) %s\n", dlgen_prog, DLK_VERSION);
			else
				puts("dlgen " DLK_VERSION);
			exit(EXIT_RAN);
		default:
			return bad_usage("%s", "bad option");
		}
	}
	if (optind < argc - 1)
		return bad_usage("%s: one task file at most", argv[optind + 1]);
	if (optind == argc - 1) {
		if (c->ntasks)
			return bad_usage("%s: a task file or -t, not both",
					 argv[optind]);
		o->file = argv[optind];
		if (load_json(c, o->file))
			return EXIT_USAGE;
	}
	if (!c->ntasks)
		return bad_usage("%s", "no task: -t PERIOD:RUN... or a JSON file");
	return 0;
}

static int start(const struct dlgen_conf *c, sigset_t *set)
{
	pthread_attr_t attr;
	int i, e;

	signals_setup(set);
	run.main = pthread_self();
	run.stop_at = INT64_MAX;
	atomic_init(&run.running, run.n);
	pthread_barrier_init(&run.ready, NULL, run.n + 1);
	pthread_barrier_init(&run.go, NULL, run.n + 1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	for (i = 0; i < run.n; i++) {
		e = pthread_create(&run.th[i].th, &attr, worker, &run.th[i]);
		if (e) {
			/* The others wait at the barrier: exit takes them. */
			fprintf(stderr, "%s: %s: pthread_create: %s\n",
				dlgen_prog, run.th[i].name, strerror(e));
			exit(EXIT_REFUSED);
		}
	}
	pthread_barrier_wait(&run.ready);
	if (dlgen_report_refused(run.th, run.n, c)) {
		atomic_store(&run.abort, true);
		pthread_barrier_wait(&run.go);
		return -1;
	}
	run.t0 = now_ns() + LEAD_NS;
	if (c->duration >= 0)
		run.stop_at = run.t0 + c->duration;
	pthread_barrier_wait(&run.go);
	return 0;
}

static int finish(const struct opts *o, FILE *log, int64_t elapsed)
{
	FILE *out = log == stdout ? stderr : stdout;
	bool lost = log && dlgen_log_write(log, run.th, run.n, o->json);
	uint64_t misses = 0;
	int i;

	if (lost)
		fprintf(stderr, "%s: %s: %s\n", dlgen_prog, o->log,
			strerror(errno));
	dlgen_summary(out, run.th, run.n, elapsed);
	for (i = 0; i < run.n; i++)
		misses += run.th[i].misses;
	if (lost)
		return EXIT_USAGE;
	return o->fail_on_miss && misses ? EXIT_MISSED : EXIT_RAN;
}

int main(int argc, char **argv)
{
	struct opts o = { .duration = -2 };
	struct dlgen_conf c = { .duration = -1 };
	bool signalled, at_end = false;
	FILE *log = NULL;
	int64_t end;
	sigset_t set;
	int r, i;

	dlgen_prog = basename(argv[0]);
	r = parse_args(argc, argv, &o, &c);
	if (r)
		return r;
	if (o.duration != -2)
		c.duration = o.duration;
	/* A log for a command line that cannot change (rt-app's, say). */
	if (!o.log && getenv("DLGEN_LOG") && *getenv("DLGEN_LOG"))
		o.log = getenv("DLGEN_LOG");
	/* Before the run: a log that cannot be written makes it pointless. */
	if (o.log) {
		log = strcmp(o.log, "-") ? fopen(o.log, "w") : stdout;
		if (!log) {
			fprintf(stderr, "%s: %s: %s\n", dlgen_prog, o.log,
				strerror(errno));
			return EXIT_USAGE;
		}
	}
	if (threads_make(&c)) {
		fprintf(stderr, "%s: out of memory\n", dlgen_prog);
		return EXIT_REFUSED;
	}
	if (!run.n) {
		fprintf(stderr, "%s: every task has 0 instances\n", dlgen_prog);
		return EXIT_USAGE;
	}
	r = start(&c, &set);
	signalled = !r && wait_for_end(&set);
	if (signalled) {
		atomic_store(&run.abort, true);
		for (i = 0; i < run.n; i++)
			pthread_kill(run.th[i].th, SIGUSR2);
	}
	end = now_ns();
	for (i = 0; i < run.n; i++) {
		pthread_join(run.th[i].th, NULL);
		at_end |= run.th[i].at_end;
	}
	if (r)
		return EXIT_REFUSED;
	/*
	 * The run lasts its duration, unless a signal ends it, or every
	 * thread ends its loops before.  A thread that stops at the end has
	 * no more jobs to release in it, so it may stop a little earlier.
	 */
	if ((at_end && !signalled) || end > run.stop_at)
		end = run.stop_at;
	r = finish(&o, log, end > run.t0 ? end - run.t0 : 1);
	dlgen_conf_free(&c);
	return r;
}
