// SPDX-License-Identifier: GPL-2.0
/*
 * dlgen's model of a workload, how it is built, and the first of rt-app's
 * two forms that make one: the -t option of rt-app 0.x, the form of the
 * kernel's sched-deadline documentation (the other, JSON task files, is
 * jconf.c's).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dlabi.h"
#include "conf.h"
#include "units.h"

const char *dlgen_prog = "dlgen";

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int errf(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Grows the array *@p of *@n elements of @size by one, zeroed. */
static void *grow(void *p, int *n, size_t size)
{
	char *q = realloc(p, (*n + 1) * size);

	if (!q)
		return NULL;
	memset(q + *n * size, 0, size);
	(*n)++;
	return q;
}

struct dlgen_task *dlgen_task_add(struct dlgen_conf *c)
{
	struct dlgen_task *t = grow(c->tasks, &c->ntasks, sizeof(*t));

	if (!t)
		return NULL;
	c->tasks = t;
	t = &c->tasks[c->ntasks - 1];
	t->instances = 1;
	t->loop = -1;
	return t;
}

struct dlgen_phase *dlgen_phase_add(struct dlgen_task *t)
{
	struct dlgen_phase *p = grow(t->phases, &t->nphases, sizeof(*p));

	if (!p)
		return NULL;
	t->phases = p;
	p = &t->phases[t->nphases - 1];
	p->loop = 1;
	return p;
}

struct dlgen_event *dlgen_event_add(struct dlgen_phase *p)
{
	struct dlgen_event *e = grow(p->events, &p->nevents, sizeof(*e));

	if (!e)
		return NULL;
	p->events = e;
	return &p->events[p->nevents - 1];
}

int dlgen_timer_of(struct dlgen_task *t, const char *ref, int mode,
		   bool *clash)
{
	struct dlgen_timer *tm = NULL;
	int i;

	for (i = 0; i < t->ntimers && !tm; i++)
		if (!strcmp(t->timers[i].ref, ref))
			tm = &t->timers[i];
	if (!tm) {
		tm = grow(t->timers, &t->ntimers, sizeof(*tm));
		if (!tm)
			return -1;
		t->timers = tm;
		tm = &t->timers[t->ntimers - 1];
		tm->ref = strdup(ref);
		if (!tm->ref)
			return -1;
	}
	*clash = mode >= 0 && tm->mode_given && tm->absolute != mode;
	if (mode >= 0) {
		tm->absolute = mode;
		tm->mode_given = true;
	}
	return (int)(tm - t->timers);
}

/*
 * What a job of @p asks: its CPU time, and the least time its timers let
 * it take: for each timer, the sum of the periods the job waits on it.
 */
void dlgen_phase_finish(const struct dlgen_task *t, struct dlgen_phase *p)
{
	int i, k;

	p->run = 0;
	p->period = 0;
	for (i = 0; i < p->nevents; i++)
		if (p->events[i].type == DLGEN_RUN)
			p->run += p->events[i].ns;
	for (k = 0; k < t->ntimers; k++) {
		uint64_t sum = 0;

		for (i = 0; i < p->nevents; i++)
			if (p->events[i].type == DLGEN_TIMER &&
			    p->events[i].timer == k)
				sum += p->events[i].ns;
		if (sum > p->period)
			p->period = sum;
	}
	p->deadline = t->policy == SCHED_DEADLINE ? t->deadline : p->period;
}

const char *dlgen_policy_name(int policy)
{
	switch (policy) {
	case SCHED_DEADLINE:
		return "deadline";
	case SCHED_FIFO:
		return "fifo";
	case SCHED_RR:
		return "rr";
	default:
		return "other";
	}
}

const char *dlgen_cpus_format(const cpu_set_t *set, char *buf, size_t len)
{
	size_t n = 0;
	int cpu = 0;

	buf[0] = '\0';
	while (cpu < CPU_SETSIZE) {
		int last;

		if (!CPU_ISSET(cpu, set)) {
			cpu++;
			continue;
		}
		for (last = cpu; last + 1 < CPU_SETSIZE &&
		     CPU_ISSET(last + 1, set); last++)
			;
		if (n < len)
			n += snprintf(buf + n, len - n, "%s%d", n ? "," : "",
				      cpu);
		if (last > cpu && n < len)
			n += snprintf(buf + n, len - n, "-%d", last);
		cpu = last + 1;
	}
	return buf;
}

int dlgen_parse_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return !*s || *end || errno ? -1 : 0;
}

