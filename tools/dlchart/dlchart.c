// SPDX-License-Identifier: GPL-2.0
/*
 * dlchart: an SVG Gantt chart of a SCHED_DEADLINE run, from the text form
 * of a tracefs trace (sched_switch and friends) and, optionally, the job
 * log dlgen writes.  See dlchart(1).
 *
 * Exit status: 0 drawn, 1 bad input (or output), 2 usage.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "svg.h"
#include "trace.h"
#include "units.h"
#include "version.h"

#define DEFAULT_WIDTH 1200
#define MAX_WIDTH 20000

struct opts {
	const char *trace, *jobs, *out, *title, *tasks;
	const char *from, *to;
	int width;
};

/*
 * A lane's place, its rank: the job log's tasks in its order, then the
 * other deadline tasks by pid, then (without a job log) the others, the
 * busiest first, then those only --tasks names.
 */
#define RANK_GROUP ((int64_t)1 << 56)

struct lane {
	int task;
	int64_t rank;
};

static void help(FILE *f)
{
	fputs("usage: dlchart [--jobs FILE] [-o FILE.svg] [--title TEXT]\n"
	      "               [--from T] [--to T] [--tasks COMM,...]\n"
	      "               [--width PX] TRACE\n"
	      "       dlchart --help | --version\n"
	      "TRACE  /sys/kernel/tracing/trace as text (- for stdin),\n"
	      "       with sched_switch and trace_clock mono\n"
	      "T      a duration since t = 0 (the job log's first\n"
	      "       release, else the first event; bare: ms),\n"
	      "       or @SECONDS on the trace's clock\n"
	      "COMM   shell patterns of task names\n"
	      "PX     600 to 20000 (default 1200)\n"
	      "See dlchart(1).\n", f);
}

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("dlchart: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'dlchart --help'.\n", stderr);
	return 2;
}

/* --width: the width in px, or 0 if it is not one. */
static int parse_width(const char *s)
{
	char *end;
	long w;

	errno = 0;
	w = strtol(s, &end, 10);
	if (errno || *end || w < DLCHART_MIN_WIDTH || w > MAX_WIDTH)
		return 0;
	return (int)w;
}

/* 0, or the exit status of a usage error. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longs[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, 'T' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "tasks", required_argument, NULL, 'k' },
		{ "width", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->width = DEFAULT_WIDTH;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:hV", longs, NULL)) != -1) {
		switch (c) {
		case 'j':
			o->jobs = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'T':
			o->title = optarg;
			break;
		case 'f':
			o->from = optarg;
			break;
		case 't':
			o->to = optarg;
			break;
		case 'k':
			o->tasks = optarg;
			break;
		case 'w':
			o->width = parse_width(optarg);
			if (!o->width)
				return usage_error("--width: bad width '%s'",
						   optarg);
			break;
		case 'h':
			help(stdout);
			exit(0);
		case 'V':
			puts("dlchart " DLK_VERSION);
			exit(0);
		case ':':
			return usage_error("%s needs an argument",
					   argv[optind - 1]);
		default:
			return usage_error("unknown option %s",
					   argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_error("want one TRACE file");
	o->trace = argv[optind];
	return 0;
}

/* --from/--to: a duration since @origin, or @SECONDS; 0 or -1. */
static int parse_time(const char *s, int64_t origin, int64_t *t)
{
	uint64_t v;

	if (*s == '@') {
		if (parse_duration(s + 1, UNIT_S, &v))
			return -1;
		*t = (int64_t)v;
		return 0;
	}
	if (parse_duration(s, UNIT_MS, &v))
		return -1;
	*t = origin + (int64_t)v;
	return 0;
}

static FILE *open_in(const char *name)
{
	FILE *f = strcmp(name, "-") ? fopen(name, "r") : stdin;

	if (!f)
		fprintf(stderr, "dlchart: %s: %s\n", name, strerror(errno));
	return f;
}

static void close_in(FILE *f)
{
	if (f != stdin)
		fclose(f);
}

/* The default window: the job log's span, else the trace's. */
static void job_span(const struct dlchart_jobs *js, int64_t *from,
		     int64_t *to)
{
	size_t i;

	for (i = 0; i < js->n; i++) {
		const struct dlchart_job *j = &js->v[i];
		int64_t last = j->end > j->deadline ? j->end : j->deadline;

		if (!i || j->release < *from)
			*from = j->release;
		if (!i || last > *to)
			*to = last;
	}
}

