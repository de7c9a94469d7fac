/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dlgen's model of a workload, from rt-app's command line (-t) or from
 * the part of rt-app's JSON format that dlgen runs.  A task is one thread
 * (or several, its instances) that runs its phases in turn; a phase is a
 * list of events done in order, and one pass of it is a job.
 */
#ifndef DLK_DLGEN_CONF_H
#define DLK_DLGEN_CONF_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum dlgen_event_type {
	DLGEN_RUN,	/* burn thread CPU time */
	DLGEN_SLEEP,	/* sleep for a time from now */
	DLGEN_TIMER,	/* sleep until the timer's next period begins */
};

struct dlgen_event {
	enum dlgen_event_type type;
	uint64_t ns;		/* CPU time to run, time to sleep, or period */
	int timer;		/* DLGEN_TIMER: index into the task's timers */
};

/*
 * A timer's periods follow one another from the start of the run.  When a
 * job ends past the next one, a relative timer (rt-app's default) starts
 * its next period then; an absolute one keeps to its grid.
 */
struct dlgen_timer {
	char *ref;
	bool absolute;
	bool mode_given;	/* a use of it named its mode */
};

struct dlgen_phase {
	long loop;		/* jobs in each pass over the task's phases */
	struct dlgen_event *events;
	int nevents;
	uint64_t run;		/* CPU time a job asks for */
	/*
	 * The least time a job's timers make it take (0 if it has none), and
	 * the relative deadline of its jobs (0 if none can be named).
	 */
	uint64_t period;
	uint64_t deadline;
};

struct dlgen_task {
	char *name;
	int instances;
	long loop;		/* passes over the phases, -1: until the end */
	int policy;		/* SCHED_OTHER, _FIFO, _RR or _DEADLINE */
	int priority;		/* FIFO and RR: priority; OTHER: nice */
	uint64_t runtime, deadline, period;	/* SCHED_DEADLINE's, in ns */
	bool has_cpus;
	cpu_set_t cpus;
	struct dlgen_phase *phases;
	int nphases;
	struct dlgen_timer *timers;
	int ntimers;
};

struct dlgen_conf {
	struct dlgen_task *tasks;
	int ntasks;
	int64_t duration;	/* ns; -1: until every task has ended */
};

/* The program's name in messages: "dlgen", or "rt-app" when so called. */
extern const char *dlgen_prog;

/*
 * Adds the task of a -t option, "PERIOD:RUN[:POLICY[:CPUS[:PRIO[:DL]]]]".
 * 0, or -1 with a message naming the field in @err.
 */
int dlgen_task_spec(struct dlgen_conf *c, const char *spec, char *err,
		    size_t errlen);

/*
 * Reads a JSON task file into @c; notes on what it ignores go to stderr.
 * 0, or -1 with a message in @err ("LINE:COL: ..." for the syntax,
 * "tasks.NAME.KEY: ..." for the content).
 */
int dlgen_conf_json(struct dlgen_conf *c, const char *text, size_t len,
		    char *err, size_t errlen);

void dlgen_conf_free(struct dlgen_conf *c);

/*
 * Building the model, for the readers of both forms.  The add functions
 * append a zeroed element with its defaults (1 instance, loop -1 for a
 * task; loop 1 for a phase) and return it, or NULL.
 */
#define DLGEN_RT_PRIO 10	/* rt-app's priority for FIFO and RR */
struct dlgen_task *dlgen_task_add(struct dlgen_conf *c);
struct dlgen_phase *dlgen_phase_add(struct dlgen_task *t);
struct dlgen_event *dlgen_event_add(struct dlgen_phase *p);

/*
 * The index of @t's timer named @ref, added if new, or -1.  @mode: 1
 * absolute, 0 relative, -1 as the timer's other uses say (else relative);
 * *@clash: two uses name different modes.
 */
int dlgen_timer_of(struct dlgen_task *t, const char *ref, int mode,
		   bool *clash);

/* Fills in what a phase's jobs ask, once its events are all there. */
void dlgen_phase_finish(const struct dlgen_task *t, struct dlgen_phase *p);

/* A decimal integer that is all of @s into *@v; 0 or -1. */
int dlgen_parse_long(const char *s, long *v);

/* The first CPU of @set that the machine does not have, or -1. */
int dlgen_cpu_missing(const cpu_set_t *set);

/* "deadline", "fifo", "rr" or "other" */
const char *dlgen_policy_name(int policy);

/* Writes @set as a list, "0-2,5"; returns @buf. */
const char *dlgen_cpus_format(const cpu_set_t *set, char *buf, size_t len);

#endif
