// SPDX-License-Identifier: GPL-2.0
/*
 * security: who may make a task SCHED_DEADLINE or change one, and what a
 * cpuset partition confines.
 *
 * A deadline task reserves CPU time that admission control then refuses
 * to everybody else, so the tree keeps the class to privileged callers
 * (kernel/sched/syscalls.c, user_check_sched_setscheduler()): without
 * CAP_SYS_NICE, a sched_setattr() whose policy is or stays SCHED_DEADLINE
 * fails with EPERM, whatever its parameters and flags, even one that would
 * lower the bandwidth, and RLIMIT_RTPRIO grants nothing there.
 * SCHED_FLAG_KEEP_POLICY keeps the deadline policy and is refused alike;
 * SCHED_FLAG_KEEP_PARAMS keeps the parameters, not the privilege.  What
 * the owner of a deadline task that dropped its privileges may still do
 * is leave the class, to a fair policy at no lower nice value and keeping
 * SCHED_RESET_ON_FORK if it had it; that gives its bandwidth back.  Other
 * users' tasks may be read (sched_getattr) but not changed.  And a task in
 * a cgroup v2 cpuset partition is admitted against the partition's CPUs,
 * however much room the rest of the machine has.
 *
 * The privilege rules are the tree's kernel/sched/syscalls.c, which the
 * series does not touch; what each implementation does on its own is the
 * bandwidth accounting behind them (sched_dl_overflow() and the root
 * domains), which the tests hold to exact figures: a refused call leaves
 * the total allocated as it was, a task that left gives its share back.
 *
 * The unprivileged side runs in children that drop to nobody (uid and gid
 * 65534, no supplementary groups, no capabilities left).  They record each
 * call's result, and the target's attributes before and after it, in
 * memory shared with the test, which checks them and reads the root
 * domain's bandwidth (debugfs is root's only).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dl.h"
#include "file.h"
#include "tap.h"

#define MS NSEC_PER_MSEC
#define P20 (1ULL << 20)	/* a period whose bandwidth is the runtime */

#define NOBODY 65534
#define OTHER_USER 65533	/* a second unprivileged user */

#define MAX_TRIES 24
#define ANY_POLICY -1

/* One call made by an unprivileged child, and what it did to its target. */
struct try {
	char what[112];
	int want;		/* the errno wanted; 0: success */
	int policy;		/* the target's policy wanted after it */
	bool same;		/* the target's attributes must not change */
	long ret;
	int err;
	struct dl_attr before, after;
};

/* Shared between a test and its unprivileged children. */
struct probe {
	int setup;		/* 0, or the errno of the child's setup */
	char setup_what[64];
	uid_t uid, euid;	/* as the child found them */
	unsigned long long cap_eff;
	pid_t pid[4];		/* targets the test hands the child */
	int n;
	struct try t[MAX_TRIES];
};

static const char *errname(int e)
{
	switch (e) {
	case 0:
		return "success";
	case EPERM:
		return "EPERM";
	case EINVAL:
		return "EINVAL";
	case EBUSY:
		return "EBUSY";
	case EAGAIN:
		return "EAGAIN";
	default:
		return strerror(e);
	}
}

static const char *attr_str(const struct dl_attr *a, char *buf, size_t len)
{
	snprintf(buf, len,
		 "policy %u flags %#llx nice %d prio %u %llu/%llu/%llu",
		 a->sched_policy, (unsigned long long)a->sched_flags,
		 a->sched_nice, a->sched_priority,
		 (unsigned long long)a->sched_runtime,
		 (unsigned long long)a->sched_deadline,
		 (unsigned long long)a->sched_period);
	return buf;
}

static bool attr_same(const struct dl_attr *a, const struct dl_attr *b)
{
	return a->sched_policy == b->sched_policy &&
	       a->sched_flags == b->sched_flags &&
	       a->sched_nice == b->sched_nice &&
	       a->sched_priority == b->sched_priority &&
	       a->sched_runtime == b->sched_runtime &&
	       a->sched_deadline == b->sched_deadline &&
	       a->sched_period == b->sched_period;
}

static void getattr_of(pid_t pid, struct dl_attr *a)
{
	memset(a, 0, sizeof(*a));
	if (dl_getattr(pid, a, sizeof(*a), 0))
		a->sched_policy = ~0U;
}

/*
 * In a child: records a call's result (errno is read first, before
 * anything can change it) and its target's attributes after it.
 */
static void tried(struct probe *pr, const struct dl_attr *before, pid_t pid,
		  long ret, int want, int policy, bool same,
		  const char *fmt, ...)
{
	struct try *t = &pr->t[pr->n];
	int e = errno;
	va_list ap;

	if (pr->n >= MAX_TRIES)
		return;
	t->ret = ret;
	t->err = ret == -1 ? e : 0;
	t->want = want;
	t->policy = policy;
	t->same = same;
	t->before = *before;
	va_start(ap, fmt);
	vsnprintf(t->what, sizeof(t->what), fmt, ap);
	va_end(ap);
	getattr_of(pid, &t->after);
	pr->n++;
}

/*
 * TRY(probe, target pid, errno wanted, policy wanted after, unchanged?,
 *     call, description...): makes the call and records it.
 */
#define TRY(pr, pid, want, policy, same, call, ...)			\
	do {								\
		pid_t p_ = (pid);					\
		struct dl_attr b_;					\
		long r_;						\
									\
		getattr_of(p_, &b_);					\
		r_ = (call);						\
		tried((pr), &b_, p_, r_, (want), (policy), (same),	\
		      __VA_ARGS__);					\
	} while (0)

