// SPDX-License-Identifier: GPL-2.0
/*
 * rt-app's JSON task files, as far as dlgen runs them, into dlgen's
 * model.  The events of a task or phase are its members run, sleep and
 * timer (and those names followed by digits, as rt-app's workgen numbers
 * repeated keys), in the order the file gives them; the other members
 * are the task's or phase's properties.  rt-app ignores what it does not
 * know; dlgen names it and stops, since a run that silently does less
 * than the file says would be worse than none.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dlabi.h"
#include "conf.h"
#include "json.h"
#include "units.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NAME_MAX_LEN 48
#define MAX_INSTANCES 256

struct jctx {
	struct dlgen_conf *c;
	int default_policy;
	char *err;
	size_t errlen;
};

static int jfail(struct jctx *x, const char *path,
		 const struct dlgen_json *v, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "PATH.KEY: message", the key being @v's (none when @v is NULL). */
static int jfail(struct jctx *x, const char *path,
		 const struct dlgen_json *v, const char *fmt, ...)
{
	const char *key = v && v->key ? v->key : "";
	int n = snprintf(x->err, x->errlen, "%s%s%s%s", path,
			 *key && *path ? "." : "", key,
			 *key || *path ? ": " : "");
	va_list ap;

	if (n < 0 || (size_t)n >= x->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(x->err + n, x->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static int jtype(struct jctx *x, const char *path, const struct dlgen_json *v,
		 enum dlgen_json_type type)
{
	if (v->type == type)
		return 0;
	return jfail(x, path, v, "%s expected, not %s",
		     dlgen_json_type_name(type), dlgen_json_type_name(v->type));
}

/* A number of @bare units, or a string with a unit ("10ms"). */
static int jduration(struct jctx *x, const char *path,
		     const struct dlgen_json *v, uint64_t bare, uint64_t *ns)
{
	if (v->type != DLGEN_JSON_NUMBER && v->type != DLGEN_JSON_STRING)
		return jfail(x, path, v,
			     "a duration expected (a number, or a string with a unit: \"10ms\"), not %s",
			     dlgen_json_type_name(v->type));
	if (parse_duration(v->str, bare, ns))
		return jfail(x, path, v, "\"%s\" is not a duration", v->str);
	return 0;
}

static int jint(struct jctx *x, const char *path, const struct dlgen_json *v,
		long lo, long hi, long *out)
{
	if (jtype(x, path, v, DLGEN_JSON_NUMBER))
		return -1;
	if (dlgen_parse_long(v->str, out))
		return jfail(x, path, v, "an integer expected, not %s", v->str);
	if (*out < lo || *out > hi)
		return jfail(x, path, v, "%ld is not from %ld to %ld", *out, lo,
			     hi);
	return 0;
}

static int jpolicy(struct jctx *x, const char *path,
		   const struct dlgen_json *v, int *policy)
{
	static const struct {
		const char *name;
		int policy;
	} p[] = {
		{ "SCHED_OTHER", SCHED_OTHER }, { "SCHED_FIFO", SCHED_FIFO },
		{ "SCHED_RR", SCHED_RR }, { "SCHED_DEADLINE", SCHED_DEADLINE },
	};
	size_t i;

	if (jtype(x, path, v, DLGEN_JSON_STRING))
		return -1;
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		if (!strcmp(v->str, p[i].name)) {
			*policy = p[i].policy;
			return 0;
		}
	}
	return jfail(x, path, v,
		     "\"%s\": unsupported policy (SCHED_OTHER, SCHED_FIFO, SCHED_RR or SCHED_DEADLINE)",
		     v->str);
}

/* The event a key names: run, sleep or timer, then digits; or -1. */
static int event_type(const char *key)
{
	static const char *const names[] = {
		[DLGEN_RUN] = "run", [DLGEN_SLEEP] = "sleep",
		[DLGEN_TIMER] = "timer",
	};
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		n = strlen(names[i]);
		if (strncmp(key, names[i], n))
			continue;
		for (; key[n]; n++)
			if (key[n] < '0' || key[n] > '9')
				return -1;
		return (int)i;
	}
	return -1;
}

static const struct dlgen_json *member(const struct dlgen_json *obj,
				       const char *key)
{
	const struct dlgen_json *m;

	for (m = obj->child; m; m = m->next)
		if (!strcmp(m->key, key))
			return m;
	return NULL;
}

/* A timer event: { "ref": NAME, "period": DURATION[, "mode": ...] }. */
static int jtimer(struct jctx *x, const char *path,
		  const struct dlgen_json *v, struct dlgen_task *t,
		  struct dlgen_event *e)
{
	const struct dlgen_json *m, *ref = NULL, *period = NULL, *mode = NULL;
	char here[256];
	int absolute = -1;
	bool clash;

	if (jtype(x, path, v, DLGEN_JSON_OBJECT))
		return -1;
	snprintf(here, sizeof(here), "%s.%s", path, v->key);
	for (m = v->child; m; m = m->next) {
		const struct dlgen_json **slot = !strcmp(m->key, "ref") ? &ref :
			!strcmp(m->key, "period") ? &period :
			!strcmp(m->key, "mode") ? &mode : NULL;

		if (!slot)
			return jfail(x, here, m, "unsupported key");
		if (*slot)
			return jfail(x, here, m, "duplicate key");
		*slot = m;
	}
	if (!ref || !period)
		return jfail(x, here, NULL,
			     "a timer needs a \"ref\" and a \"period\"");
	if (jtype(x, here, ref, DLGEN_JSON_STRING) ||
	    jduration(x, here, period, UNIT_US, &e->ns))
		return -1;
	if (!e->ns)
		return jfail(x, here, period, "must not be 0");
	if (mode) {
		if (jtype(x, here, mode, DLGEN_JSON_STRING))
			return -1;
		absolute = !strcmp(mode->str, "absolute");
		if (!absolute && strcmp(mode->str, "relative"))
			return jfail(x, here, mode,
				     "\"%s\" is neither \"relative\" nor \"absolute\"",
				     mode->str);
	}
	e->timer = dlgen_timer_of(t, ref->str, absolute, &clash);
	if (e->timer < 0)
		return jfail(x, here, NULL, "out of memory");
	if (clash)
		return jfail(x, here, mode,
			     "timer \"%s\" is used with another mode elsewhere",
			     ref->str);
	return 0;
}

static int jevent(struct jctx *x, const char *path,
		  const struct dlgen_json *v, struct dlgen_task *t,
		  struct dlgen_phase *p)
{
	struct dlgen_event *e = dlgen_event_add(p);

	if (!e)
		return jfail(x, path, NULL, "out of memory");
	e->type = event_type(v->key);
	if (e->type == DLGEN_TIMER)
		return jtimer(x, path, v, t, e);
	if (jduration(x, path, v, UNIT_US, &e->ns))
		return -1;
	if (e->type == DLGEN_RUN && !e->ns)
		return jfail(x, path, v, "must not be 0");
	return 0;
}

/*
 * The events of a phase, in the order of its keys; @own says it is a
 * phase object, where "loop" is the phase's and nothing else may be.
 */
static int jphase(struct jctx *x, const char *path,
		  const struct dlgen_json *obj, struct dlgen_task *t, bool own)
{
	struct dlgen_phase *p = dlgen_phase_add(t);
	const struct dlgen_json *m;
	bool seen_loop = false;
	int runs = 0;

	if (!p)
		return jfail(x, path, NULL, "out of memory");
	for (m = obj->child; m; m = m->next) {
		if (event_type(m->key) >= 0) {
			if (jevent(x, path, m, t, p))
				return -1;
			runs += event_type(m->key) == DLGEN_RUN;
		} else if (own && !strcmp(m->key, "loop")) {
			if (seen_loop)
				return jfail(x, path, m, "duplicate key");
			seen_loop = true;
			if (jint(x, path, m, 1, LONG_MAX, &p->loop))
				return -1;
		} else if (own) {
			return jfail(x, path, m, "unsupported key");
		}
	}
	if (!runs)
		return jfail(x, path, NULL, "no run event: a job must run");
	return 0;
}

static int jphases(struct jctx *x, const char *path,
		   const struct dlgen_json *v, struct dlgen_task *t)
{
	const struct dlgen_json *m;
	char phases[256], here[512];

	if (jtype(x, path, v, DLGEN_JSON_OBJECT))
		return -1;
	if (!v->child)
		return jfail(x, path, v, "no phase");
	snprintf(phases, sizeof(phases), "%s.phases", path);
	for (m = v->child; m; m = m->next) {
		snprintf(here, sizeof(here), "%s.%s", phases, m->key);
		/* jfail() adds the phase's name to the path it is given */
		if (jtype(x, phases, m, DLGEN_JSON_OBJECT) ||
		    jphase(x, here, m, t, true))
			return -1;
	}
	return 0;
}

static int jcpus(struct jctx *x, const char *path, const struct dlgen_json *v,
		 struct dlgen_task *t)
{
	const struct dlgen_json *e;
	long cpu;

	if (jtype(x, path, v, DLGEN_JSON_ARRAY))
		return -1;
	if (!v->child)
		return jfail(x, path, v, "no CPU");
	CPU_ZERO(&t->cpus);
	for (e = v->child; e; e = e->next) {
		if (e->type != DLGEN_JSON_NUMBER || dlgen_parse_long(e->str, &cpu) ||
		    cpu < 0 || cpu >= CPU_SETSIZE)
			return jfail(x, path, v, "CPU numbers expected");
		CPU_SET(cpu, &t->cpus);
	}
	if (dlgen_cpu_missing(&t->cpus) >= 0)
		return jfail(x, path, v, "there is no CPU %d",
			     dlgen_cpu_missing(&t->cpus));
	t->has_cpus = true;
	return 0;
}

enum {
	K_LOOP, K_INSTANCE, K_POLICY, K_PRIORITY, K_RUNTIME, K_PERIOD,
	K_DEADLINE, K_CPUS, K_PHASES, K_N
};

static const char *const task_keys[K_N] = {
	"loop", "instance", "policy", "priority", "dl-runtime", "dl-period",
	"dl-deadline", "cpus", "phases",
};

/* The task's own keys into @k; events are left to the phase. */
static int jtask_keys(struct jctx *x, const char *path,
		      const struct dlgen_json *obj,
		      const struct dlgen_json *k[K_N], bool *events)
{
	const struct dlgen_json *m;
	int i;

	*events = false;
	for (m = obj->child; m; m = m->next) {
		if (event_type(m->key) >= 0) {
			*events = true;
			continue;
		}
		for (i = 0; i < K_N && strcmp(m->key, task_keys[i]); i++)
			;
		if (i == K_N)
			return jfail(x, path, m, "unsupported key");
		if (k[i])
			return jfail(x, path, m, "duplicate key");
		k[i] = m;
	}
	return 0;
}

/* rt-app's defaults: the period is the runtime, the deadline the period. */
static int jdeadline(struct jctx *x, const char *path,
		     const struct dlgen_json *k[K_N], struct dlgen_task *t)
{
	int i;

	if (t->policy != SCHED_DEADLINE) {
		for (i = K_RUNTIME; i <= K_DEADLINE; i++)
			if (k[i])
				return jfail(x, path, k[i],
					     "only for SCHED_DEADLINE");
		return 0;
	}
	if (!k[K_RUNTIME])
		return jfail(x, path, NULL, "SCHED_DEADLINE needs dl-runtime");
	if (jduration(x, path, k[K_RUNTIME], UNIT_US, &t->runtime))
		return -1;
	t->period = t->runtime;
	if (k[K_PERIOD] &&
	    jduration(x, path, k[K_PERIOD], UNIT_US, &t->period))
		return -1;
	t->deadline = t->period;
	if (k[K_DEADLINE] &&
	    jduration(x, path, k[K_DEADLINE], UNIT_US, &t->deadline))
		return -1;
	if (!t->runtime || t->runtime > t->deadline || t->deadline > t->period)
		return jfail(x, path, NULL,
			     "0 < dl-runtime <= dl-deadline <= dl-period does not hold");
	return 0;
}

static int jpriority(struct jctx *x, const char *path,
		     const struct dlgen_json *v, struct dlgen_task *t)
{
	bool rt = t->policy == SCHED_FIFO || t->policy == SCHED_RR;
	long prio;

	t->priority = rt ? DLGEN_RT_PRIO : 0;
	if (!v)
		return 0;
	if (t->policy == SCHED_DEADLINE)
		return jfail(x, path, v, "SCHED_DEADLINE has no priority");
	if (jint(x, path, v, rt ? 1 : -20, rt ? 99 : 19, &prio))
		return -1;
	t->priority = (int)prio;
	return 0;
}

static int jtask_sched(struct jctx *x, const char *path,
		       const struct dlgen_json *k[K_N], struct dlgen_task *t)
{
	long v;

	t->policy = x->default_policy;
	if (k[K_POLICY] && jpolicy(x, path, k[K_POLICY], &t->policy))
		return -1;
	if (jpriority(x, path, k[K_PRIORITY], t) || jdeadline(x, path, k, t))
		return -1;
	if (k[K_LOOP]) {
		if (jint(x, path, k[K_LOOP], -1, LONG_MAX, &t->loop))
			return -1;
		if (!t->loop)
			return jfail(x, path, k[K_LOOP],
				     "0 is neither -1 (until the end) nor a count");
	}
	if (k[K_INSTANCE]) {
		if (jint(x, path, k[K_INSTANCE], 0, MAX_INSTANCES, &v))
			return -1;
		t->instances = (int)v;
	}
	return k[K_CPUS] ? jcpus(x, path, k[K_CPUS], t) : 0;
}

/* Names go into the CSV log and thread names unquoted: keep them plain. */
static int jname(struct jctx *x, const struct dlgen_json *v)
{
	static const char plain[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
	const char *s;

	for (s = v->key; *s; s++)
		if (!strchr(plain, *s))
			break;
	if (!*v->key || *s || s - v->key > NAME_MAX_LEN)
		return jfail(x, "tasks", v,
			     "a task name is 1 to %d letters, digits, '_', '.' or '-'",
			     NAME_MAX_LEN);
	return 0;
}

static int jtask(struct jctx *x, const struct dlgen_json *v)
{
	const struct dlgen_json *k[K_N] = { NULL };
	struct dlgen_task *t;
	char path[128];
	bool events;
	int i;

	if (jname(x, v))
		return -1;
	snprintf(path, sizeof(path), "tasks.%s", v->key);
	for (i = 0; i < x->c->ntasks; i++)
		if (!strcmp(x->c->tasks[i].name, v->key))
			return jfail(x, path, NULL, "a second task of that name");
	if (jtype(x, "tasks", v, DLGEN_JSON_OBJECT) ||
	    jtask_keys(x, path, v, k, &events))
		return -1;
	t = dlgen_task_add(x->c);
	if (t)
		t->name = strdup(v->key);
	if (!t || !t->name)
		return jfail(x, path, NULL, "out of memory");
	if (jtask_sched(x, path, k, t))
		return -1;
	if (k[K_PHASES] && events)
		return jfail(x, path, NULL,
			     "events beside \"phases\": put them in a phase");
	if (k[K_PHASES] ? jphases(x, path, k[K_PHASES], t) :
			  jphase(x, path, v, t, false))
		return -1;
	for (i = 0; i < t->nphases; i++)
		dlgen_phase_finish(t, &t->phases[i]);
	return 0;
}

/*
 * rt-app shares a timer between the threads that name it, unless its name
 * starts with "unique"; the tutorial itself calls the result disturbed.
 * dlgen's timers are per thread, so a file relying on sharing is refused.
 */
/* A task after @i that has a timer named @ref; or -1. */
static int timer_elsewhere(const struct dlgen_conf *c, int i, const char *ref)
{
	int j, k;

	for (j = i + 1; j < c->ntasks; j++)
		for (k = 0; k < c->tasks[j].ntimers; k++)
			if (!strcmp(ref, c->tasks[j].timers[k].ref))
				return j;
	return -1;
}

static int jtimers_unshared(struct jctx *x)
{
	const struct dlgen_conf *c = x->c;
	char path[128];
	int i, j, k;

	for (i = 0; i < c->ntasks; i++) {
		snprintf(path, sizeof(path), "tasks.%s", c->tasks[i].name);
		for (k = 0; k < c->tasks[i].ntimers; k++) {
			const char *ref = c->tasks[i].timers[k].ref;

			if (!strncmp(ref, "unique", 6))
				continue;
			if (c->tasks[i].instances > 1)
				return jfail(x, path, NULL,
					     "timer \"%s\" would be shared by the instances: name it \"unique...\"",
					     ref);
			j = timer_elsewhere(c, i, ref);
			if (j >= 0)
				return jfail(x, path, NULL,
					     "timer \"%s\" is also tasks.%s's: shared timers are not supported",
					     ref,
					     c->tasks[j].name);
		}
	}
	return 0;
}

static int jtasks(struct jctx *x, const struct dlgen_json *v)
{
	const struct dlgen_json *m;

	if (jtype(x, "", v, DLGEN_JSON_OBJECT))
		return -1;
	if (!v->child)
		return jfail(x, "", v, "no task");
	for (m = v->child; m; m = m->next)
		if (jtask(x, m))
			return -1;
	return jtimers_unshared(x);
}

/* rt-app's global keys that change nothing dlgen does, and why. */
static const struct {
	const char *key, *why;
} ignored[] = {
	{ "calibration",
	  "run events burn thread CPU time: nothing to calibrate"},
	{ "logdir", "dlgen writes one job log: see --log" },
	{ "log_basename", "dlgen writes one job log: see --log" },
	{ "log_size", "dlgen keeps the job log in memory until the end" },
	{ "gnuplot", "dlgen writes one job log: see --log" },
	{ "ftrace", "dlgen writes no trace marks" },
	{ "lock_pages",
	  "dlgen's buffers are allocated and touched before the start"},
	{ "pi_enabled", "dlgen has no mutexes" },
	{ "cumulative_slack", "the job log has each job's slack" },
	{ "io_device", "dlgen has no iorun events" },
	{ "mem_buffer_size", "dlgen has no mem events" },
};

static int jglobal_key(struct jctx *x, const struct dlgen_json *m)
{
	uint64_t ns;
	size_t i;

	if (!strcmp(m->key, "default_policy"))
		return jpolicy(x, "global", m, &x->default_policy);
	if (!strcmp(m->key, "duration")) {
		/* rt-app's -1: until the tasks end */
		if (m->type == DLGEN_JSON_NUMBER && !strcmp(m->str, "-1")) {
			x->c->duration = -1;
			return 0;
		}
		if (jduration(x, "global", m, UNIT_S, &ns))
			return -1;
		if (!ns || ns > INT64_MAX)
			return jfail(x, "global", m, "must be -1 or more than 0");
		x->c->duration = (int64_t)ns;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(ignored); i++) {
		if (!strcmp(m->key, ignored[i].key)) {
			fprintf(stderr, "%s: note: global.%s ignored: %s\n",
				dlgen_prog, m->key, ignored[i].why);
			return 0;
		}
	}
	return jfail(x, "global", m, "unsupported key");
}

static int jglobal(struct jctx *x, const struct dlgen_json *v)
{
	const struct dlgen_json *m, *d;

	if (jtype(x, "", v, DLGEN_JSON_OBJECT))
		return -1;
	for (m = v->child; m; m = m->next) {
		for (d = v->child; d != m; d = d->next)
			if (!strcmp(d->key, m->key))
				return jfail(x, "global", m, "duplicate key");
		if (jglobal_key(x, m))
			return -1;
	}
	return 0;
}

static int jroot(struct jctx *x, const struct dlgen_json *root)
{
	const struct dlgen_json *m, *global, *tasks;

	if (root->type != DLGEN_JSON_OBJECT)
		return jfail(x, "", NULL, "the file is %s, not an object",
			     dlgen_json_type_name(root->type));
	for (m = root->child; m; m = m->next) {
		if (strcmp(m->key, "global") && strcmp(m->key, "tasks"))
			return jfail(x, "", m, "unsupported key");
		if (member(root, m->key) != m)
			return jfail(x, "", m, "duplicate key");
	}
	global = member(root, "global");
	tasks = member(root, "tasks");
	if (!tasks)
		return jfail(x, "tasks", NULL, "missing");
	/* The global object first: its default_policy applies to the tasks. */
	if (global && jglobal(x, global))
		return -1;
	return jtasks(x, tasks);
}

int dlgen_conf_json(struct dlgen_conf *c, const char *text, size_t len,
		    char *err, size_t errlen)
{
	struct jctx x = {
		.c = c, .default_policy = SCHED_OTHER, .err = err,
		.errlen = errlen,
	};
	struct dlgen_json *root = dlgen_json_parse(text, len, err, errlen);
	int r;

	if (!root)
		return -1;
	r = jroot(&x, root);
	dlgen_json_free(root);
	return r;
}
