// SPDX-License-Identifier: GPL-2.0
/*
 * The text trace, line by line.  A line is
 *
 *     COMM-PID [CPU] FLAGS SECONDS.MICROS: EVENT: FIELDS
 *
 * where COMM may hold spaces, dashes and brackets, and so may the comm
 * fields inside FIELDS: the head is read backwards from ": EVENT: ", and
 * the fields from the end of the line, each key searched leftwards.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

/* Beyond this a CPU number is taken for garbage. */
#define MAX_CPUS 4096

enum kind { EV_SWITCH, EV_WAKEUP, EV_WAKEUP_NEW, EV_MIGRATE, EV_KINDS };

static const char *const markers[EV_KINDS] = {
	[EV_SWITCH] = ": sched_switch: ",
	[EV_WAKEUP] = ": sched_wakeup: ",
	[EV_WAKEUP_NEW] = ": sched_wakeup_new: ",
	[EV_MIGRATE] = ": sched_migrate_task: ",
};

struct str {
	const char *s, *e;
};

/* One event: for a switch, [0] is prev and [1] next; else [0] the task. */
struct event {
	enum kind kind;
	int cpu;
	int64_t t;
	pid_t pid[2];
	int prio[2];
	struct str comm[2];
	struct str state;
};

/* The running task of a CPU, since when; pid -1 before its first switch. */
struct cpu_state {
	pid_t pid;
	int64_t since;
};

void *dlchart_grow(void *p, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap : 64;

	if (n < *cap)
		return p;
	while (c <= n)
		c *= 2;
	p = realloc(p, c * size);
	if (!p) {
		fputs("dlchart: out of memory\n", stderr);
		exit(1);
	}
	*cap = c;
	return p;
}

int dlchart_task_index(struct dlchart_trace *tr, pid_t pid, bool add)
{
	struct dlchart_task *t;
	size_t i;

	for (i = 0; i < tr->ntasks; i++)
		if (tr->tasks[i].pid == pid)
			return (int)i;
	if (!add)
		return -1;
	tr->tasks = dlchart_grow(tr->tasks, &tr->tasks_cap, tr->ntasks,
				 sizeof(*tr->tasks));
	t = &tr->tasks[tr->ntasks];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->colour = -1;
	t->throttled_at = -1;
	return (int)tr->ntasks++;
}

/* The last @needle in [s, e), or NULL. */
static const char *rfind(const char *s, const char *e, const char *needle)
{
	size_t n = strlen(needle), i;

	if ((size_t)(e - s) < n)
		return NULL;
	for (i = (size_t)(e - s) - n + 1; i-- > 0;)
		if (!memcmp(s + i, needle, n))
			return s + i;
	return NULL;
}

/* [s, e) as a decimal int, all of it. */
static bool to_int(struct str v, int *out)
{
	char buf[16], *end;
	size_t n = (size_t)(v.e - v.s);
	long x;

	if (!n || n >= sizeof(buf))
		return false;
	memcpy(buf, v.s, n);
	buf[n] = '\0';
	errno = 0;
	x = strtol(buf, &end, 10);
	if (errno || *end || x < INT_MIN || x > INT_MAX ||
	    isspace((unsigned char)buf[0]))
		return false;
	*out = (int)x;
	return true;
}

/*
 * Splits FIELDS [s, e) into @out by @keys, given from the right: every
 * key but the last starts with a space, the last opens the text.
 */
static bool split(const char *s, const char *e, const char *const *keys,
		  int n, struct str *out)
{
	int i;

	for (i = 0; i < n - 1; i++) {
		const char *k = rfind(s, e, keys[i]);

		if (!k)
			return false;
		out[i].s = k + strlen(keys[i]);
		out[i].e = e;
		e = k;
	}
	if ((size_t)(e - s) < strlen(keys[n - 1]) ||
	    strncmp(s, keys[n - 1], strlen(keys[n - 1])))
		return false;
	out[n - 1].s = s + strlen(keys[n - 1]);
	out[n - 1].e = e;
	return true;
}

static bool parse_switch(const char *s, const char *e, struct event *ev)
{
	static const char *const keys[] = {
		" next_prio=", " next_pid=", " ==> next_comm=",
		" prev_state=", " prev_prio=", " prev_pid=", "prev_comm=",
	};
	struct str f[7];

	if (!split(s, e, keys, 7, f) || f[3].s == f[3].e)
		return false;
	ev->comm[1] = f[2];
	ev->state = f[3];
	ev->comm[0] = f[6];
	return to_int(f[0], &ev->prio[1]) && to_int(f[1], &ev->pid[1]) &&
	       to_int(f[4], &ev->prio[0]) && to_int(f[5], &ev->pid[0]);
}

