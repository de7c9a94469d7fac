/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dlchart's account of a run, read from the text form of a tracefs trace
 * (sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task): who
 * ran on each CPU and when, and when a deadline task was throttled.
 */
#ifndef DLCHART_TRACE_H
#define DLCHART_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Room for a job log's task name; a comm is at most 15 characters. */
#define DLCHART_NAME_LEN 64

struct dlchart_task {
	pid_t pid;
	char name[DLCHART_NAME_LEN];	/* the job log's, else the last comm */
	bool deadline;			/* seen with prio -1 */
	bool in_jobs;			/* named by the job log */
	int colour;			/* palette index; -1: drawn grey */
	/* the reader's state */
	int64_t throttled_at;		/* -1: not throttled */
	int throttled_cpu;
};

/* A stretch of time one task spent on one CPU, or throttled there. */
struct dlchart_span {
	int64_t t0, t1;			/* ns, CLOCK_MONOTONIC */
	int cpu;
	int task;			/* index into the tasks */
};

struct dlchart_trace {
	struct dlchart_task *tasks;
	size_t ntasks, tasks_cap;
	struct dlchart_span *runs;
	size_t nruns, runs_cap;
	struct dlchart_span *throttles;	/* cpu: the one it was taken off */
	size_t nthrottles, throttles_cap;
	int ncpus;			/* the highest CPU seen, plus one */
	int64_t first, last;		/* times of the first and last event */
	long events;			/* lines of the four events, parsed */
	long switches;
	long skipped;			/* other lines, comments aside */
};

/*
 * Reads a trace from @f into @tr (zeroed by it).  Returns 0, or -1 with
 * errno on a read error; a trace without events is not an error here.
 */
int dlchart_trace_read(FILE *f, struct dlchart_trace *tr);
void dlchart_trace_free(struct dlchart_trace *tr);

/* The index of the task @pid, added (unnamed) if @add and new; else -1. */
int dlchart_task_index(struct dlchart_trace *tr, pid_t pid, bool add);

/*
 * Makes room for @n + 1 elements of @size in the array @p of capacity
 * *@cap; exits on running out of memory, which the tool cannot mend.
 */
void *dlchart_grow(void *p, size_t *cap, size_t n, size_t size);

#endif
