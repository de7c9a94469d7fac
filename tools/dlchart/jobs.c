// SPDX-License-Identifier: GPL-2.0
/*
 * The job log, row by row.  The ten numbers are taken from the right, so
 * a task name with a comma in it stays whole.  A log that does not read
 * is refused whole: it is a program's output, and a chart drawn from part
 * of it would mislead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"

#define NUMBERS 10

static bool to_ll(const char *s, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return *s && *s != ' ' && !*end && !errno;
}

/* Splits @row in place: the name, then NUMBERS numbers into @v. */
static bool split_row(char *row, char **name, long long *v)
{
	char *p = row + strlen(row);
	int i;

	for (i = NUMBERS - 1; i >= 0; i--) {
		while (p > row && p[-1] != ',')
			p--;
		if (p == row || !to_ll(p, &v[i]))
			return false;
		*--p = '\0';
	}
	*name = row;
	return *row != '\0';
}

static bool add_row(char *row, struct dlchart_trace *tr,
		    struct dlchart_jobs *jobs)
{
	struct dlchart_task *t;
	struct dlchart_job *j;
	long long v[NUMBERS];
	char *name;

	if (!split_row(row, &name, v) || v[0] <= 0 || v[0] > INT32_MAX ||
	    (v[9] != 0 && v[9] != 1))
		return false;
	jobs->v = dlchart_grow(jobs->v, &jobs->cap, jobs->n, sizeof(*j));
	j = &jobs->v[jobs->n++];
	j->task = dlchart_task_index(tr, (pid_t)v[0], true);
	j->job = v[1];
	j->release = v[2];
	j->start = v[3];
	j->end = v[4];
	j->deadline = v[5];
	j->runtime = v[6];
	j->response = v[7];
	j->slack = v[8];
	j->miss = v[9];
	t = &tr->tasks[j->task];
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->in_jobs = true;
	return true;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

int dlchart_jobs_read(FILE *f, const char *name, struct dlchart_trace *tr,
		      struct dlchart_jobs *jobs)
{
	size_t len = 0;
	char *line = NULL;
	long n = 0;
	int ret = 0;

	memset(jobs, 0, sizeof(*jobs));
	while (!ret && getline(&line, &len, f) >= 0) {
		chomp(line);
		if (!n++ && strcmp(line, DLCHART_JOBS_HEADER)) {
			fprintf(stderr,
				"dlchart: %s:1: not a job log: the header must be\n",
				name);
			fprintf(stderr, "  %s\n", DLCHART_JOBS_HEADER);
			ret = -1;
		} else if (n > 1 && *line && !add_row(line, tr, jobs)) {
			fprintf(stderr,
				"dlchart: %s:%ld: not a job: want a name, ten integers, miss 0 or 1\n",
				name, n);
			ret = -1;
		}
	}
	if (!ret && ferror(f)) {
		fprintf(stderr, "dlchart: %s: %s\n", name, strerror(errno));
		ret = -1;
	} else if (!ret && !n) {
		fprintf(stderr, "dlchart: %s: empty job log\n", name);
		ret = -1;
	}
	free(line);
	return ret;
}

void dlchart_jobs_free(struct dlchart_jobs *jobs)
{
	free(jobs->v);
	memset(jobs, 0, sizeof(*jobs));
}
