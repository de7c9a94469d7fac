// SPDX-License-Identifier: GPL-2.0
/*
 * What dlgen writes at the end: the job log, the summary, and, for a run
 * the kernel refused, why.  The log's format is an interface: dlchart
 * reads it, by the names of its columns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dlabi.h"
#include "report.h"
#include "units.h"

#define CSV_HEADER \
	"task,pid,job,release_ns,start_ns,end_ns,deadline_ns,runtime_ns,response_ns,slack_ns,miss"

static double ms(int64_t ns)
{
	return (double)ns / (double)NSEC_PER_MSEC;
}

static double deadline_load(const struct dlgen_conf *c)
{
	double u = 0;
	int i;

	for (i = 0; i < c->ntasks; i++)
		if (c->tasks[i].policy == SCHED_DEADLINE)
			u += c->tasks[i].instances *
			     (double)c->tasks[i].runtime / c->tasks[i].period;
	return u;
}

/* Why the kernel refused @t, or would have. */
static const char *why(const struct dlgen_thread *t,
		       const struct dlgen_conf *c, char *buf, size_t len)
{
	const struct dlgen_task *k = t->task;
	bool dl = k->policy == SCHED_DEADLINE;
	char a[64], b[64];

	if (!strcmp(t->failed, "affinity")) {
		snprintf(buf, len,
			 "SCHED_DEADLINE with CPU affinity %s, fewer CPUs than the thread may use (%s): the kernel refuses that (EPERM) unless a cpuset confines the thread to those CPUs as a root domain of their own (an exclusive cpuset without load balancing, as in the HOWTO of sched-deadline.rst, or a cgroup v2 partition); started there, the affinity is superfluous",
			 dlgen_cpus_format(&k->cpus, a, sizeof(a)),
			 dlgen_cpus_format(&t->allowed, b, sizeof(b)));
	} else if (!strcmp(t->failed, "cpuset")) {
		snprintf(buf, len,
			 "CPU affinity %s: the thread's cpuset allows only %s",
			 dlgen_cpus_format(&k->cpus, a, sizeof(a)),
			 dlgen_cpus_format(&t->allowed, b, sizeof(b)));
	} else if (dl && t->err == EBUSY) {
		snprintf(buf, len,
			 "%s: admission control refused it: the deadline tasks ask %.3f CPUs in all, and a root domain admits sched_rt_runtime_us/sched_rt_period_us of each of its CPUs (%ld/%ld), less what other deadline tasks hold",
			 strerror(t->err), deadline_load(c),
			 sysctl_get("sched_rt_runtime_us"),
			 sysctl_get("sched_rt_period_us"));
	} else if (dl && t->err == EPERM) {
		snprintf(buf, len,
			 "%s: SCHED_DEADLINE needs CAP_SYS_NICE, and a CPU affinity (here %s) that covers the whole root domain: see sched-deadline.rst on cpusets",
			 strerror(EPERM),
			 dlgen_cpus_format(&t->allowed, a, sizeof(a)));
	} else if (dl && t->err == EINVAL) {
		snprintf(buf, len,
			 "%s: the kernel takes 1024ns <= runtime <= deadline <= period, and a period within the sysctls sched_deadline_period_{min,max}_us",
			 strerror(EINVAL));
	} else if (t->err == EPERM) {
		snprintf(buf, len,
			 "%s: a real-time priority or a negative nice needs CAP_SYS_NICE or RLIMIT_RTPRIO",
			 strerror(EPERM));
	} else {
		snprintf(buf, len, "%s", strerror(t->err));
	}
	return buf;
}

static const char *params(const struct dlgen_task *k, char *buf, size_t len)
{
	char a[32], b[32], c[32];
	const struct dlgen_phase *p = &k->phases[0];

	if (k->policy == SCHED_DEADLINE)
		snprintf(buf, len, "%s/%s/%s",
			 format_duration(k->runtime, a, sizeof(a)),
			 format_duration(k->deadline, b, sizeof(b)),
			 format_duration(k->period, c, sizeof(c)));
	else if (k->nphases > 1)
		snprintf(buf, len, "%d phases", k->nphases);
	else
		snprintf(buf, len, "%s/%s", format_duration(p->run, a, sizeof(a)),
			 p->period ? format_duration(p->period, b, sizeof(b)) :
				     "-");
	return buf;
}

int dlgen_report_refused(const struct dlgen_thread *th, int n,
			 const struct dlgen_conf *c)
{
	char buf[640], p[96];
	int i, refused = 0;

	for (i = 0; i < n; i++) {
		const struct dlgen_thread *t = &th[i];

		if (!t->failed)
			continue;
		refused++;
		fprintf(stderr, "%s: %s (%s %s): %s: %s\n", dlgen_prog, t->name,
			dlgen_policy_name(t->task->policy),
			params(t->task, p, sizeof(p)), t->failed,
			why(t, c, buf, sizeof(buf)));
	}
	return refused;
}

