/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dlchart's drawing: a Gantt chart in SVG, a lane per CPU and one per
 * chosen task.  Elements carry classes and data- attributes (lane cpu,
 * lane task, run, throttled, job, release, deadline, miss; data-cpu,
 * data-pid, data-job) so that a test, or a script, can count them.
 */
#ifndef DLCHART_SVG_H
#define DLCHART_SVG_H

#include <stdio.h>

#include "jobs.h"
#include "trace.h"

/* Task colours, none of them red (misses) or grey (other tasks). */
#define DLCHART_COLOURS 8
#define DLCHART_MIN_WIDTH 600

struct dlchart_chart {
	const struct dlchart_trace *tr;
	const struct dlchart_jobs *jobs;	/* NULL: no job log */
	const int *lanes;			/* task indices, top down */
	size_t nlanes;
	int64_t from, to;			/* the window, ns */
	int64_t origin;				/* 0 on the time axis */
	const char *title;
	int width;				/* px, DLCHART_MIN_WIDTH up */
};

/* Whether job @j shows in the window of @c. */
bool dlchart_job_shown(const struct dlchart_chart *c,
		       const struct dlchart_job *j);

/* Writes the chart; 0, or -1 with errno if writing failed. */
int dlchart_svg_write(FILE *f, const struct dlchart_chart *c);

#endif
