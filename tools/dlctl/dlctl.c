// SPDX-License-Identifier: GPL-2.0
/*
 * dlctl: SCHED_DEADLINE from the command line, in the habits of chrt and
 * taskset.  It runs a command as a deadline task (it sets the policy on
 * itself, then execs, so the command is the deadline task), shows or sets
 * the parameters of an existing task or of all threads of a process, and
 * lists the deadline tasks with the bandwidth of each root domain.  When
 * the kernel refuses, it says which rule was broken (explain.c).
 * The manual: dlctl.1, in this directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg.h"
#include "dlabi.h"
#include "explain.h"
#include "rd.h"
#include "task.h"
#include "units.h"
#include "version.h"

/* Exit statuses: documented in --help and dlctl(1), scripts rely on them. */
enum {
	ST_OK = 0,
	ST_REFUSED = 1,		/* the kernel said no (explained), no such task */
	ST_USAGE = 2,		/* bad option or value */
	ST_NOEXEC = 126,	/* the command is there but cannot be run */
	ST_NOTFOUND = 127,	/* no such command */
};

struct opts {
	uint64_t runtime, deadline, period, flags;
	bool runtime_set, deadline_set, period_set;
	pid_t pid;
	bool pid_set, all, verbose;
	struct dl_attr attr;	/* what to set, once the options are read */
	bool set;
};

static const char *const help_text[] = {
	"Usage:",
	"  dlctl --runtime T [--deadline T] [--period T] [flags] [--] command [arg...]",
	"  dlctl [-a] -p PID                         show a task's policy",
	"  dlctl [-a] [-v] -p PID --runtime T ...    set it",
	"  dlctl status                              deadline tasks, root domains",
	"",
	"Run a command as a SCHED_DEADLINE task, show or set the scheduling",
	"parameters of a task, or list the deadline tasks and the bandwidth of",
	"each root domain.  When the kernel refuses, dlctl explains why.",
	"",
	"Parameters (T: a number with unit ns, us, ms or s; a bare number is ns)",
	"and flags:",
	"  -T, --runtime T      budget per period (also --sched-runtime)",
	"  -D, --deadline T     relative deadline; default: the period",
	"  -P, --period T       period; default: the deadline",
	"      --reclaim        reclaim unused bandwidth (SCHED_FLAG_RECLAIM)",
	"      --overrun        SIGXCPU on a runtime overrun (SCHED_FLAG_DL_OVERRUN)",
	"  -R, --reset-on-fork  children start as SCHED_OTHER",
	"",
	"Options:",
	"  -p, --pid PID        the task to show or set (0: dlctl itself)",
	"  -a, --all-tasks      all threads of process PID, as taskset -a",
	"  -v, --verbose        show the parameters after setting them",
	"  -h, --help           this text",
	"  -V, --version        dlctl's version",
	"",
	"Exit status:",
	"  0    success",
	"  1    the kernel refused (the reason follows on stderr), or no such task",
	"  2    usage error: the message names the bad option or value",
	"  126  the command was found but could not be executed",
	"  127  the command was not found",
	NULL,
};

/* A usage error on stderr; its value is the exit status, ST_USAGE. */
#define usage_err(fmt, ...)						\
	(fprintf(stderr, "dlctl: " fmt "\nTry 'dlctl --help'.\n",	\
		 ##__VA_ARGS__), ST_USAGE)

static int duration_arg(const char *opt, const char *arg, uint64_t *ns,
			bool *set)
{
	if (!parse_duration(arg, UNIT_NS, ns)) {
		*set = true;
		return 0;
	}
	if (errno == ERANGE)
		return usage_err("%s: '%s' is beyond 2^63ns", opt, arg);
	return usage_err("%s: '%s' is not a duration (a number; unit ns, us, ms or s)",
			 opt, arg);
}

static int pid_arg(const char *arg, struct opts *o)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v > INT_MAX)
		return usage_err("--pid: '%s' is not a pid", arg);
	/* 0 is the caller to the kernel: name it by its pid. */
	o->pid = v ? (pid_t)v : getpid();
	o->pid_set = true;
	return 0;
}

