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

int trace_start_with(unsigned int what)
{
	struct stat st;

	if (stat(TRACEFS "/trace", &st) &&
	    mount("tracefs", TRACEFS, "tracefs", 0, NULL))
		return -1;
	if (put("tracing_on", "0") || put("trace", "") ||
	    put("trace_clock", "mono") || put("buffer_size_kb", "8192") ||
	    put("events/sched/sched_switch/enable", "1") ||
	    put("events/sched/sched_wakeup/enable", "1") ||
	    put("events/sched/sched_wakeup_new/enable", "1"))
		return -1;
	if ((what & TRACE_DL_TIMERS) &&
	    put("events/timer/hrtimer_start/enable", "1"))
		return -1;
	if ((what & (TRACE_DL_TIMERS | TRACE_TICKS)) &&
	    put("events/timer/hrtimer_expire_entry/enable", "1"))
		return -1;
	if ((what & TRACE_MIGRATIONS) &&
	    put("events/sched/sched_migrate_task/enable", "1"))
		return -1;
	return put("tracing_on", "1");
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
	size_t n = 0, cap = 4096;
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
		n += parse_line(line, &v[n]);
	}
	fclose(f);
	put("events/sched/enable", "0");
	put("events/timer/hrtimer_start/enable", "0");
	put("events/timer/hrtimer_expire_entry/enable", "0");
	if (!v)
		return -1;
	/* The file merges the per-CPU buffers in time order already. */
	*evs = v;
	return (int)n;
}