/* The test's side: every recorded call as the tree's rules want it. */
static void check_tries(const struct probe *pr)
{
	char b1[128], b2[128];
	int i;

	for (i = 0; i < pr->n; i++) {
		const struct try *t = &pr->t[i];

		tap_diag("%s: %ld %s", t->what, t->ret,
			 t->ret == -1 ? errname(t->err) : "");
		if (t->want)
			tap_check_errno(t->ret, t->err, t->want,
					errname(t->want), __FILE__, __LINE__,
					t->what);
		else
			CHECK(t->ret != -1, "%s: %s, want success", t->what,
			      errname(t->err));
		if (t->policy != ANY_POLICY)
			CHECK((int)t->after.sched_policy == t->policy,
			      "%s: policy %d after it, want %d", t->what,
			      (int)t->after.sched_policy, t->policy);
		if (t->same)
			CHECK(attr_same(&t->before, &t->after),
			      "%s: changed the target from %s to %s", t->what,
			      attr_str(&t->before, b1, sizeof(b1)),
			      attr_str(&t->after, b2, sizeof(b2)));
	}
	CHECK(pr->n > 0 && pr->n < MAX_TRIES, "%d calls recorded", pr->n);
}

static struct probe *probe_new(void)
{
	struct probe *pr = mmap(NULL, sizeof(*pr), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	REQUIRE(pr != MAP_FAILED, "mmap: %s", strerror(errno));
	memset(pr, 0, sizeof(*pr));
	return pr;
}

static unsigned long long cap_eff(void)
{
	unsigned long long v = ~0ULL;
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* setgroups, setgid, setuid: as a login program drops to a user. */
static int drop_to(uid_t uid)
{
	return setgroups(0, NULL) || setgid(uid) || setuid(uid) ? -1 : 0;
}

static void setup_failed(struct probe *pr, const char *what)
{
	pr->setup = errno ? errno : EIO;
	snprintf(pr->setup_what, sizeof(pr->setup_what), "%s", what);
}

/*
 * Forks a child that runs @as_root (if any) as root, drops to @uid and runs
 * @as_user.  Returns once @as_user has returned, with the child left
 * asleep (a deadline task keeps its bandwidth) until sleeper_end().
 */
static pid_t probe_run(struct probe *pr, int (*as_root)(void), uid_t uid,
		       void (*as_user)(struct probe *))
{
	int fds[2];
	char c;
	pid_t pid;

	REQUIRE(pipe(fds) == 0, "pipe: %s", strerror(errno));
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(fds[0]);
		if (as_root && as_root()) {
			setup_failed(pr, "set up as root");
		} else if (drop_to(uid)) {
			setup_failed(pr, "dropping privileges");
		} else {
			pr->uid = getuid();
			pr->euid = geteuid();
			pr->cap_eff = cap_eff();
			as_user(pr);
		}
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	c = 0;
	if (read(fds[0], &c, 1) != 1)
		c = 0;
	close(fds[0]);
	if (!c || pr->setup)
		sleeper_end(pid);
	REQUIRE(c, "the child died before it reported");
	REQUIRE(!pr->setup, "the child could not %s: %s", pr->setup_what,
		strerror(pr->setup));
	REQUIRE(pr->uid == uid && pr->euid == uid, "the child is uid %u/%u",
		(unsigned int)pr->uid, (unsigned int)pr->euid);
	REQUIRE(pr->cap_eff == 0, "the child kept capabilities %#llx",
		pr->cap_eff);
	return pid;
}

/* A child asleep as @uid, for the tests that change other users' tasks. */
static void nothing(struct probe *pr)
{
	(void)pr;
}

static pid_t sleeper_as(uid_t uid)
{
	return probe_run(probe_new(), NULL, uid, nothing);
}

/* The total allocated in the root domain of CPU 0 (all CPUs, unpartitioned). */
static long long total_bw(void)
{
	long long bw, total;

	REQUIRE(dl_bw_of_cpu(0, &bw, &total) == 0, "read sched/debug");
	return total;
}

static long long bw_of(unsigned long long runtime, unsigned long long period)
{
	return (long long)((runtime << 20) / period);
}

/* Settles what earlier tests held; returns the total allocated then. */
static long long known_base(void)
{
	REQUIRE(dl_sysctl_known_state() == 0, "sysctls: %s", strerror(errno));
	return total_bw();
}

/* After the test's tasks are gone, their bandwidth must come back. */
static void check_returned(long long base, const char *what)
{
	long long t;

	if (dl_total_bw_wait(0, base, 2000) == 0)
		return;
	t = total_bw();
	CHECK(0, "%s: total_bw %lld, was %lld before", what, t, base);
}

static struct dl_attr dl(unsigned long long runtime_ms,
			 unsigned long long deadline_ms,
			 unsigned long long period_ms, uint64_t flags)
{
	return dl_attr_make(runtime_ms * MS, deadline_ms * MS, period_ms * MS,
			    flags);
}

static struct dl_attr fair(int policy, int nice)
{
	struct dl_attr a = {
		.size = DL_ATTR_SIZE_VER1,
		.sched_policy = policy,
		.sched_nice = nice,
	};

	return a;
}

static struct dl_attr rt(int policy, int prio)
{
	struct dl_attr a = {
		.size = DL_ATTR_SIZE_VER1,
		.sched_policy = policy,
		.sched_priority = prio,
	};

	return a;
}

static long setattr(pid_t pid, struct dl_attr a)
{
	return dl_setattr(pid, &a, 0);
}

static long setscheduler(pid_t pid, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return sched_setscheduler(pid, policy, &sp);
}

/* ---- 1. An unprivileged user cannot create a deadline task. ---- */

static void nobody_tries_deadline(struct probe *pr)
{
	struct dl_attr k = dl(10, 100, 100, DL_FLAG_KEEP_POLICY);
	struct dl_attr kp = dl(10, 100, 100, DL_FLAG_KEEP_PARAMS);

	TRY(pr, 0, EPERM, SCHED_OTHER, true, setattr(0, dl(10, 100, 100, 0)),
	    "10/100 ms");
	TRY(pr, 0, EPERM, SCHED_OTHER, true,
	    setattr(0, dl_attr_make(1024, NSEC_PER_SEC, NSEC_PER_SEC, 0)),
	    "the least bandwidth there is (1024 ns per s)");
	TRY(pr, 0, EPERM, SCHED_OTHER, true,
	    setattr(0, dl(10, 100, 100, DL_FLAG_RECLAIM)), "with RECLAIM");
	TRY(pr, 0, EPERM, SCHED_OTHER, true,
	    setattr(0, dl(10, 100, 100, DL_FLAG_RESET_ON_FORK)),
	    "with RESET_ON_FORK");
	TRY(pr, getpid(), EPERM, SCHED_OTHER, true,
	    setattr(getpid(), dl(10, 100, 100, 0)), "by its own pid");
	/* KEEP_PARAMS takes the fair parameters: still a deadline policy */
	TRY(pr, 0, EPERM, SCHED_OTHER, true, dl_setattr(0, &kp, 0),
	    "with KEEP_PARAMS");
	/* sched_setscheduler() cannot carry a runtime: the attr is invalid */
	TRY(pr, 0, EINVAL, SCHED_OTHER, true,
	    setscheduler(0, SCHED_DEADLINE, 0), "through sched_setscheduler");
	/*
	 * KEEP_POLICY keeps SCHED_OTHER: the call is a fair one (its runtime
	 * is taken as the fair slice), and the task stays SCHED_OTHER.
	 */
	TRY(pr, 0, 0, SCHED_OTHER, false, dl_setattr(0, &k, 0),
	    "with KEEP_POLICY (a fair call: stays SCHED_OTHER)");
}

/* As nobody: sched_setattr(SCHED_DEADLINE) in every form is refused. */
static void nobody_cannot_become_deadline(void)
{
	struct probe *pr = probe_new();
	long long base = known_base();
	pid_t pid;

	pid = probe_run(pr, NULL, NOBODY, nobody_tries_deadline);
	check_tries(pr);
	CHECK(total_bw() == base, "total_bw %lld, was %lld", total_bw(), base);
	sleeper_end(pid);
}

static int raise_rtprio(void)
{
	struct rlimit rl = { 99, 99 };

	return setrlimit(RLIMIT_RTPRIO, &rl);
}

static void nobody_with_rtprio_tries(struct probe *pr)
{
	TRY(pr, 0, EPERM, SCHED_OTHER, true, setattr(0, dl(10, 100, 100, 0)),
	    "SCHED_DEADLINE with RLIMIT_RTPRIO 99");
	/* The limit is there: it grants SCHED_FIFO, which it may. */
	TRY(pr, 0, 0, SCHED_FIFO, false, setattr(0, rt(SCHED_FIFO, 10)),
	    "SCHED_FIFO 10 with RLIMIT_RTPRIO 99");
	TRY(pr, 0, EPERM, SCHED_FIFO, true, setattr(0, dl(10, 100, 100, 0)),
	    "SCHED_DEADLINE from SCHED_FIFO");
	TRY(pr, 0, 0, SCHED_OTHER, false, setattr(0, fair(SCHED_OTHER, 0)),
	    "back to SCHED_OTHER");
}

/* RLIMIT_RTPRIO, raised by root before the drop, does not grant the class. */
static void nobody_with_rlimit_rtprio_cannot_become_deadline(void)
{
	struct probe *pr = probe_new();
	long long base = known_base();
	pid_t pid;

	pid = probe_run(pr, raise_rtprio, NOBODY, nobody_with_rtprio_tries);
	check_tries(pr);
	CHECK(total_bw() == base, "total_bw %lld, was %lld", total_bw(), base);
	sleeper_end(pid);
}

/* ---- 2. Other users' tasks: readable, not changeable. ---- */

static void others_tasks_tries(struct probe *pr, pid_t p, const char *whose)
{
	struct dl_attr kp = dl(10, 100, 100, DL_FLAG_KEEP_PARAMS);
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	TRY(pr, p, EPERM, SCHED_OTHER, true,
	    setattr(p, fair(SCHED_OTHER, 5)), "%s: SCHED_OTHER nice 5", whose);
	TRY(pr, p, EPERM, SCHED_OTHER, true,
	    setattr(p, fair(SCHED_BATCH, 0)), "%s: SCHED_BATCH", whose);
	TRY(pr, p, EPERM, SCHED_OTHER, true,
	    setattr(p, fair(SCHED_IDLE, 0)), "%s: SCHED_IDLE", whose);
	TRY(pr, p, EPERM, SCHED_OTHER, true,
	    setscheduler(p, SCHED_BATCH, 0),
	    "%s: sched_setscheduler(SCHED_BATCH)", whose);
	TRY(pr, p, EPERM, SCHED_OTHER, true,
	    setattr(p, dl(10, 100, 100, 0)), "%s: SCHED_DEADLINE", whose);
	TRY(pr, p, EPERM, SCHED_OTHER, true, dl_setattr(p, &kp, 0),
	    "%s: SCHED_DEADLINE with KEEP_PARAMS", whose);
	TRY(pr, p, EPERM, SCHED_OTHER, true,
	    sched_setaffinity(p, sizeof(one), &one),
	    "%s: sched_setaffinity(CPU 0)", whose);
	TRY(pr, p, EPERM, SCHED_OTHER, true,
	    setpriority(PRIO_PROCESS, p, 5), "%s: setpriority 5", whose);
}

static void nobody_changes_others(struct probe *pr)
{
	pid_t same = pr->pid[2];

	others_tasks_tries(pr, pr->pid[0], "root's task");
	others_tasks_tries(pr, pr->pid[1], "another user's task");
	/* The same calls on its own user's task are allowed, but deadline. */
	TRY(pr, same, 0, SCHED_OTHER, false,
	    setattr(same, fair(SCHED_OTHER, 5)),
	    "nobody's own other task: SCHED_OTHER nice 5");
	TRY(pr, same, EPERM, SCHED_OTHER, true,
	    setattr(same, dl(10, 100, 100, 0)),
	    "nobody's own other task: SCHED_DEADLINE");
}

static bool all_cpus(pid_t pid)
{
	cpu_set_t s;
	int n = (int)sysconf(_SC_NPROCESSORS_ONLN);

	return sched_getaffinity(pid, sizeof(s), &s) == 0 && CPU_COUNT(&s) == n;
}

/* Root's and another user's tasks: every change is EPERM, and none is made. */
static void nobody_cannot_change_other_users_tasks(void)
{
	struct probe *pr = probe_new();
	pid_t pid;
	int i;

	pr->pid[0] = sleeper_spawn();
	pr->pid[1] = sleeper_as(OTHER_USER);
	pr->pid[2] = sleeper_as(NOBODY);
	pid = probe_run(pr, NULL, NOBODY, nobody_changes_others);
	check_tries(pr);
	for (i = 0; i < 2; i++) {
		errno = 0;
		CHECK(getpriority(PRIO_PROCESS, pr->pid[i]) == 0 && !errno,
		      "target %d's nice changed", i);
		CHECK(all_cpus(pr->pid[i]), "target %d's affinity changed", i);
	}
	sleeper_end(pid);
	for (i = 0; i < 3; i++)
		sleeper_end(pr->pid[i]);
}

static void nobody_changes_roots_dl(struct probe *pr)
{
	struct dl_attr kp = dl(10, 100, 100,
			       DL_FLAG_KEEP_PARAMS | DL_FLAG_RECLAIM);
	struct dl_attr kpo = fair(SCHED_OTHER, 0);
	struct dl_attr kpol = dl(20, 100, 100, DL_FLAG_KEEP_POLICY);
	pid_t p = pr->pid[0];
	cpu_set_t one;

	kpo.sched_flags = DL_FLAG_KEEP_PARAMS;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	TRY(pr, p, EPERM, SCHED_DEADLINE, true, setattr(p, dl(20, 100, 100, 0)),
	    "raising its runtime to 20 ms");
	TRY(pr, p, EPERM, SCHED_DEADLINE, true, setattr(p, dl(5, 100, 100, 0)),
	    "lowering its runtime to 5 ms");
	TRY(pr, p, EPERM, SCHED_DEADLINE, true, setattr(p, dl(10, 100, 100, 0)),
	    "the parameters it has");
	TRY(pr, p, EPERM, SCHED_DEADLINE, true, dl_setattr(p, &kp, 0),
	    "KEEP_PARAMS, RECLAIM asked");
	TRY(pr, p, EPERM, SCHED_DEADLINE, true, dl_setattr(p, &kpol, 0),
	    "raising its runtime with KEEP_POLICY");
	TRY(pr, p, EPERM, SCHED_DEADLINE, true,
	    setattr(p, fair(SCHED_OTHER, 0)), "moving it to SCHED_OTHER");
	TRY(pr, p, EPERM, SCHED_DEADLINE, true, dl_setattr(p, &kpo, 0),
	    "SCHED_OTHER with KEEP_PARAMS");
	TRY(pr, p, EPERM, SCHED_DEADLINE, true, setscheduler(p, SCHED_OTHER, 0),
	    "sched_setscheduler(SCHED_OTHER)");
	TRY(pr, p, EPERM, SCHED_DEADLINE, true,
	    sched_setaffinity(p, sizeof(one), &one),
	    "sched_setaffinity(CPU 0)");
}

/* Root's deadline task: no change of parameters, none of policy, by nobody. */
static void nobody_cannot_change_roots_deadline_task(void)
{
	struct dl_attr a = dl(10, 100, 100, 0), now;
	struct probe *pr = probe_new();
	long long base = known_base();
	pid_t pid;

	pr->pid[0] = sleeper_spawn();
	REQUIRE(dl_setattr(pr->pid[0], &a, 0) == 0, "root's setattr: %s",
		strerror(errno));
	pid = probe_run(pr, NULL, NOBODY, nobody_changes_roots_dl);
	check_tries(pr);
	getattr_of(pr->pid[0], &now);
	CHECK(now.sched_policy == SCHED_DEADLINE &&
	      now.sched_runtime == 10 * MS && now.sched_period == 100 * MS,
	      "root's task is now policy %u runtime %llu period %llu",
	      now.sched_policy, (unsigned long long)now.sched_runtime,
	      (unsigned long long)now.sched_period);
	CHECK(all_cpus(pr->pid[0]), "root's task's affinity changed");
	CHECK(total_bw() == base + bw_of(10 * MS, 100 * MS),
	      "total_bw %lld, want %lld + %lld", total_bw(), base,
	      bw_of(10 * MS, 100 * MS));
	sleeper_end(pid);
	sleeper_end(pr->pid[0]);
	check_returned(base, "after the tasks exited");
}

static void nobody_reads_roots_dl(struct probe *pr)
{
	int want = SCHED_DEADLINE | SCHED_RESET_ON_FORK_BIT;
	struct dl_attr a;
	pid_t p = pr->pid[0];

	TRY(pr, p, 0, SCHED_DEADLINE, true, dl_getattr(p, &a, sizeof(a), 0),
	    "sched_getattr of root's deadline task");
	TRY(pr, p, 0, SCHED_DEADLINE, true,
	    sched_getscheduler(p) == want ? 0 : -1,
	    "sched_getscheduler of it is SCHED_DEADLINE|RESET_ON_FORK");
}

/* sched_getattr of another user's task is allowed, and exact. */
static void nobody_can_read_other_users_deadline_parameters(void)
{
	unsigned long long flags = DL_FLAG_RESET_ON_FORK | DL_FLAG_RECLAIM;
	struct dl_attr a = dl(10, 30, 100, flags), mine;
	struct probe *pr = probe_new();
	const struct dl_attr *seen;
	char b1[128], b2[128];
	pid_t pid;

	known_base();
	pr->pid[0] = sleeper_spawn();
	REQUIRE(dl_setattr(pr->pid[0], &a, 0) == 0, "root's setattr: %s",
		strerror(errno));
	pid = probe_run(pr, NULL, NOBODY, nobody_reads_roots_dl);
	check_tries(pr);
	getattr_of(pr->pid[0], &mine);
	seen = &pr->t[0].after;
	CHECK(seen->sched_policy == SCHED_DEADLINE &&
	      seen->sched_runtime == 10 * MS &&
	      seen->sched_deadline == 30 * MS &&
	      seen->sched_period == 100 * MS && seen->sched_flags == flags,
	      "nobody read %s", attr_str(seen, b1, sizeof(b1)));
	CHECK(attr_same(seen, &mine), "nobody read %s, root %s",
	      attr_str(seen, b1, sizeof(b1)), attr_str(&mine, b2, sizeof(b2)));
	sleeper_end(pid);
	sleeper_end(pr->pid[0]);
}

/* ---- 3. A deadline task that dropped its privileges. ---- */

static int become_dl(void)
{
	return dl_become(10 * MS, 100 * MS, 100 * MS, 0);
}

static int become_dl_rof(void)
{
	return dl_become(10 * MS, 100 * MS, 100 * MS,
			 DL_FLAG_RESET_ON_FORK | DL_FLAG_RECLAIM);
}

/* fork() from a deadline task; a child, if any, exits at once. */
static long fork_once(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid < 0 ? -1 : 0;
}

/*
 * Runs @as_user in a deadline task (10/100 ms, @flags) that root made
 * and that then dropped to nobody; checks that the root domain holds
 * exactly its bandwidth when @as_user is done, and none once it is gone.
 */
static void dropped_dl_task(int (*as_root)(void),
			    void (*as_user)(struct probe *), bool still_dl)
{
	struct probe *pr = probe_new();
	long long base = known_base(), t;
	long long mine = still_dl ? bw_of(10 * MS, 100 * MS) : 0;
	pid_t pid;

	pid = probe_run(pr, as_root, NOBODY, as_user);
	check_tries(pr);
	if (still_dl) {
		t = total_bw();
		CHECK(t == base + mine, "total_bw %lld, want %lld + %lld", t,
		      base, mine);
	} else {
		check_returned(base, "after the task left the class");
	}
	sleeper_end(pid);
	check_returned(base, "after the task exited");
}

static void raise_tries(struct probe *pr)
{
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true, setattr(0, dl(20, 100, 100, 0)),
	    "raising its runtime to 20 ms");
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true, setattr(0, dl(10, 50, 50, 0)),
	    "shortening its period to 50 ms");
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true, setattr(0, dl(10, 20, 100, 0)),
	    "shortening its deadline to 20 ms");
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true,
	    setattr(0, dl(100, 100, 100, 0)), "a whole CPU");
	TRY(pr, getpid(), EPERM, SCHED_DEADLINE, true,
	    setattr(getpid(), dl(20, 100, 100, 0)),
	    "raising its runtime by its pid");
	TRY(pr, 0, EAGAIN, SCHED_DEADLINE, true, fork_once(),
	    "fork (a child would hold bandwidth unadmitted)");
}