enum { OPT_RECLAIM = 256, OPT_OVERRUN };

static const struct option long_opts[] = {
	{ "runtime", required_argument, NULL, 'T' },
	{ "sched-runtime", required_argument, NULL, 'T' },
	{ "deadline", required_argument, NULL, 'D' },
	{ "sched-deadline", required_argument, NULL, 'D' },
	{ "period", required_argument, NULL, 'P' },
	{ "sched-period", required_argument, NULL, 'P' },
	{ "reclaim", no_argument, NULL, OPT_RECLAIM },
	{ "overrun", no_argument, NULL, OPT_OVERRUN },
	{ "reset-on-fork", no_argument, NULL, 'R' },
	{ "pid", required_argument, NULL, 'p' },
	{ "all-tasks", no_argument, NULL, 'a' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* One option; ST_OK, ST_USAGE, or -1 for "exit 0 now" (help, version). */
static int one_opt(int c, struct opts *o, char **argv)
{
	int i;

	switch (c) {
	case 'T':
		return duration_arg("--runtime", optarg, &o->runtime,
				    &o->runtime_set);
	case 'D':
		return duration_arg("--deadline", optarg, &o->deadline,
				    &o->deadline_set);
	case 'P':
		return duration_arg("--period", optarg, &o->period,
				    &o->period_set);
	case OPT_RECLAIM:
		o->flags |= DL_FLAG_RECLAIM;
		return 0;
	case OPT_OVERRUN:
		o->flags |= DL_FLAG_DL_OVERRUN;
		return 0;
	case 'R':
		o->flags |= DL_FLAG_RESET_ON_FORK;
		return 0;
	case 'p':
		return pid_arg(optarg, o);
	case 'a':
		o->all = true;
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case 'h':
		for (i = 0; help_text[i]; i++)
			puts(help_text[i]);
		return -1;
	case 'V':
		puts("dlctl " DLK_VERSION);
		return -1;
	case ':':
		return usage_err("option '%s' needs a value", argv[optind - 1]);
	default:
		if (optopt)
			return usage_err("unknown option '-%c'", optopt);
		return usage_err("unknown option '%s'", argv[optind - 1]);
	}
}

/*
 * The attr to set.  A missing deadline is the period and a missing
 * period the deadline, as the kernel reads period 0; dlctl passes the
 * period explicitly, so sched_getattr shows it.
 */
static int make_attr(struct opts *o)
{
	if (!o->runtime_set)
		return usage_err("--runtime is needed to set SCHED_DEADLINE");
	if (!o->deadline_set && !o->period_set)
		return usage_err("--deadline or --period is needed (each defaults to the other)");
	if (!o->deadline_set)
		o->deadline = o->period;
	if (!o->period_set)
		o->period = o->deadline;
	o->attr = dl_attr_make(o->runtime, o->deadline, o->period, o->flags);
	o->set = true;
	return 0;
}

static void task_label(const struct opts *o, pid_t tid, char *buf,
		       size_t len)
{
	if (o->all)
		snprintf(buf, len, "pid %d tid %d", o->pid, tid);
	else
		snprintf(buf, len, "pid %d", o->pid);
}

/*
 * Sets and/or shows one thread; 0 or the errno.  @gone_ok: a thread of
 * -a that has exited since it was listed, which is not an error.
 */
static int one_task(const struct opts *o, pid_t tid, bool gone_ok)
{
	struct dl_attr a = o->attr, now = { .size = DL_ATTR_SIZE_VER1 };
	char label[64], line[192];

	task_label(o, tid, label, sizeof(label));
	if (o->set && dl_setattr(tid, &a, 0)) {
		if (errno == ESRCH && gone_ok)
			return 0;
		dlctl_explain(errno, tid, label, &a);
		return ST_REFUSED;
	}
	if (o->set && !o->verbose)
		return 0;
	if (dl_getattr(tid, &now, sizeof(now), 0)) {
		if (errno == ESRCH && gone_ok)
			return 0;
		if (errno == ESRCH)
			fprintf(stderr, "dlctl: %s: no such process (ESRCH)\n",
				label);
		else
			fprintf(stderr, "dlctl: %s: sched_getattr: %s\n", label,
				strerror(errno));
		return ST_REFUSED;
	}
	printf("%s: %s\n", label, dlctl_sched_str(&now, line, sizeof(line)));
	return 0;
}

/* -p PID, with or without -a: one thread, or each in turn. */
static int on_pid(const struct opts *o)
{
	pid_t *tids;
	int n, i, r = 0;

	if (!o->all)
		return one_task(o, o->pid, false);
	n = dlctl_threads(o->pid, &tids);
	if (n < 0) {
		fprintf(stderr, "dlctl: pid %d: %s\n", o->pid,
			errno == ESRCH ? "no such process (ESRCH)" :
			strerror(errno));
		return ST_REFUSED;
	}
	/* As taskset -a: stop at the first thread refused. */
	for (i = 0; i < n && !r; i++)
		r = one_task(o, tids[i], tids[i] != o->pid);
	if (r && o->set && i > 1)
		fprintf(stderr, "dlctl: pid %d: %d of %d threads were set before the refusal\n",
			o->pid, i - 1, n);
	free(tids);
	return r;
}

/* Becomes the deadline task, then is the command: as chrt, as env. */
static int run(const struct opts *o, char **cmd)
{
	struct dl_attr a = o->attr;
	int e;

	if (dl_setattr(0, &a, 0)) {
		dlctl_explain(errno, getpid(), cmd[0], &a);
		return ST_REFUSED;
	}
	execvp(cmd[0], cmd);
	e = errno;
	fprintf(stderr, "dlctl: %s: %s\n", cmd[0], strerror(e));
	return e == ENOENT ? ST_NOTFOUND : ST_NOEXEC;
}

static void status_tasks(const struct dlctl_dl_task *t, int n)
{
	char r[32], d[32], p[32], b[32], f[64];
	int i;

	if (!n)
		puts("no deadline tasks");
	else
		printf("%-7s %-7s %-15s %-10s %-10s %-10s %-7s %-3s %s\n",
		       "PID", "TID", "COMM", "RUNTIME", "DEADLINE", "PERIOD",
		       "BW", "CPU", "FLAGS");
	for (i = 0; i < n; i++) {
		const struct dl_attr *a = &t[i].attr;

		printf("%-7d %-7d %-15s %-10s %-10s %-10s %-7s %-3d %s\n",
		       t[i].pid, t[i].tid, t[i].comm,
		       format_duration(a->sched_runtime, r, sizeof(r)),
		       format_duration(a->sched_deadline, d, sizeof(d)),
		       format_duration(a->sched_period, p, sizeof(p)),
		       dlctl_bw_str(dlctl_to_ratio(a->sched_period,
						   a->sched_runtime),
				    b, sizeof(b)),
		       t[i].cpu, dlctl_flags_str(a->sched_flags & DLCTL_FLAGS,
						 f, sizeof(f)));
	}
}

/* What the deadline tasks counted in @rd hold. */
static void status_held(const struct dlctl_rd *rd,
			const struct dlctl_dl_task *t, int n)
{
	int in;
	long long held = dlctl_held_in(&rd->cpus, t, n, &in);
	char b[32];

	printf("; %d deadline task%s hold%s %s (%lld)", in,
	       in == 1 ? "" : "s", in == 1 ? "s" : "",
	       dlctl_bw_str(held, b, sizeof(b)), held);
}

static void status_rd(const struct dlctl_rd *rd,
		      const struct dlctl_dl_task *t, int n)
{
	long long limit = dlctl_rd_limit(rd);
	char cpus[256], b1[32], b2[32], b3[32];

	printf("root domain CPUs %s: %d CPU%s, ",
	       dlctl_cpulist(&rd->cpus, cpus, sizeof(cpus)), rd->ncpus,
	       rd->ncpus == 1 ? "" : "s");
	if (!rd->bw_known) {
		printf("bandwidth unknown (as root, mount debugfs on /sys/kernel/debug)");
	} else if (limit < 0) {
		printf("limit none (sched_rt_runtime_us = -1), allocated %s (%lld)",
		       dlctl_bw_str(rd->total_bw, b1, sizeof(b1)),
		       rd->total_bw);
	} else {
		printf("limit %s (%lld), allocated %s (%lld), free %s (%lld)%s",
		       dlctl_bw_str(limit, b1, sizeof(b1)), limit,
		       dlctl_bw_str(rd->total_bw, b2, sizeof(b2)),
		       rd->total_bw,
		       dlctl_bw_str(limit - rd->total_bw, b3, sizeof(b3)),
		       limit - rd->total_bw,
		       rd->total_bw < 0 ? " (underflowed: see dlctl(1), BUGS)" : "");
	}
	status_held(rd, t, n);
	printf("; %s\n", rd->why);
}

/* One capped cgroup's line of dlctl status. */
static void status_cg(const struct dlctl_cg *cg, void *arg)
{
	char b1[32], b2[32];

	(void)arg;
	printf("cgroup %s: cap %lldus/%lldus = %s (%lld), held %s (%lld) by %lld task%s, %lld refused\n",
	       cg->path, cg->runtime_us, cg->period_us,
	       dlctl_bw_str(cg->cap, b1, sizeof(b1)), cg->cap,
	       dlctl_bw_str(cg->bw < 0 ? 0 : cg->bw, b2, sizeof(b2)), cg->bw,
	       cg->nr_tasks, cg->nr_tasks == 1 ? "" : "s", cg->nr_refused);
}

/*
 * dlctl status: the deadline tasks, then each root domain's bandwidth,
 * then the cgroups that cap it (cpu.dl.max), if the kernel has them.
 */
static int status(void)
{
	struct dlctl_rds *rds = malloc(sizeof(*rds));
	struct dlctl_dl_task *t = NULL;
	int i, n, r = ST_OK;

	n = dlctl_dl_tasks(&t);
	if (n < 0) {
		fprintf(stderr, "dlctl: listing /proc: %s\n", strerror(errno));
		n = 0;
		r = ST_REFUSED;
	}
	status_tasks(t, n);
	if (!rds || dlctl_rd_scan(rds)) {
		fprintf(stderr, "dlctl: finding the root domains: %s\n",
			strerror(errno));
		r = ST_REFUSED;
	} else {
		puts("");
		for (i = 0; i < rds->n; i++)
			status_rd(&rds->rd[i], t, n);
		printf("bandwidth in CPUs (in units of 2^-20 of a CPU); root domains from %s\n",
		       rds->how);
	}
	if (dlctl_cg_each_capped(status_cg, NULL) == 0)
		puts("no cgroup caps deadline bandwidth (cpu.dl.max is max everywhere)");
	free(rds);
	free(t);
	return r;
}

/* What the arguments left after the options ask for. */
static int dispatch(struct opts *o, int argc, char **argv)
{
	bool params = o->runtime_set || o->deadline_set || o->period_set ||
		      o->flags;
	int r;

	if (!params && !o->pid_set) {
		if (argc == 1 && !strcmp(argv[0], "status"))
			return status();
		if (!argc)
			return usage_err("nothing to do: no command, -p PID or status");
		return usage_err("'%s': no parameters (--runtime, --deadline or --period)",
				 argv[0]);
	}
	if (o->all && !o->pid_set)
		return usage_err("--all-tasks needs --pid");
	if (o->pid_set && argc)
		return usage_err("-p PID and a command ('%s') do not go together",
				 argv[0]);
	r = params ? make_attr(o) : 0;
	if (r)
		return r;
	if (o->pid_set)
		return on_pid(o);
	if (!argc)
		return usage_err("no command to run");
	return run(o, argv);
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	int c, r;

	opterr = 0;
	/* '+': the first non-option is the command, whose options are its own. */
	while ((c = getopt_long(argc, argv, "+:T:D:P:Rp:avhV", long_opts,
				NULL)) != -1) {
		r = one_opt(c, &o, argv);
		if (r)
			return r < 0 ? ST_OK : r;
	}
	return dispatch(&o, argc - optind, argv + optind);
}