/* "0,2-3": CPU numbers and ranges; 0 or -1. */
static int parse_cpus(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (*s) {
		char *end;
		long a, b;

		if (*s < '0' || *s > '9')
			return -1;
		a = strtol(s, &end, 10);
		b = a;
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				return -1;
			b = strtol(end + 1, &end, 10);
		}
		if (a > b || b >= CPU_SETSIZE || (*end && *end != ','))
			return -1;
		for (; a <= b; a++)
			CPU_SET(a, set);
		s = *end ? end + 1 : end;
		if (*end && !*s)
			return -1;
	}
	return CPU_COUNT(set) ? 0 : -1;
}

int dlgen_cpu_missing(const cpu_set_t *set)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int cpu;

	for (cpu = n > 0 ? (int)n : 1; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, set))
			return cpu;
	return -1;
}

/* -t: rt-app 0.x's fields, in its order. */
enum { F_PERIOD, F_RUN, F_POLICY, F_CPUS, F_PRIO, F_DEADLINE, F_MAX };

static const char *const field_names[F_MAX] = {
	"period", "run", "policy", "cpus", "priority", "deadline",
};

struct spec {
	const char *text;
	const char *names[F_MAX];	/* each field's name in messages */
	char *f[F_MAX];
	int n;
	char *err;
	size_t errlen;
};

