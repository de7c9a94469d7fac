// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "trace.h"

#define TRACEFS "/sys/kernel/tracing"

static int put(const char *file, const char *val)
{
	char path[128];
	FILE *f;
	int r;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	f = fopen(path, "w");
	if (!f)
		return -1;
	r = fputs(val, f) < 0;
	r |= fclose(f) != 0;
	return r ? -1 : 0;
}

/*
 * The events trace_start_with() may turn on, with the TRACE_* bits that
 * ask for each (0: always).  Turning an event on or off patches kernel
 * text: the tracepoint's static key and static call.  A guest of several
 * vCPUs under multi-threaded TCG has been seen, twice in some hundred
 * boots, to execute the patching breakpoint after the patch was done
 * ("Oops: int3" in __schedule() and ttwu_do_activate(), on both
 * kernels), so such guests turn these events on at boot, before the
 * other CPUs start (trace_event= on the command line), and tracing here
 * leaves an event as it found it.
 */
static const struct {
	const char *file;
	unsigned int what;
} events[] = {
	{ "events/sched/sched_switch/enable", 0 },
	{ "events/sched/sched_wakeup/enable", 0 },
	{ "events/sched/sched_wakeup_new/enable", 0 },
	{ "events/timer/hrtimer_start/enable", TRACE_DL_TIMERS },
	{ "events/timer/hrtimer_expire_entry/enable",
	  TRACE_DL_TIMERS | TRACE_TICKS },
	{ "events/sched/sched_migrate_task/enable", TRACE_MIGRATIONS },
};
#define NEVENTS (sizeof(events) / sizeof(events[0]))

/* The events this trace turned on, to turn off at its end; its bits. */
static bool turned_on[NEVENTS];
static unsigned int traced;

/* Whether an event's enable file reads 1 (also "1*", on in soft mode). */
static bool is_on(const char *file)
{
	char path[128], c = 0;
	FILE *f;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fread(&c, 1, 1, f) != 1)
		c = 0;
	fclose(f);
	return c == '1';
}

int trace_start_with(unsigned int what)
{
	struct stat st;
	size_t i;

	if (stat(TRACEFS "/trace", &st) &&
	    mount("tracefs", TRACEFS, "tracefs", 0, NULL))
		return -1;
	if (put("tracing_on", "0") || put("trace", "") ||
	    put("trace_clock", "mono") || put("buffer_size_kb", "8192"))
		return -1;
	traced = what;
	for (i = 0; i < NEVENTS; i++) {
		turned_on[i] = false;
		if (events[i].what && !(events[i].what & what))
			continue;
		if (is_on(events[i].file))
			continue;
		if (put(events[i].file, "1"))
			return -1;
		turned_on[i] = true;
	}
	return put("tracing_on", "1");
}

/*
 * Whether @ev is of an event the trace asked for: one left on at boot
 * records into the same buffer.
 */
static bool asked_for(const struct trace_ev *ev)
{
	switch (ev->kind) {
	case TR_DL_TIMER_ARM:
	case TR_DL_TIMER_FIRE:
		return traced & TRACE_DL_TIMERS;
	case TR_TICK:
		return traced & (TRACE_DL_TIMERS | TRACE_TICKS);
	case TR_MIGRATE:
		return traced & TRACE_MIGRATIONS;
	default:
		return true;
	}
}

int trace_start(void)
{
	return trace_start_with(0);
}

/* Whether the symbol at @fn, up to a blank, is @name. */
static bool fn_is(const char *fn, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(fn, name, n) && (!fn[n] || isspace((unsigned char)fn[n]));
}

/*
 * The replenishment timer's callback: dl_task_timer() in the tree's
 * class (kernel/sched/deadline.c), dl_timer_fire() in ours (dl_cbs.c).
 */
static bool dl_timer_fn(const char *fn)
{
	return fn_is(fn, "dl_task_timer") || fn_is(fn, "dl_timer_fire");
}

/*
 * The task the line's CPU ran, from the "COMM-PID [CPU]" that opens it
 * (@bracket points at the '['); -1 if there is none.
 */
static pid_t context_pid(const char *line, const char *bracket)
{
	const char *q = bracket;

	while (q > line && q[-1] == ' ')
		q--;
	while (q > line && isdigit((unsigned char)q[-1]))
		q--;
	if (q == bracket || q == line || q[-1] != '-')
		return -1;
	return (pid_t)atoi(q);
}