/* After setuid(), no more runtime, no shorter period, no child. */
static void dropped_dl_task_cannot_raise_its_bandwidth(void)
{
	dropped_dl_task(become_dl, raise_tries, true);
}

static void lower_tries(struct probe *pr)
{
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true, setattr(0, dl(5, 100, 100, 0)),
	    "lowering its runtime to 5 ms");
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true,
	    setattr(0, dl(10, 200, 200, 0)),
	    "lengthening its period to 200 ms");
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true,
	    setattr(0, dl(10, 100, 100, 0)), "setting the parameters it has");
}

/*
 * The tree does not let an unprivileged task change its deadline
 * parameters at all, even to less bandwidth ("in the future we would like
 * to allow unprivileged DL tasks to ... reduce their runtime").
 */
static void dropped_dl_task_cannot_lower_its_bandwidth_either(void)
{
	dropped_dl_task(become_dl, lower_tries, true);
}

static void flag_tries(struct probe *pr)
{
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true,
	    setattr(0, dl(10, 100, 100, DL_FLAG_RECLAIM)), "setting RECLAIM");
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true,
	    setattr(0, dl(10, 100, 100, DL_FLAG_DL_OVERRUN)),
	    "setting DL_OVERRUN");
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true,
	    setattr(0, dl(10, 100, 100, DL_FLAG_RESET_ON_FORK)),
	    "setting RESET_ON_FORK");
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true,
	    setattr(0, dl(5, 100, 100, DL_FLAG_RECLAIM)),
	    "RECLAIM with less runtime");
}

