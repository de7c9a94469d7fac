/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dlgen's threads, their jobs, and what dlgen writes of them at the end:
 * the job log, the summary, the reasons the kernel refused a thread.
 */
#ifndef DLK_DLGEN_REPORT_H
#define DLK_DLGEN_REPORT_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "conf.h"

/* One job, in CLOCK_MONOTONIC and thread CPU time, ns. */
struct dlgen_rec {
	int64_t release, start, end, deadline, runtime;
};

struct dlgen_thread {
	const struct dlgen_task *task;
	char name[64];
	pthread_t th;
	pid_t tid;
	/* a setup step the kernel refused: its name and errno */
	const char *failed;
	int err;
	cpu_set_t allowed;	/* the affinity the thread started with */
	struct dlgen_rec *recs;
	size_t cap;
	/* the summary's numbers, over every job, logged or not */
	uint64_t jobs, misses;
	int64_t worst_response, worst_tardiness, cpu;
	int64_t *timer_next;	/* each timer's next period; 0: unused yet */
	/*
	 * The release of the next job: the nominal end of the last wait if
	 * there was one since the last run, else the end of that run.
	 */
	int64_t wake, last_end;
	bool waited;
	/*
	 * Thread CPU clock: where the last run ended, nominally (see dlgen's
	 * burn()), and as read at the end of the last job.
	 */
	int64_t mark, cpu_end;
	bool at_end;		/* stopped by the end of the duration */
};

/*
 * Explains on stderr each thread of @th whose setup failed; returns how
 * many did.
 */
int dlgen_report_refused(const struct dlgen_thread *th, int n,
			 const struct dlgen_conf *c);

/* The summary, a line per thread, over @elapsed ns of run. */
void dlgen_summary(FILE *f, const struct dlgen_thread *th, int n,
		   int64_t elapsed);

/* The job log, CSV or JSON (see dlgen(1)); 0, or -1 if it failed. */
int dlgen_log_write(FILE *f, const struct dlgen_thread *th, int n, bool json);

#endif