static int spec_fail(struct spec *s, int field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int spec_fail(struct spec *s, int field, const char *fmt, ...)
{
	int n = snprintf(s->err, s->errlen, "-t %s: %s: ", s->text,
			 s->names[field]);
	va_list ap;

	if (n < 0 || (size_t)n >= s->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(s->err + n, s->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* An optional field left out, empty or "-" takes its default. */
static bool spec_has(const struct spec *s, int field)
{
	return field < s->n && *s->f[field] && strcmp(s->f[field], "-");
}

static int spec_duration(struct spec *s, int field, uint64_t *ns)
{
	if (parse_duration(s->f[field], UNIT_US, ns))
		return spec_fail(s, field,
				 "\"%s\" is not a duration (a number of us, or with a unit: 10ms)",
				 s->f[field]);
	if (!*ns)
		return spec_fail(s, field, "must not be 0");
	return 0;
}

static int spec_policy(struct spec *s, int *policy)
{
	static const struct {
		const char *name;
		int policy;
	} p[] = {
		{ "d", SCHED_DEADLINE }, { "f", SCHED_FIFO },
		{ "r", SCHED_RR }, { "o", SCHED_OTHER },
	};
	size_t i;

	*policy = SCHED_OTHER;
	if (!spec_has(s, F_POLICY))
		return 0;
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		if (!strcmp(s->f[F_POLICY], p[i].name)) {
			*policy = p[i].policy;
			return 0;
		}
	}
	return spec_fail(s, F_POLICY,
			 "\"%s\" is none of d (SCHED_DEADLINE), f (SCHED_FIFO), r (SCHED_RR), o (SCHED_OTHER)",
			 s->f[F_POLICY]);
}

static int spec_priority(struct spec *s, struct dlgen_task *t)
{
	bool rt = t->policy == SCHED_FIFO || t->policy == SCHED_RR;
	long lo = rt ? 1 : -20, hi = rt ? 99 : 19, v;

	t->priority = rt ? DLGEN_RT_PRIO : 0;
	if (!spec_has(s, F_PRIO))
		return 0;
	if (dlgen_parse_long(s->f[F_PRIO], &v) || v < lo || v > hi)
		return spec_fail(s, F_PRIO, "\"%s\": %s %ld to %ld",
				 s->f[F_PRIO], rt ? "a priority from" :
				 "SCHED_OTHER takes a nice value from", lo, hi);
	t->priority = (int)v;
	return 0;
}

/*
 * The deadline: the sixth field as in rt-app 0.x, or for SCHED_DEADLINE,
 * which has no priority, the fifth.
 */
static int spec_deadline(struct spec *s, struct dlgen_task *t, uint64_t run,
			 uint64_t period, uint64_t *deadline)
{
	int field = F_DEADLINE;
	char buf[3][32];

	*deadline = period;
	if (t->policy == SCHED_DEADLINE && spec_has(s, F_PRIO)) {
		if (spec_has(s, F_DEADLINE))
			return spec_fail(s, F_DEADLINE,
					 "given twice: for d, the fifth field is the deadline too");
		field = F_PRIO;
	} else if (!spec_has(s, F_DEADLINE)) {
		return 0;
	}
	if (spec_duration(s, field, deadline))
		return -1;
	if (*deadline < run || *deadline > period)
		return spec_fail(s, field,
				 "%s is not between the run (%s) and the period (%s)",
				 format_duration(*deadline, buf[0], 32),
				 format_duration(run, buf[1], 32),
				 format_duration(period, buf[2], 32));
	return 0;
}

/* The periodic job of a -t task: run, then wait for the next period. */
static int spec_job(struct dlgen_task *t, uint64_t run, uint64_t period,
		    uint64_t deadline)
{
	struct dlgen_phase *p = dlgen_phase_add(t);
	struct dlgen_event *e;
	bool clash;

	if (!p || !dlgen_event_add(p) || !dlgen_event_add(p))
		return -1;
	e = p->events;
	e[0].type = DLGEN_RUN;
	e[0].ns = run;
	/* rt-app 0.x keeps its tasks' releases on the period's grid. */
	e[1].type = DLGEN_TIMER;
	e[1].ns = period;
	e[1].timer = dlgen_timer_of(t, "period", 1, &clash);
	if (e[1].timer < 0)
		return -1;
	t->runtime = run;
	t->deadline = deadline;
	t->period = period;
	dlgen_phase_finish(t, p);
	p->deadline = deadline;
	return 0;
}

static int spec_split(struct spec *s, char *copy)
{
	char *f;

	while ((f = strsep(&copy, ":"))) {
		if (s->n == F_MAX)
			return errf(s->err, s->errlen,
				    "-t %s: more than %d fields (PERIOD:RUN[:POLICY[:CPUS[:PRIO[:DEADLINE]]]])",
				    s->text, F_MAX);
		s->f[s->n++] = f;
	}
	if (s->n < 2)
		return errf(s->err, s->errlen,
			    "-t %s: run: missing (PERIOD:RUN[:POLICY...], in us)",
			    s->text);
	return 0;
}

static int spec_parse(struct spec *s, struct dlgen_task *t)
{
	uint64_t period, run, deadline;
	char buf[2][32];

	if (spec_duration(s, F_PERIOD, &period) ||
	    spec_duration(s, F_RUN, &run))
		return -1;
	if (run > period)
		return spec_fail(s, F_RUN, "%s is longer than the period (%s)",
				 format_duration(run, buf[0], 32),
				 format_duration(period, buf[1], 32));
	if (spec_policy(s, &t->policy))
		return -1;
	if (t->policy == SCHED_DEADLINE)
		s->names[F_PRIO] = "deadline";
	if (spec_has(s, F_CPUS)) {
		if (parse_cpus(s->f[F_CPUS], &t->cpus))
			return spec_fail(s, F_CPUS,
					 "\"%s\" is not a CPU list (0,2-3)",
					 s->f[F_CPUS]);
		/* The documentation's "f:10" means priority 10: help. */
		if (dlgen_cpu_missing(&t->cpus) >= 0)
			return spec_fail(s, F_CPUS,
					 "there is no CPU %d (this field is the CPU affinity, as in rt-app 0.x; a priority is the next: f:-:10)",
					 dlgen_cpu_missing(&t->cpus));
		t->has_cpus = true;
	}
	if (t->policy != SCHED_DEADLINE && spec_priority(s, t))
		return -1;
	if (spec_deadline(s, t, run, period, &deadline))
		return -1;
	if (spec_job(t, run, period, deadline))
		return errf(s->err, s->errlen, "out of memory");
	return 0;
}

int dlgen_task_spec(struct dlgen_conf *c, const char *spec, char *err,
		    size_t errlen)
{
	struct spec s = { .text = spec, .err = err, .errlen = errlen };
	char *copy = strdup(spec), name[16];
	struct dlgen_task *t;
	int r = -1;

	memcpy(s.names, field_names, sizeof(s.names));

	if (!copy)
		return errf(err, errlen, "out of memory");
	if (spec_split(&s, copy))
		goto out;
	snprintf(name, sizeof(name), "t%d", c->ntasks);
	t = dlgen_task_add(c);
	if (t)
		t->name = strdup(name);
	if (!t || !t->name) {
		errf(err, errlen, "out of memory");
		goto out;
	}
	r = spec_parse(&s, t);
out:
	free(copy);
	return r;
}

void dlgen_conf_free(struct dlgen_conf *c)
{
	int i, j;

	for (i = 0; i < c->ntasks; i++) {
		struct dlgen_task *t = &c->tasks[i];

		for (j = 0; j < t->nphases; j++)
			free(t->phases[j].events);
		for (j = 0; j < t->ntimers; j++)
			free(t->timers[j].ref);
		free(t->phases);
		free(t->timers);
		free(t->name);
	}
	free(c->tasks);
	c->tasks = NULL;
	c->ntasks = 0;
}