/* Nor any flag: RECLAIM (GRUB) above all, which takes idle time. */
static void dropped_dl_task_cannot_set_flags(void)
{
	dropped_dl_task(become_dl, flag_tries, true);
}

static void keep_tries(struct probe *pr)
{
	struct dl_attr kpol = fair(SCHED_OTHER, 0);
	struct dl_attr kp = dl(10, 100, 100,
			       DL_FLAG_KEEP_PARAMS | DL_FLAG_RECLAIM);
	struct dl_attr both = dl(1, 1, 1, DL_FLAG_KEEP_PARAMS |
				 DL_FLAG_KEEP_POLICY | DL_FLAG_RECLAIM);
	struct dl_attr kpo = fair(SCHED_OTHER, 0);

	kpol.sched_flags = DL_FLAG_KEEP_POLICY;
	kpol.sched_runtime = 20 * MS;
	kpol.sched_deadline = 100 * MS;
	kpol.sched_period = 100 * MS;
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true, dl_setattr(0, &kpol, 0),
	    "KEEP_POLICY (SCHED_OTHER in the attr) with 20 ms");
	kpol.sched_policy = SCHED_DEADLINE;
	kpol.sched_runtime = 5 * MS;
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true, dl_setattr(0, &kpol, 0),
	    "KEEP_POLICY with 5 ms");
	/*
	 * KEEP_PARAMS takes the task's flags with its parameters, so the
	 * RECLAIM asked would be dropped; the policy is still deadline.
	 */
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true, dl_setattr(0, &kp, 0),
	    "KEEP_PARAMS, RECLAIM asked");
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true, dl_setattr(0, &both, 0),
	    "KEEP_POLICY|KEEP_PARAMS, RECLAIM asked");
	/*
	 * Allowed, since leaving is: but KEEP_PARAMS skips the change of
	 * class along with the parameters, so nothing changes at all.
	 */
	kpo.sched_flags = DL_FLAG_KEEP_PARAMS;
	TRY(pr, 0, 0, SCHED_DEADLINE, true, dl_setattr(0, &kpo, 0),
	    "SCHED_OTHER with KEEP_PARAMS (changes nothing)");
}