/* 0, or the exit status of a usage error. */
static int set_window(const struct opts *o, const struct dlchart_jobs *js,
		      struct dlchart_chart *c)
{
	c->from = c->tr->first;
	c->to = c->tr->last;
	if (js && js->n)
		job_span(js, &c->from, &c->to);
	c->origin = c->from;
	if (o->from && parse_time(o->from, c->origin, &c->from))
		return usage_error("--from: not a time: '%s'", o->from);
	if (o->to && parse_time(o->to, c->origin, &c->to))
		return usage_error("--to: not a time: '%s'", o->to);
	if (c->to <= c->from && (o->from || o->to))
		return usage_error("the window is empty");
	/* A trace of one instant still gets a millisecond to be drawn in. */
	if (c->to <= c->from)
		c->to = c->from + 1000000;
	return 0;
}

static int64_t ran_in(const struct dlchart_chart *c, int task)
{
	const struct dlchart_trace *tr = c->tr;
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < tr->nruns; i++) {
		const struct dlchart_span *s = &tr->runs[i];
		int64_t t0 = s->t0 > c->from ? s->t0 : c->from;
		int64_t t1 = s->t1 < c->to ? s->t1 : c->to;

		if (s->task == task && t1 > t0)
			sum += t1 - t0;
	}
	return sum;
}

static int64_t first_job(const struct dlchart_jobs *js, int task)
{
	size_t i;

	for (i = 0; js && i < js->n; i++)
		if (js->v[i].task == task)
			return (int64_t)i;
	return -1;
}

/*
 * Whether one of the comma-separated shell patterns @list matches the
 * name of @t; counts the hits of each pattern in @hits.
 */
static bool matches(const char *list, const struct dlchart_task *t, int *hits)
{
	char *buf = strdup(list), *p, *q;
	bool any = false;
	int i;

	if (!buf) {
		fputs("dlchart: out of memory\n", stderr);
		exit(1);
	}
	for (p = buf, i = 0; p; p = q, i++) {
		q = strchr(p, ',');
		if (q)
			*q++ = '\0';
		if (*p && !fnmatch(p, t->name, 0)) {
			hits[i]++;
			any = true;
		}
	}
	free(buf);
	return any;
}

static int count_patterns(const char *list)
{
	int n = 1;

	for (; *list; list++)
		n += *list == ',';
	return n;
}

static int cmp_lane(const void *a, const void *b)
{
	const struct lane *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->task - y->task;
}

/* The rank of a task the job log does not list; 0: no lane. */
static int64_t default_rank(const struct dlchart_chart *c, int task,
			    bool have_jobs)
{
	int64_t ran;

	if (c->tr->tasks[task].deadline)
		return RANK_GROUP + c->tr->tasks[task].pid;
	if (have_jobs)
		return 0;
	ran = ran_in(c, task);
	return ran ? 2 * RANK_GROUP + (RANK_GROUP - 1 - ran) : 0;
}

/* The rank of task @t; 0: no lane.  Counts the --tasks patterns' hits. */
static int64_t lane_rank(const struct opts *o, const struct dlchart_jobs *js,
			 const struct dlchart_chart *c, int t, int *hits)
{
	int64_t job = first_job(js, t), rank;

	if (c->tr->tasks[t].pid == 0)
		return 0;
	rank = job >= 0 ? job + 1 : default_rank(c, t, !!js);
	if (!o->tasks)
		return rank;
	if (!matches(o->tasks, &c->tr->tasks[t], hits))
		return 0;
	return rank ? rank : 3 * RANK_GROUP;
}