/* One line of the text trace; 1 if it is an event of ours. */
static int parse_line(const char *line, struct trace_ev *ev)
{
	const char *p = strchr(line, '[');
	const char *bracket = p, *ev_name, *fn, *tm;
	unsigned long sec, usec;

	if (!p || sscanf(p, "[%d]", &ev->cpu) != 1)
		return 0;
	ev->timer = 0;
	ev->target = -1;
	p = strchr(p, ']');
	/* after the flags field, "SECONDS.MICROS: event:" */
	while (p && *p && sscanf(p, " %lu.%lu:", &sec, &usec) != 2)
		p = strchr(p + 1, ' ');
	if (!p || !*p)
		return 0;
	ev->t = (int64_t)sec * 1000000000 + (int64_t)usec * 1000;
	if ((ev_name = strstr(p, "sched_switch: "))) {
		const char *n = strstr(ev_name, "==> ");
		const char *ps = strstr(ev_name, "prev_state=");
		const char *pp = strstr(ev_name, "prev_pid=");
		const char *np = n ? strstr(n, "next_pid=") : NULL;

		ev->kind = TR_SWITCH;
		if (!ps || !pp || !np ||
		    sscanf(pp, "prev_pid=%d", &ev->prev) != 1 ||
		    sscanf(np, "next_pid=%d", &ev->pid) != 1)
			return 0;
		ev->prev_state = ps[11];
		return 1;
	}
	if ((ev_name = strstr(p, "hrtimer_start: ")) ||
	    (ev_name = strstr(p, "hrtimer_expire_entry: "))) {
		bool armed = !strncmp(ev_name, "hrtimer_start", 13);

		fn = strstr(ev_name, " function=");
		tm = strstr(ev_name, "hrtimer=");
		if (!fn || !tm || sscanf(tm, "hrtimer=%" SCNx64, &ev->timer) != 1)
			return 0;
		ev->pid = context_pid(line, bracket);
		ev->prev = 0;
		ev->prev_state = 0;
		/* The tick: tick_sched_timer() was renamed in 6.9. */
		if (!armed && (fn_is(fn + 10, "tick_nohz_handler") ||
			       fn_is(fn + 10, "tick_sched_timer"))) {
			ev->kind = TR_TICK;
			return 1;
		}
		ev->kind = armed ? TR_DL_TIMER_ARM : TR_DL_TIMER_FIRE;
		return dl_timer_fn(fn + 10);
	}
	if ((ev_name = strstr(p, "sched_migrate_task: "))) {
		const char *pp = strstr(ev_name, " pid=");
		const char *dp = strstr(ev_name, " dest_cpu=");

		ev->kind = TR_MIGRATE;
		ev->prev = 0;
		ev->prev_state = 0;
		return pp && dp && sscanf(pp, " pid=%d", &ev->pid) == 1 &&
		       sscanf(dp, " dest_cpu=%d", &ev->target) == 1;
	}
	if ((ev_name = strstr(p, "sched_wakeup")) && strstr(ev_name, " pid=")) {
		const char *tp = strstr(ev_name, " target_cpu=");

		ev->kind = TR_WAKEUP;
		ev->prev = 0;
		ev->prev_state = 0;
		if (!tp || sscanf(tp, " target_cpu=%d", &ev->target) != 1)
			ev->target = -1;
		return sscanf(strstr(ev_name, " pid=") + 1, "pid=%d", &ev->pid) == 1;
	}
	return 0;
}

int trace_stop_read(struct trace_ev **evs)
{
	size_t n = 0, cap = 4096, i;
	struct trace_ev *v;
	char line[512];
	FILE *f;

	put("tracing_on", "0");
	f = fopen(TRACEFS "/trace", "r");
	if (!f)
		return -1;
	v = malloc(cap * sizeof(*v));
	while (v && fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (n == cap) {
			struct trace_ev *w = realloc(v, 2 * cap * sizeof(*v));

			if (!w) {
				free(v);
				v = NULL;
				break;
			}
			v = w;
			cap *= 2;
		}
		if (parse_line(line, &v[n]) && asked_for(&v[n]))
			n++;
	}
	fclose(f);
	for (i = 0; i < NEVENTS; i++)
		if (turned_on[i])
			put(events[i].file, "0");
	if (!v)
		return -1;
	/* The file merges the per-CPU buffers in time order already. */
	*evs = v;
	return (int)n;
}