/* KEEP_POLICY and KEEP_PARAMS are no way around the privilege check. */
static void dropped_dl_task_keep_policy_keep_params_refused(void)
{
	dropped_dl_task(become_dl, keep_tries, true);
}

static void same_user_tries(struct probe *pr)
{
	struct dl_attr kpol = dl(20, 100, 100, DL_FLAG_KEEP_POLICY);
	pid_t p = pr->pid[0];

	TRY(pr, p, EPERM, SCHED_DEADLINE, true, setattr(p, dl(20, 100, 100, 0)),
	    "raising its runtime to 20 ms");
	TRY(pr, p, EPERM, SCHED_DEADLINE, true, setattr(p, dl(10, 50, 50, 0)),
	    "shortening its period to 50 ms");
	TRY(pr, p, EPERM, SCHED_DEADLINE, true,
	    setattr(p, dl(10, 100, 100, DL_FLAG_RECLAIM)), "setting RECLAIM");
	TRY(pr, p, EPERM, SCHED_DEADLINE, true, dl_setattr(p, &kpol, 0),
	    "KEEP_POLICY with 20 ms");
}

/* Another process of the same user cannot do it on the task's behalf. */
static void same_user_process_cannot_raise_a_dropped_dl_task(void)
{
	struct probe *dlp = probe_new(), *pr = probe_new();
	long long base = known_base(), t;
	pid_t d, pid;

	d = probe_run(dlp, become_dl, NOBODY, nothing);
	pr->pid[0] = d;
	pid = probe_run(pr, NULL, NOBODY, same_user_tries);
	check_tries(pr);
	t = total_bw();
	CHECK(t == base + bw_of(10 * MS, 100 * MS),
	      "total_bw %lld, want %lld + %lld", t, base,
	      bw_of(10 * MS, 100 * MS));
	sleeper_end(pid);
	sleeper_end(d);
	check_returned(base, "after the tasks exited");
}

