/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The job log dlgen writes: one CSV row per job, times in absolute
 * CLOCK_MONOTONIC ns, the task's thread id as sched_switch shows it.
 */
#ifndef DLCHART_JOBS_H
#define DLCHART_JOBS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "trace.h"

#define DLCHART_JOBS_HEADER						\
	"task,pid,job,release_ns,start_ns,end_ns,deadline_ns,"		\
	"runtime_ns,response_ns,slack_ns,miss"

struct dlchart_job {
	int task;			/* index into the trace's tasks */
	long long job;
	int64_t release, start, end, deadline;
	int64_t runtime, response, slack;
	bool miss;
};

struct dlchart_jobs {
	struct dlchart_job *v;
	size_t n, cap;
};

/*
 * Reads the job log @f (called @name in messages) into @jobs, adding its
 * tasks to @tr under the log's names.  Returns 0, or -1 after printing
 * what is wrong.
 */
int dlchart_jobs_read(FILE *f, const char *name, struct dlchart_trace *tr,
		      struct dlchart_jobs *jobs);
void dlchart_jobs_free(struct dlchart_jobs *jobs);

#endif