/* What the task asks per unit of time; -1 if its jobs have no period. */
static double asked(const struct dlgen_task *k)
{
	double run_ns = 0, period_ns = 0;
	int i;

	if (k->policy == SCHED_DEADLINE)
		return (double)k->runtime / k->period;
	for (i = 0; i < k->nphases; i++) {
		if (!k->phases[i].period)
			return -1;
		run_ns += (double)k->phases[i].loop * k->phases[i].run;
		period_ns += (double)k->phases[i].loop * k->phases[i].period;
	}
	return run_ns / period_ns;
}

static void summary_row(FILE *f, const struct dlgen_thread *t, int w,
			int64_t elapsed)
{
	const struct dlgen_task *k = t->task;
	char pol[24], p[96], a[16];
	double u = asked(k);

	snprintf(pol, sizeof(pol), "%s", dlgen_policy_name(k->policy));
	if (k->policy == SCHED_FIFO || k->policy == SCHED_RR || k->priority)
		snprintf(pol, sizeof(pol), "%s:%d",
			 dlgen_policy_name(k->policy), k->priority);
	snprintf(a, sizeof(a), "%.3f", u);
	if (u < 0)
		snprintf(a, sizeof(a), "-");
	fprintf(f, "%-*s %7d %-9s %-24s %7llu %7llu %11.3fms %11.3fms %6.3f %6s\n",
		w, t->name, t->tid, pol, params(k, p, sizeof(p)),
		(unsigned long long)t->jobs, (unsigned long long)t->misses,
		ms(t->worst_response), ms(t->worst_tardiness),
		(double)t->cpu / (double)elapsed, a);
}

/* A deadline task whose jobs run longer than its runtime: the CBS's case. */
static void summary_note(FILE *f, const struct dlgen_thread *t)
{
	const struct dlgen_task *k = t->task;
	char a[32], b[32];
	int i;

	if (k->policy != SCHED_DEADLINE)
		return;
	for (i = 0; i < k->nphases; i++) {
		if (k->phases[i].run > k->runtime) {
			fprintf(f,
				"note: %s: a job runs %s, its runtime is %s: the CBS throttles it to %s a period\n",
				t->name,
				format_duration(k->phases[i].run, a, sizeof(a)),
				format_duration(k->runtime, b, sizeof(b)), b);
			return;
		}
	}
}

void dlgen_summary(FILE *f, const struct dlgen_thread *th, int n,
		   int64_t elapsed)
{
	int i, w = 4;

	for (i = 0; i < n; i++)
		if ((int)strlen(th[i].name) > w)
			w = (int)strlen(th[i].name);
	fprintf(f, "%-*s %7s %-9s %-24s %7s %7s %13s %13s %6s %6s\n", w, "task",
		"tid", "policy", "params", "jobs", "misses", "worst resp",
		"worst tard", "used", "asked");
	for (i = 0; i < n; i++)
		summary_row(f, &th[i], w, elapsed);
	for (i = 0; i < n; i++)
		summary_note(f, &th[i]);
	fprintf(f, "elapsed %.3fms\n", ms(elapsed));
}

static void log_job(FILE *f, const struct dlgen_thread *t, size_t j, bool json)
{
	const struct dlgen_rec *r = &t->recs[j];
	long long slack = r->deadline ? r->deadline - r->end : 0;
	int miss = r->deadline && r->end > r->deadline;

	if (json)
		fprintf(f,
			"{\"task\":\"%s\",\"pid\":%d,\"job\":%zu,\"release_ns\":%lld,\"start_ns\":%lld,\"end_ns\":%lld,\"deadline_ns\":%lld,\"runtime_ns\":%lld,\"response_ns\":%lld,\"slack_ns\":%lld,\"miss\":%d}",
			t->name, t->tid, j, (long long)r->release,
			(long long)r->start, (long long)r->end,
			(long long)r->deadline, (long long)r->runtime,
			(long long)(r->end - r->release), slack, miss);
	else
		fprintf(f, "%s,%d,%zu,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%d\n",
			t->name, t->tid, j, (long long)r->release,
			(long long)r->start, (long long)r->end,
			(long long)r->deadline, (long long)r->runtime,
			(long long)(r->end - r->release), slack, miss);
}

int dlgen_log_write(FILE *f, const struct dlgen_thread *th, int n, bool json)
{
	const char *sep = "";
	size_t j, kept;
	int i;

	fputs(json ? "[" : CSV_HEADER "\n", f);
	for (i = 0; i < n; i++) {
		const struct dlgen_thread *t = &th[i];

		kept = t->jobs < t->cap ? t->jobs : t->cap;
		if (kept < t->jobs)
			fprintf(stderr,
				"%s: note: %s: the log holds the first %zu of its %llu jobs\n",
				dlgen_prog, t->name, kept,
				(unsigned long long)t->jobs);
		for (j = 0; j < kept; j++) {
			fputs(json ? sep : "", f);
			log_job(f, t, j, json);
			sep = ",\n";
		}
	}
	if (json)
		fputs("]\n", f);
	return fflush(f) || ferror(f) ? -1 : 0;
}