/* Chooses the lanes, in order, and gives them colours; 0 or 1. */
static int choose_lanes(const struct opts *o, const struct dlchart_jobs *js,
			struct dlchart_trace *tr, struct dlchart_chart *c,
			int **lanes)
{
	int np = o->tasks ? count_patterns(o->tasks) : 0, *hits, i;
	struct lane *v = calloc(tr->ntasks + 1, sizeof(*v));
	size_t n = 0, t;

	hits = calloc((size_t)np + 1, sizeof(*hits));
	*lanes = calloc(tr->ntasks + 1, sizeof(**lanes));
	if (!v || !hits || !*lanes) {
		fputs("dlchart: out of memory\n", stderr);
		exit(1);
	}
	for (t = 0; t < tr->ntasks; t++) {
		int64_t rank = lane_rank(o, js, c, (int)t, hits);

		if (rank)
			v[n++] = (struct lane){ (int)t, rank };
	}
	qsort(v, n, sizeof(*v), cmp_lane);
	for (t = 0; t < n; t++) {
		(*lanes)[t] = v[t].task;
		if (t < DLCHART_COLOURS)
			tr->tasks[v[t].task].colour = (int)t;
	}
	c->lanes = *lanes;
	c->nlanes = n;
	for (i = 0; i < np && hits[i]; i++)
		;
	free(v);
	free(hits);
	if (i < np) {
		fprintf(stderr,
			"dlchart: --tasks: pattern %d of '%s' matches no task\n",
			i + 1, o->tasks);
		return 1;
	}
	return 0;
}

/* What was drawn: the lanes, their jobs and misses in the window. */
static void summary(const struct dlchart_chart *c)
{
	const struct dlchart_jobs *js = c->jobs;
	size_t i, l, jobs = 0, misses = 0;

	for (l = 0; l < c->nlanes; l++) {
		for (i = 0; js && i < js->n; i++) {
			if (js->v[i].task != c->lanes[l] ||
			    !dlchart_job_shown(c, &js->v[i]))
				continue;
			jobs++;
			misses += js->v[i].miss;
		}
	}
	fprintf(stderr,
		"dlchart: %zu tasks, %zu jobs, %zu misses, %ld events parsed, %ld lines skipped\n",
		c->nlanes, jobs, misses, c->tr->events, c->tr->skipped);
}

/* The job log must be of the traced run: a warning if it is not. */
static void check_overlap(const struct dlchart_trace *tr,
			  const struct dlchart_jobs *js)
{
	int64_t from = 0, to = 0;

	job_span(js, &from, &to);
	if (js->n && (to < tr->first || from > tr->last))
		fputs("dlchart: warning: job log and trace do not overlap\n"
		      "  in time (is trace_clock mono?)\n", stderr);
}

static int read_inputs(const struct opts *o, struct dlchart_trace *tr,
		       struct dlchart_jobs *js)
{
	FILE *f = open_in(o->trace);
	int r;

	if (!f)
		return 1;
	r = dlchart_trace_read(f, tr);
	if (r)
		fprintf(stderr, "dlchart: %s: %s\n", o->trace, strerror(errno));
	close_in(f);
	if (r)
		return 1;
	if (!tr->switches) {
		fprintf(stderr,
			"dlchart: %s: no sched_switch events (enable events/sched/sched_switch)\n",
			o->trace);
		return 1;
	}
	if (!o->jobs)
		return 0;
	f = open_in(o->jobs);
	if (!f)
		return 1;
	r = dlchart_jobs_read(f, o->jobs, tr, js);
	close_in(f);
	if (!r)
		check_overlap(tr, js);
	return r ? 1 : 0;
}

static int write_chart(const struct opts *o, const struct dlchart_chart *c)
{
	FILE *f = o->out ? fopen(o->out, "w") : stdout;
	int r;

	if (!f) {
		fprintf(stderr, "dlchart: %s: %s\n", o->out, strerror(errno));
		return 1;
	}
	r = dlchart_svg_write(f, c);
	if (f != stdout && fclose(f))
		r = -1;
	if (r) {
		fprintf(stderr, "dlchart: %s: %s\n", o->out ? o->out : "stdout",
			strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct dlchart_chart c = { 0 };
	struct dlchart_trace tr = { 0 };
	struct dlchart_jobs js = { 0 };
	char title[256];
	int *lanes = NULL, r;
	struct opts o;

	r = parse_opts(argc, argv, &o);
	if (r)
		return r;
	r = read_inputs(&o, &tr, &js);
	c.tr = &tr;
	c.jobs = o.jobs ? &js : NULL;
	c.width = o.width;
	snprintf(title, sizeof(title), "Schedule of %s", o.trace);
	c.title = o.title ? o.title : title;
	if (!r)
		r = set_window(&o, c.jobs, &c);
	if (!r)
		r = choose_lanes(&o, c.jobs, &tr, &c, &lanes);
	if (!r)
		r = write_chart(&o, &c);
	if (!r)
		summary(&c);
	free(lanes);
	dlchart_jobs_free(&js);
	dlchart_trace_free(&tr);
	return r;
}