static void rof_tries(struct probe *pr)
{
	pid_t pid;

	TRY(pr, 0, EPERM, SCHED_DEADLINE, true,
	    setattr(0, dl(10, 100, 100, DL_FLAG_RESET_ON_FORK)),
	    "clearing RECLAIM");
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true,
	    setattr(0, dl(10, 100, 100, DL_FLAG_RECLAIM)),
	    "clearing RESET_ON_FORK");
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true,
	    setattr(0, fair(SCHED_OTHER, 0)),
	    "leaving for SCHED_OTHER without RESET_ON_FORK");
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true, setscheduler(0, SCHED_OTHER, 0),
	    "sched_setscheduler(SCHED_OTHER) without RESET_ON_FORK");
	/* Its child starts as SCHED_OTHER, and stays there. */
	pid = fork();
	if (pid == 0) {
		TRY(pr, 0, EPERM, SCHED_OTHER, true,
		    setattr(0, dl(10, 100, 100, 0)),
		    "its reset-on-fork child: SCHED_DEADLINE");
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	TRY(pr, 0, 0, SCHED_DEADLINE, true, pid < 0 ? -1 : 0,
	    "fork with RESET_ON_FORK");
}

/*
 * With RESET_ON_FORK (and RECLAIM): no flag cleared, and leaving the
 * class without RESET_ON_FORK is refused ("Normal users shall not reset
 * the sched_reset_on_fork flag"); its children are SCHED_OTHER for good.
 */