/* sched_wakeup, sched_wakeup_new and sched_migrate_task */
static bool parse_task_event(const char *s, const char *e, struct event *ev)
{
	static const char *const wakeup[] = {
		" target_cpu=", " prio=", " pid=", "comm=",
	};
	static const char *const migrate[] = {
		" dest_cpu=", " orig_cpu=", " prio=", " pid=", "comm=",
	};
	const char *const *keys = ev->kind == EV_MIGRATE ? migrate : wakeup;
	int n = ev->kind == EV_MIGRATE ? 5 : 4, cpu;
	struct str f[5];

	if (!split(s, e, keys, n, f) || !to_int(f[0], &cpu))
		return false;
	if (ev->kind == EV_MIGRATE && !to_int(f[1], &cpu))
		return false;
	ev->comm[0] = f[n - 1];
	return to_int(f[n - 2], &ev->pid[0]) && to_int(f[n - 3], &ev->prio[0]);
}

/* SECONDS.FRACTION in [s, e) as ns. */
static bool to_ns(const char *s, const char *e, int64_t *ns)
{
	int64_t sec = 0, frac = 0, scale = 1000000000;
	const char *p = s;

	for (; p < e && isdigit((unsigned char)*p); p++) {
		if (p - s >= 10)
			return false;
		sec = sec * 10 + (*p - '0');
	}
	if (p == s || p == e || *p++ != '.' || p == e)
		return false;
	for (; p < e && isdigit((unsigned char)*p); p++) {
		if (scale > 1) {
			scale /= 10;
			frac += (*p - '0') * scale;
		}
	}
	if (p != e)
		return false;
	*ns = sec * 1000000000 + frac;
	return true;
}

static const char *skip_back(const char *line, const char *p, bool space)
{
	while (p > line && !!isspace((unsigned char)p[-1]) == space)
		p--;
	return p;
}

/*
 * The head of a line, read backwards from @m, the marker after the
 * timestamp: "[CPU]", the flags if shown, "SECONDS.FRACTION".
 */
static bool parse_head(const char *line, const char *m, struct event *ev)
{
	const char *p = skip_back(line, m, false), *close;
	int cpu;

	if (!to_ns(p, m, &ev->t) || p == line)
		return false;
	p = skip_back(line, p, true);
	if (p > line && p[-1] != ']')
		p = skip_back(line, skip_back(line, p, false), true);
	if (p == line || p[-1] != ']')
		return false;
	close = --p;
	while (p > line && isdigit((unsigned char)p[-1]))
		p--;
	if (p == line || p[-1] != '[' ||
	    !to_int((struct str){ p, close }, &cpu) || cpu >= MAX_CPUS)
		return false;
	ev->cpu = cpu;
	return true;
}

static bool parse_line(const char *line, struct event *ev)
{
	const char *m = NULL, *e = line + strlen(line), *s;
	int k;

	for (k = 0; k < EV_KINDS; k++) {
		const char *p = strstr(line, markers[k]);

		if (p && (!m || p < m)) {
			m = p;
			ev->kind = (enum kind)k;
		}
	}
	if (!m || !parse_head(line, m, ev))
		return false;
	s = m + strlen(markers[ev->kind]);
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	if (ev->kind == EV_SWITCH)
		return parse_switch(s, e, ev);
	return parse_task_event(s, e, ev);
}

/* The task of @pid, its name and kind brought up to date by an event. */
static int note_task(struct dlchart_trace *tr, pid_t pid, struct str comm,
		     int prio)
{
	int i = dlchart_task_index(tr, pid, true);
	struct dlchart_task *t = &tr->tasks[i];
	size_t n = (size_t)(comm.e - comm.s);

	if (n >= sizeof(t->name))
		n = sizeof(t->name) - 1;
	memcpy(t->name, comm.s, n);
	t->name[n] = '\0';
	if (prio == -1)
		t->deadline = true;
	return i;
}

static void add_span(struct dlchart_span **v, size_t *n, size_t *cap,
		     int64_t t0, int64_t t1, int cpu, int task)
{
	*v = dlchart_grow(*v, cap, *n, sizeof(**v));
	(*v)[(*n)++] = (struct dlchart_span){ t0, t1, cpu, task };
}

/* "R" or "R+": switched out while runnable (preempted, or throttled). */
static bool runnable(struct str st)
{
	size_t n = (size_t)(st.e - st.s);

	return st.s[0] == 'R' && (n == 1 || (n == 2 && st.s[1] == '+'));
}

/*
 * A stopper thread (migration/N, at the top RT priority) takes the CPU
 * from a task to move it elsewhere: not a throttle.
 */