static void dropped_reset_on_fork_task_keeps_its_flags(void)
{
	dropped_dl_task(become_dl_rof, rof_tries, true);
}

static void leave_tries(struct probe *pr)
{
	struct dl_attr nice = fair(SCHED_OTHER, -1);
	struct dl_attr fifo = rt(SCHED_FIFO, 1);
	struct dl_attr rof = fair(SCHED_OTHER, 0);

	/* RESET_ON_FORK in each: only the nice value or the class is asked */
	nice.sched_flags = DL_FLAG_RESET_ON_FORK;
	fifo.sched_flags = DL_FLAG_RESET_ON_FORK;
	rof.sched_flags = DL_FLAG_RESET_ON_FORK;
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true, dl_setattr(0, &nice, 0),
	    "SCHED_OTHER at nice -1 (RLIMIT_NICE 0)");
	TRY(pr, 0, EPERM, SCHED_DEADLINE, true, dl_setattr(0, &fifo, 0),
	    "SCHED_FIFO 1 (RLIMIT_RTPRIO 0)");
	TRY(pr, 0, 0, SCHED_OTHER, false, dl_setattr(0, &rof, 0),
	    "SCHED_OTHER at nice 0, with RESET_ON_FORK");
	TRY(pr, 0, EPERM, SCHED_OTHER, true,
	    setattr(0, dl(10, 100, 100, DL_FLAG_RESET_ON_FORK)),
	    "back to SCHED_DEADLINE");
	TRY(pr, 0, EPERM, SCHED_OTHER, true,
	    setattr(0, fair(SCHED_OTHER, 0)),
	    "clearing RESET_ON_FORK as SCHED_OTHER");
}

/*
 * What it may do: leave for SCHED_OTHER at its nice value or above, which
 * gives its bandwidth back; and then it cannot come back.
 */
static void dropped_dl_task_may_leave_but_not_return(void)
{
	dropped_dl_task(become_dl_rof, leave_tries, false);
}

/* ---- 4. A cgroup v2 cpuset partition of one CPU. ---- */

#define V2 "/sys/fs/cgroup"
#define PART V2 "/security"

static pid_t part_pid[4];
static bool part_made, v2_mounted;

static int ncpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* Run at the test's exit, REQUIRE or not: the next suites start clean. */
static void part_teardown(void)
{
	int i;

	for (i = 0; i < 4; i++)
		if (part_pid[i] > 0)
			sleeper_end(part_pid[i]);
	/* Past the 0-lag time of the tasks just killed: see dl.h. */
	usleep(200 * 1000);
	if (part_made) {
		file_put(PART "/cpuset.cpus.partition", "member");
		for (i = 0; i < 50 && rmdir(PART) && errno == EBUSY; i++)
			usleep(20 * 1000);
	}
	if (v2_mounted)
		umount(V2);
	dl_sysctl_known_state();
}

/* A root partition of the last CPU; returns that CPU. */
static int part_make(void)
{
	int cpu = ncpus() - 1, r;
	char state[64] = "";
	FILE *f;

	REQUIRE(ncpus() >= 2, "needs 2 CPUs");
	REQUIRE(dl_sysctl_known_state() == 0, "sysctls: %s", strerror(errno));
	atexit(part_teardown);
	mkdir(V2, 0755);
	REQUIRE(mount("none", V2, "cgroup2", 0, NULL) == 0,
		"mount cgroup2: %s", strerror(errno));
	v2_mounted = true;
	REQUIRE(file_put(V2 "/cgroup.subtree_control", "+cpuset") == 0,
		"enabling cpuset: %s", strerror(errno));
	REQUIRE(!mkdir(PART, 0755) || errno == EEXIST, "mkdir: %s",
		strerror(errno));
	part_made = true;
	r = file_put(PART "/cpuset.cpus", "%d", cpu) ||
	    file_put(PART "/cpuset.cpus.partition", "root");
	REQUIRE(!r, "making CPU %d a partition: %s", cpu, strerror(errno));
	f = fopen(PART "/cpuset.cpus.partition", "r");
	REQUIRE(f && fgets(state, sizeof(state), f), "reading the partition");
	fclose(f);
	REQUIRE(!strcmp(state, "root\n"), "the partition is %s", state);
	return cpu;
}

/*
 * A sleeper moved into the partition and woken once, so that it runs
 * there: admission looks at the root domain of the CPU the task last ran
 * on.
 */
static pid_t part_sleeper(int i)
{
	pid_t pid = sleeper_spawn();

	part_pid[i] = pid;
	REQUIRE(file_put(PART "/cgroup.procs", "%d", pid) == 0,
		"moving %d into the partition: %s", pid, strerror(errno));
	sleeper_nudge(pid);
	return pid;
}

static void domain_of(int cpu, long long *bw, long long *total)
{
	REQUIRE(dl_bw_of_cpu(cpu, bw, total) == 0, "read sched/debug");
}

static long hold(pid_t pid, long long runtime)
{
	struct dl_attr a = dl_attr_make(runtime, P20, P20, 0);

	return dl_setattr(pid, &a, 0);
}