static bool stopper(const struct event *ev)
{
	return ev->prio[1] == 0 && ev->comm[1].e - ev->comm[1].s > 10 &&
	       !strncmp(ev->comm[1].s, "migration/", 10);
}

/*
 * A deadline task switched out runnable, for idle or for a task of a
 * lower class, cannot be waiting for the CPU: its runtime ran out.
 */
static void note_throttle(struct dlchart_trace *tr, const struct event *ev,
			  int prev)
{
	struct dlchart_task *t = &tr->tasks[prev];

	if (ev->prio[0] != -1 || !runnable(ev->state) || ev->prio[1] == -1 ||
	    stopper(ev))
		return;
	t->throttled_at = ev->t;
	t->throttled_cpu = ev->cpu;
}

static void end_throttle(struct dlchart_trace *tr, int i, int64_t t)
{
	struct dlchart_task *task = &tr->tasks[i];

	if (task->throttled_at < 0)
		return;
	add_span(&tr->throttles, &tr->nthrottles, &tr->throttles_cap,
		 task->throttled_at, t, task->throttled_cpu, i);
	task->throttled_at = -1;
}

static struct cpu_state *cpu_of(struct cpu_state **cpus, int *n, int cpu)
{
	size_t cap = (size_t)*n;

	if (cpu >= *n) {
		*cpus = dlchart_grow(*cpus, &cap, (size_t)cpu, sizeof(**cpus));
		for (; *n < (int)cap; (*n)++)
			(*cpus)[*n].pid = -1;
	}
	return &(*cpus)[cpu];
}

/*
 * Before a CPU's first switch its task is unknown but for the switch's
 * prev, which is taken to have run since the trace began.
 */
static void apply_switch(struct dlchart_trace *tr, const struct event *ev,
			 struct cpu_state *c)
{
	int prev = -1, next = -1;

	tr->switches++;
	if (ev->pid[0])
		prev = note_task(tr, ev->pid[0], ev->comm[0], ev->prio[0]);
	if (ev->pid[1])
		next = note_task(tr, ev->pid[1], ev->comm[1], ev->prio[1]);
	if (prev >= 0) {
		add_span(&tr->runs, &tr->nruns, &tr->runs_cap,
			 c->pid >= 0 ? c->since : tr->first, ev->t, ev->cpu,
			 prev);
		note_throttle(tr, ev, prev);
	}
	if (next >= 0)
		end_throttle(tr, next, ev->t);
	c->pid = ev->pid[1];
	c->since = ev->t;
}

/* What is still running or throttled when the trace ends, ends there. */
static void finish(struct dlchart_trace *tr, struct cpu_state *cpus, int n)
{
	size_t i;
	int c;

	for (c = 0; c < n; c++) {
		if (cpus[c].pid <= 0)
			continue;
		add_span(&tr->runs, &tr->nruns, &tr->runs_cap, cpus[c].since,
			 tr->last, c,
			 dlchart_task_index(tr, cpus[c].pid, false));
	}
	for (i = 0; i < tr->ntasks; i++)
		end_throttle(tr, (int)i, tr->last);
}

static void apply(struct dlchart_trace *tr, const struct event *ev,
		  struct cpu_state **cpus, int *ncpus)
{
	struct cpu_state *c = cpu_of(cpus, ncpus, ev->cpu);

	if (!tr->events)
		tr->first = ev->t;
	tr->last = ev->t;
	tr->events++;
	if (ev->cpu >= tr->ncpus)
		tr->ncpus = ev->cpu + 1;
	if (ev->kind == EV_SWITCH)
		apply_switch(tr, ev, c);
	else if (ev->pid[0] != 0)
		note_task(tr, ev->pid[0], ev->comm[0], ev->prio[0]);
}

int dlchart_trace_read(FILE *f, struct dlchart_trace *tr)
{
	struct cpu_state *cpus = NULL;
	size_t len = 0;
	char *line = NULL;
	int ncpus = 0;

	memset(tr, 0, sizeof(*tr));
	while (getline(&line, &len, f) >= 0) {
		const char *p = line + strspn(line, " \t\r\n");
		struct event ev;

		if (!*p || *p == '#')
			continue;
		if (parse_line(line, &ev))
			apply(tr, &ev, &cpus, &ncpus);
		else
			tr->skipped++;
	}
	free(line);
	finish(tr, cpus, ncpus);
	free(cpus);
	return ferror(f) ? -1 : 0;
}

void dlchart_trace_free(struct dlchart_trace *tr)
{
	free(tr->tasks);
	free(tr->runs);
	free(tr->throttles);
	memset(tr, 0, sizeof(*tr));
}