/* Admits @pid with @runtime every 2^20 ns, which must succeed. */
static void must_hold(pid_t pid, long long runtime, const char *what)
{
	long r = hold(pid, runtime);

	/* errno read after the call: CHECK's arguments have no order */
	CHECK(r == 0, "%s (%lld): %s", what, runtime, strerror(errno));
}

/*
 * Fills the partition of one CPU with two tasks, exactly to its limit,
 * which this reads (bw - total_bw, as admission control has it) rather
 * than assumes.  Returns the partition's CPU.
 */
static int part_fill(long long *rest_total)
{
	long long bw, total, avail, bw0;
	int cpu = part_make();
	pid_t a = part_sleeper(0), b = part_sleeper(1);

	domain_of(0, &bw0, rest_total);
	domain_of(cpu, &bw, &total);
	avail = bw - total;
	tap_diag("partition of CPU %d: bw %lld, total_bw %lld, %lld free; "
		 "the other CPUs' domain: %lld allocated", cpu, bw, total,
		 avail, *rest_total);
	REQUIRE(avail > (long long)(P20 / 2 + P20 / 10),
		"only %lld free in the partition", avail);
	/* The last task half a CPU, so that its 0-lag time is near. */
	must_hold(a, avail - P20 / 2, "admitting the first task");
	must_hold(b, P20 / 2, "admitting the second task");
	domain_of(cpu, &bw, &total);
	CHECK(total == bw, "the partition holds %lld of %lld", total, bw);
	return cpu;
}

/*
 * Full to one CPU's limit, the partition refuses a task more with EBUSY,
 * though the other CPUs' domain has room for it; nor can an admitted task
 * grow, or a task get out by widening its affinity.
 */
static void partition_refuses_beyond_its_one_cpu(void)
{
	long long rest, bw, total, bw0, total0;
	struct dl_attr seen;
	pid_t c, b;
	cpu_set_t all, got;
	int cpu, i;
	long r;

	cpu = part_fill(&rest);
	b = part_pid[1];
	c = part_sleeper(2);
	domain_of(0, &bw0, &total0);
	CHECK(bw0 * (ncpus() - 1) - total0 >= (long long)P20 / 10,
	      "the other domain has %lld free: no room to show",
	      bw0 * (ncpus() - 1) - total0);
	r = hold(c, P20 / 10);
	CHECK_ERRNO(r, EBUSY, "a task more (0.1 CPU) in the full partition");
	r = hold(b, P20 / 2 + 1);
	CHECK_ERRNO(r, EBUSY, "an admitted task growing by one unit");
	getattr_of(b, &seen);
	CHECK(seen.sched_runtime == P20 / 2, "its runtime is now %llu",
	      (unsigned long long)seen.sched_runtime);
	CPU_ZERO(&all);
	for (i = 0; i < ncpus(); i++)
		CPU_SET(i, &all);
	r = sched_setaffinity(c, sizeof(all), &all);
	tap_diag("sched_setaffinity(all CPUs) in the partition: %ld", r);
	sleeper_nudge(c);
	CHECK(sched_getaffinity(c, sizeof(got), &got) == 0 &&
	      CPU_COUNT(&got) == 1 && CPU_ISSET(cpu, &got),
	      "the task's affinity left the partition");
	r = hold(c, P20 / 10);
	CHECK_ERRNO(r, EBUSY, "a task more, after widening its affinity");
	domain_of(cpu, &bw, &total);
	CHECK(total == bw, "the partition now holds %lld of %lld", total, bw);
}

/*
 * What the partition admits is charged to its own domain only; the same
 * task outside is admitted, and charged to the other CPUs' domain.
 */
static void partition_does_not_charge_the_other_domain(void)
{
	long long rest, bw, total, bw0, total0;
	pid_t out;
	int cpu;

	cpu = part_fill(&rest);
	domain_of(0, &bw0, &total0);
	CHECK(total0 == rest, "the other domain went from %lld to %lld",
	      rest, total0);
	out = sleeper_spawn();
	part_pid[3] = out;
	must_hold(out, P20 / 10, "the task more, outside");
	domain_of(0, &bw0, &total0);
	CHECK(total0 == rest + (long long)P20 / 10,
	      "the other domain holds %lld, want %lld + %lld", total0, rest,
	      (long long)P20 / 10);
	domain_of(cpu, &bw, &total);
	CHECK(total == bw, "the partition holds %lld of %lld", total, bw);
}

int main(void)
{
	static const struct tap_test tests[] = {
		TAP_TEST(nobody_cannot_become_deadline),
		TAP_TEST(nobody_with_rlimit_rtprio_cannot_become_deadline),
		TAP_TEST(nobody_cannot_change_other_users_tasks),
		TAP_TEST(nobody_cannot_change_roots_deadline_task),
		TAP_TEST(nobody_can_read_other_users_deadline_parameters),
		TAP_TEST(dropped_dl_task_cannot_raise_its_bandwidth),
		TAP_TEST(dropped_dl_task_cannot_lower_its_bandwidth_either),
		TAP_TEST(dropped_dl_task_cannot_set_flags),
		TAP_TEST(dropped_dl_task_keep_policy_keep_params_refused),
		TAP_TEST(same_user_process_cannot_raise_a_dropped_dl_task),
		TAP_TEST(dropped_reset_on_fork_task_keeps_its_flags),
		TAP_TEST(dropped_dl_task_may_leave_but_not_return),
		TAP_TEST(partition_refuses_beyond_its_one_cpu),
		TAP_TEST(partition_does_not_charge_the_other_domain),
		{ NULL, NULL }
	};

	return tap_run(tests);
}
