// SPDX-License-Identifier: GPL-2.0
/*
 * dlfuzz: a differential fuzzer of the scheduling ABI.
 *
 * A controller drives a pool of worker processes (NW of them, NT threads
 * each), every thread blocked on a pipe until told what to call.  Op i of
 * the sequence is a pure function of the seed and i (never of an earlier
 * result), so any subsequence (-k) makes the same calls; one op runs at a
 * time, so each call's result depends only on the kernel.  Each op's
 * record (index, op, arguments, result, errno, what a get-call returned)
 * goes into a running hash printed every -c ops ("ck INDEX HASH"); the
 * same seed on the tree's deadline class and on ours must print the same
 * lines.  Records never hold a pid or a time.
 *
 * Results that depend on timing are kept apart.  A deadline task that
 * leaves (exits, or changes policy) holds its bandwidth until its 0-lag
 * time; after such an op the controller waits until it is back (at most
 * -w ms, 30 s) before the next op whose result depends on the allocated
 * bandwidth: setattr, setscheduler, a cgroup or sysctl op, a read of the
 * accounting.  The 0-lag time comes from the task's last deadline, which
 * parameters changed while it slept do not move: up to a period of the
 * 4.19 s allowed later (seen: 3.4 s after the exit of a 10 ms / 20 ms
 * task, on both kernels).  Valid parameters keep a bandwidth of at least
 * 1%, so a debt of a millisecond pushes it by at most 100 ms more.
 *
 * Where the classic implementation is known to be wrong, the fuzzer does
 * not go by default; -K LETTERS goes there (-K all for every one):
 *   a  a sleeping deadline task switched to another policy keeps its
 *      bandwidth forever (admission.c: returned_when_sleeping_task_leaves).
 *      Avoided by having the target thread make such a call on itself
 *      (running, it gives its bandwidth back at its 0-lag time).
 *   b  any access to the sched_rt sysctls rebuilds the root domains and
 *      drops the fair servers' reservations from the accounting
 *      (admission.c: servers_kept_across_rebuild).  Avoided by setting
 *      the fair servers' runtime to 0 for the run (restored at the end).
 *   c  a rebuild during a 0-lag wait makes total_bw underflow
 *      (admission.c: rebuild_with_pending_zero_lag).  Avoided by waiting
 *      out pending 0-lag times before every op that rebuilds.
 *   e  a rebuild counts a deadline task asleep in the root domain of
 *      the CPU it last ran on, even where its cpuset no longer has that
 *      CPU (a partition made of it, the CPU offline); woken in its new
 *      domain, it keeps its bandwidth in the old one (the classic
 *      class takes it from the new domain when it leaves the class,
 *      which never counted it: cpuset.c's woken_off_an_offline_cpu and
 *      sleeper_counted_where_it_may_run; ours counts it where it may
 *      run: patch 0005).  Avoided, on several CPUs, by a
 *      rebuild (a read of a sched_rt sysctl) after the wake-up of every
 *      worker below; without it the records also follow where a worker
 *      last ran.
 *   f  the tree's cpuset code goes wrong with partitions, on both
 *      kernels (seed 1 of -H): it lets the root cgroup lose its last
 *      online CPU (CPU 1 taken offline while a partition holds CPU 0, or
 *      a partition made of CPU 0 while CPU 1 is offline), and then CPU
 *      1 does not come back to the root cgroup when online; new CPUs
 *      for an invalid partition warn in partition_xcpus_del(); two
 *      partitions side by side were passed on as overlapping, a warning
 *      in rebuild_sched_domains_locked(); and cpuset_attach() leaves a
 *      task's CPUs alone when its old and new cpusets have the same
 *      effective CPUs: moved from the root cgroup (whose tasks may run
 *      on every possible CPU) into fz0 (CPU 0) while CPU 1 is offline,
 *      a task keeps CPU 1, and runs there once it is back, outside its
 *      cpuset (seed 11 of -H, ops 565, 567, 674).  Avoided on several
 *      CPUs: CPU 1 goes offline only while the root cgroup has CPU 0,
 *      no cpuset is written and no task moved while CPU 1 is offline,
 *      only fz1 is made a partition, and an invalid partition's CPUs
 *      are not written.
 *   g  with admission control off in CPU 1's root domain of its own
 *      (sched_rt_runtime_us -1; or the default domain's stale limit,
 *      below), CPU 1 taken offline under a deadline task there: the
 *      classic class frees the task's bandwidth in the domain it leaves
 *      with a division by that domain's active CPUs, none: a divide
 *      error in set_cpus_allowed_dl() (stock; seed 1 of -H with f
 *      allowed, op 7436; seed 5, op 5741).  On both kernels the
 *      default root domain keeps the limit of the last write of
 *      sched_rt_runtime_us made while it had a CPU: -1 written with CPU
 *      1 offline stays there once 950000 is written with CPU 1 back,
 *      and an isolated partition then puts CPU 1 under no limit.
 *      Avoided: no offline while CPU 1's domain is its own and has no
 *      limit (bw -1 in the figures).
 *   h  sched_setattr() to SCHED_DEADLINE with SCHED_FLAG_KEEP_PARAMS on a
 *      task of another class allocates bandwidth and changes nothing,
 *      on the tree's kernel: see keeps_params_leak().
 *
 * On several CPUs, where a thread sleeps is the scheduler's choice, and
 * both kernels count a sleeping deadline task, at a rebuild, in the root
 * domain of the CPU it last ran on, and take an admission or affinity
 * decision about it there.  A thread that ran since the last change of
 * its cpuset's CPUs last ran on one of them, in the one domain they make
 * (a partition's CPUs make one): so after every op that changes which
 * CPUs a cpuset has (cgroup moves, cpus, partitions, CPU 1's hotplug),
 * the controller wakes every worker thread once (a "ping"; one too small
 * to run is stretched first, (d) below), and no record depends on where
 * a thread ran.  The bandwidth is then read from every root domain:
 * CPU 1's too while it is online and a partition is valid.
 *
 * One more limit is emulation's, on both kernels.  A deadline budget
 * shorter than the way from a context switch back to user space never
 * gets there: each time the thread is picked, its budget is spent before
 * it leaves the kernel, and it is throttled again.  Under -icount
 * shift=4 an instruction is 16 ns, and a 10 us budget is 625 of them: a
 * 10 us / 1 ms worker was seen on R for 120 s, 45811 switches and no
 * answer.  So no thread with a budget under a floor (-F NS; by default
 * 12500 instructions of guest time) is asked to run: a thread that
 * would make itself one has the controller make its call; one that has
 * to run (a call of its own, an exit) is first stretched to the floor,
 * its bandwidth and deadline/period ratio kept (the op is "starved" if
 * that is refused).  Its records show the parameters it then has.
 *
 * Usage: dlfuzz [-s SEED] [-n OPS] [-c EVERY] [-v FROM-TO] [-k LIST|@FILE]
 *               [-K LETTERS|all] [-w MS] [-F NS] [-t] [-Z] [-H] [-W]
 *   -k LIST: op indices (a,b-c,...) of the seeded sequence to run, alone;
 *   -H: the ops of several CPUs, for make test's suite "fuzz-smp2": CPU
 *       1 offline and online, and cpuset cpus and partitions, cgroup
 *       moves and affinities more often (another sequence: the weights
 *       differ);
 *   -W: name the op after which each kernel report (WARNING, BUG, oops)
 *       came, read from /dev/kmsg;
 *   -v FROM-TO also prints, as "dbg" lines, the waits and the rebuild
 *       offset in that range, and with DLFUZZ_DBG=1 in the environment
 *       the totals and the deadline workers after each op;
 *   -t: TAP (checkpoints as diagnostics), for make test's suite "fuzz";
 *   -Z: set-calls on a zombie too (a divergence: see settle's comment).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dl.h"
#include "file.h"
#include "tap.h"

#define NW 4			/* worker processes */
#define NT 2			/* threads in each */
#define NSLOT (NW * NT)
#define TEXT 320		/* a record's content */
#define CG "/sys/fs/cgroup"
#define FS_DIR "/sys/kernel/debug/sched/fair_server"
#define BAD_PID 0x3ffffff0	/* above any pid_max: ESRCH */

enum op_type {
	OP_SETATTR, OP_GETATTR, OP_SETSCHED, OP_GETSCHED, OP_GETPARAM,
	OP_SETAFF, OP_GETAFF, OP_YIELD, OP_FORK, OP_EXIT, OP_THREXIT,
	OP_CGMOVE, OP_CGCPUS, OP_SYSCTL_W, OP_SYSCTL_R, OP_BWREAD,
	OP_HOTPLUG,
	OP_NTYPES
};

static const char *const op_name[OP_NTYPES] = {
	"setattr", "getattr", "setsched", "getsched", "getparam", "setaff",
	"getaff", "yield", "fork", "exit", "threxit", "cgmove", "cgcpus",
	"sysctl_w", "sysctl_r", "bwread", "hotplug",
};

/* Relative frequencies of the op types; with -H, the second row. */
static const int op_weight[2][OP_NTYPES] = {
	{ 30, 10, 9, 4, 3, 5, 3, 3, 4, 1, 2, 4, 2, 4, 2, 2, 0 },
	{ 30, 10, 9, 4, 3, 8, 5, 3, 4, 1, 2, 6, 6, 4, 2, 3, 4 },
};

/* Whom a call names. */
enum target { T_ZERO, T_OWN, T_SLOT, T_NEG, T_BIG, T_ZOMBIE };

struct op {
	int type;
	int caller;		/* slot making the call */
	int tkind, tslot;	/* the target */
	unsigned int size;	/* attr, getattr or cpumask size */
	unsigned int flags;	/* the syscall's flags argument */
	int null;		/* a NULL pointer instead of the buffer */
	int tailpos, tailval;	/* a byte past the kernel's struct */
	int sub;		/* op-specific choice */
	long val;		/* policy, value, mask */
	struct dl_attr a;
};

/* What the controller sends a worker thread, and what it answers. */
enum cmd_kind { C_OP, C_EXIT_PROC, C_EXIT_THREAD, C_SPAWN, C_PING };

struct cmd {
	int kind;
	pid_t target;		/* resolved pid for the call */
	struct op op;
};

struct res {
	long ret;
	int err;
	pid_t tid;		/* C_SPAWN: the new thread's; never recorded */
	char text[TEXT];
};

struct slot {
	int cmd[2], rep[2];	/* controller -> thread, thread -> controller */
	pid_t tid;		/* 0: no thread in this slot */
};

static struct slot slots[NSLOT];
static pid_t wpid[NW];
static pid_t zombie;
static int ncpu;

/* Options. */
static unsigned long long seed = 1;
static long nops = 10000;
static long every = 1000;
static long vfrom = -1, vto = -1;
static char *klist;
static bool tap;
static bool quiet;
static long wait_ms = 30000;
static bool avoid_a = true, avoid_b = true, avoid_c = true, avoid_e = true;
static bool avoid_f = true, avoid_g = true, avoid_h = true;
static bool zombie_sets;
static bool smp_ops;		/* -H */
static uint64_t floor_ns;	/* -F: the smallest budget that runs */
static bool floor_given;

/* ---- the generator: op i from (seed, i) only ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int pick(int n)
{
	return (int)(rnd() % (uint64_t)n);
}

/* true with probability pct% */
static bool chance(int pct)
{
	return pick(100) < pct;
}

#define PICK(arr) ((arr)[pick(sizeof(arr) / sizeof((arr)[0]))])

static void gen_target(struct op *o)
{
	int r = pick(100);

	if (r < 30)
		o->tkind = T_ZERO;
	else if (r < 38)
		o->tkind = T_OWN;
	else if (r < 90)
		o->tkind = T_SLOT;
	else if (r < 94)
		o->tkind = T_NEG;
	else if (r < 97)
		o->tkind = T_BIG;
	else
		o->tkind = T_ZOMBIE;
	o->tslot = pick(NSLOT);
}

/*
 * Deadline parameters: mostly valid with a bandwidth of at least 1% (see
 * the top comment), else one edge broken.  An edge that is valid once a
 * sysctl allows it keeps 1% too: a period just over the limit with the
 * runtime of a 500 us one held 31 parts in 2^20, so that a debt of a few
 * microseconds put its 0-lag time past the 30 s wait, and the rebuild
 * after it diverged (stock forgets such bandwidth, ours keeps it until
 * its time: the known rebuild_with_pending_zero_lag).
 */
static void gen_dl(struct dl_attr *a)
{
	static const uint64_t periods[] = {
		100000, 500000, 1000000, 1000000, 5000000, 10000000,
		10000000, 20000000, 20000000, 1000000000, 4194304000ULL,
	};
	static const int frac[] = { 100, 20, 10, 10, 4, 4, 2, 1 };
	uint64_t p = PICK(periods), d, r;
	int f = PICK(frac);

	if (p >= 1000000000 && f > 50)
		f = 50;
	d = chance(70) ? p : p / 2;
	r = p / f;
	if (r < 1024)
		r = 1024;
	if (r > d)
		r = d;
	a->sched_runtime = r;
	a->sched_deadline = d;
	a->sched_period = chance(15) ? 0 : p;
	if (a->sched_period == 0)
		a->sched_deadline = p;	/* period = deadline: keep U */
	if (!chance(25))
		return;
	switch (pick(14)) {
	case 0: a->sched_runtime = 1023; break;
	case 1: a->sched_runtime = 0; break;
	case 2: a->sched_deadline = 0; break;
	case 3: a->sched_deadline = a->sched_runtime - 1; break;
	case 4: a->sched_period = a->sched_deadline - 1; break;
	case 5: a->sched_period = 99999; a->sched_deadline = 50000;
		a->sched_runtime = 25000; break;
	case 6: /* just over the default limit, at 2% (see gen_dl's top) */
		a->sched_period = a->sched_deadline = 4194305000ULL;
		a->sched_runtime = a->sched_period / 50;
		break;
	case 7: a->sched_deadline |= 1ULL << 63; break;
	case 8: a->sched_period |= 1ULL << 63; break;
	case 9: a->sched_runtime = 1ULL << 62; break;
	case 10: a->sched_priority = 1 + pick(99); break;
	case 11: /* the whole CPU: two of them do not fit */
		a->sched_runtime = a->sched_deadline = a->sched_period =
			20000000;
		break;
	case 12: /* runtime 1024 exactly, at 1% */
		a->sched_runtime = 1024; a->sched_deadline = 102400;
		a->sched_period = 102400; break;
	default: a->sched_nice = -10; break;
	}
}

static void gen_setattr(struct op *o)
{
	static const unsigned int sizes[] = {
		56, 56, 56, 56, 56, 48, 48, 48, 0, 64, 64, 40, 47, 1,
		4096, 4097, 72,
	};
	static const uint64_t flagsets[] = {
		0, DL_FLAG_RESET_ON_FORK, DL_FLAG_RECLAIM, DL_FLAG_DL_OVERRUN,
		DL_FLAG_KEEP_POLICY, DL_FLAG_KEEP_PARAMS,
		DL_FLAG_KEEP_POLICY | DL_FLAG_KEEP_PARAMS,
		DL_FLAG_RECLAIM | DL_FLAG_DL_OVERRUN | DL_FLAG_RESET_ON_FORK,
		DL_FLAG_UTIL_CLAMP_MIN, DL_FLAG_UTIL_CLAMP_MAX, DL_FLAG_SUGOV,
		0x80, 1ULL << 40,
	};
	static const int nices[] = { 0, 0, -20, -5, 10, 19, -21, 20 };
	struct dl_attr *a = &o->a;
	int r = pick(100);

	memset(a, 0, sizeof(*a));
	if (r < 55)
		a->sched_policy = SCHED_DEADLINE;
	else if (r < 70)
		a->sched_policy = SCHED_OTHER;
	else if (r < 76)
		a->sched_policy = SCHED_FIFO;
	else if (r < 80)
		a->sched_policy = SCHED_RR;
	else if (r < 84)
		a->sched_policy = SCHED_BATCH;
	else if (r < 88)
		a->sched_policy = SCHED_IDLE;
	else
		a->sched_policy = PICK(((const uint32_t[]){
			4, 7, 8, -1U, 0x80000000U, SCHED_DEADLINE |
			SCHED_RESET_ON_FORK_BIT }));
	if (a->sched_policy == SCHED_DEADLINE)
		gen_dl(a);
	else if (a->sched_policy == SCHED_FIFO || a->sched_policy == SCHED_RR)
		a->sched_priority = PICK(((const uint32_t[]){
			1, 10, 50, 99, 0, 100 }));
	else if (chance(10))
		a->sched_priority = 1;
	a->sched_nice = a->sched_nice ? a->sched_nice : PICK(nices);
	a->sched_flags = chance(60) ? 0 : PICK(flagsets);
	if (a->sched_flags & (DL_FLAG_UTIL_CLAMP_MIN | DL_FLAG_UTIL_CLAMP_MAX)) {
		a->sched_util_min = pick(1100);
		a->sched_util_max = pick(1100);
	}
	o->size = PICK(sizes);
	if (o->size > 56 && chance(40)) {
		o->tailpos = 56 + pick(o->size - 56);
		o->tailval = 1 + pick(255);
	}
	o->null = chance(1);
	o->flags = chance(2) ? 1 : 0;
	gen_target(o);
}

static void gen_getattr(struct op *o)
{
	static const unsigned int sizes[] = {
		56, 56, 48, 48, 64, 100, 4096, 40, 47, 0, 4097,
	};

	o->size = PICK(sizes);
	o->flags = chance(3) ? 1 : 0;
	o->null = chance(2);
	gen_target(o);
}

static void gen_setsched(struct op *o)
{
	static const long policies[] = {
		SCHED_OTHER, SCHED_OTHER, SCHED_FIFO, SCHED_FIFO, SCHED_RR,
		SCHED_BATCH, SCHED_IDLE, SCHED_DEADLINE, -1, 4, 9,
		SCHED_FIFO | SCHED_RESET_ON_FORK_BIT,
		SCHED_OTHER | SCHED_RESET_ON_FORK_BIT,
	};

	o->val = PICK(policies);
	o->sub = PICK(((const int[]){ 0, 0, 1, 1, 50, 99, 100, -1 }));
	o->null = chance(2);
	gen_target(o);
}

static void gen_aff(struct op *o, bool set)
{
	static const unsigned int sizes[] = { 8, 8, 8, 4, 1, 0, 128, 3, 16, 7 };
	static const long masks[] = { 1, 1, 3, 3, 2, 0, -1, 0x80 };

	o->size = PICK(sizes);
	o->val = set ? PICK(masks) : 0;
	o->null = chance(2);
	gen_target(o);
}

static const char *const sysctl_names[4] = {
	"sched_rt_runtime_us", "sched_rt_period_us",
	"sched_deadline_period_min_us", "sched_deadline_period_max_us",
};

/*
 * Values for each sysctl.  No sched_rt_runtime_us below 10% of a period
 * of at most 2 s: a real-time worker would otherwise be throttled for
 * most of each period (0 is no throttling at all, there).
 */
static const char *const sysctl_vals[4][10] = {
	{ "950000", "950000", "900000", "500000", "-1", "0", "1000000",
	  "1000001", "-2", "200000" },
	{ "1000000", "1000000", "2000000", "500000", "0", "-1", "1",
	  "4294967296", "abc", "1000000" },
	{ "100", "100", "1", "0", "1000", "20000", "4194305", "-1", "100",
	  "50" },
	{ "4194304", "4194304", "1000000", "20000", "100", "50",
	  "4294967295", "-1", "4194304", "2000000" },
};

/* Default values, restored at the end (period before runtime). */
static const char *const sysctl_dflt[4] = {
	"950000", "1000000", "100", "4194304",
};

static const char *const cg_name[3] = { "", "/fz0", "/fz1" };
static const char *const hotplug_vals[3] = { "0", "1", "x" };
static const char *const cpus_vals[] = { "0", "0-1", "1", "", "0", "5", "x" };
static const char *const part_vals[] = { "root", "member", "isolated",
					 "member", "bogus" };

/*
 * -H's cpuset writes: partitions of fz1 only ((f) above), and CPUs that
 * make a valid one often: fz0 mostly CPU 0, fz1 mostly CPU 1 (a
 * partition's CPUs must be no sibling's).  Indices of cpus_vals.
 */
static void gen_cgcpus_smp(struct op *o)
{
	static const int fz0[] = { 0, 0, 0, 0, 1, 2, 3, 5 };
	static const int fz1[] = { 2, 2, 2, 2, 0, 0, 1, 3, 6 };
	static const int part[] = { 0, 0, 0, 1, 1, 3, 2, 2, 4 };

	if (chance(40)) {
		o->sub = 2;
		o->val = 100 + PICK(part);
		return;
	}
	o->sub = 1 + pick(2);
	o->val = o->sub == 1 ? PICK(fz0) : PICK(fz1);
}

static void gen_op(long i, struct op *o)
{
	int r, w = 0, t;

	rng_state = seed * 0x2545f4914f6cdd1dULL ^ (uint64_t)i *
		    0x9e3779b97f4a7c15ULL;
	rnd();
	memset(o, 0, sizeof(*o));
	for (t = 0; t < OP_NTYPES; t++)
		w += op_weight[smp_ops][t];
	r = pick(w);
	for (t = 0; r >= op_weight[smp_ops][t]; t++)
		r -= op_weight[smp_ops][t];
	o->type = t;
	o->caller = pick(NSLOT);
	switch (t) {
	case OP_SETATTR: gen_setattr(o); break;
	case OP_GETATTR: gen_getattr(o); break;
	case OP_SETSCHED: gen_setsched(o); break;
	case OP_GETSCHED:
	case OP_GETPARAM: o->null = chance(3); gen_target(o); break;
	case OP_SETAFF: gen_aff(o, true); break;
	case OP_GETAFF: gen_aff(o, false); break;
	case OP_EXIT: o->sub = pick(2); break;
	case OP_THREXIT: o->sub = pick(3); break;
	case OP_CGMOVE:
		o->tkind = T_SLOT;
		o->tslot = pick(NSLOT);
		o->sub = pick(3);
		o->val = chance(85) ? 0 : 1;	/* cgroup.procs / .threads */
		break;
	case OP_CGCPUS:
		if (smp_ops) {
			gen_cgcpus_smp(o);
			break;
		}
		o->sub = 1 + pick(2);
		o->val = chance(70) ? pick(sizeof(cpus_vals) / sizeof(cpus_vals[0]))
				    : 100 + pick(sizeof(part_vals) / sizeof(part_vals[0]));
		break;
	case OP_SYSCTL_W: o->sub = pick(4); o->val = pick(10); break;
	case OP_SYSCTL_R: o->sub = pick(4); break;
	case OP_HOTPLUG: /* online more often: (f) leaves cpusets alone offline */
		o->sub = chance(10) ? 2 : chance(35) ? 0 : 1;
		break;
	default: break;
	}
}

/* ---- formatting and the hash ---- */

static const char *errname(int e)
{
	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case ESRCH: return "ESRCH";
	case EBUSY: return "EBUSY";
	case E2BIG: return "E2BIG";
	case EAGAIN: return "EAGAIN";
	case EFAULT: return "EFAULT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOENT: return "ENOENT";
	case ERANGE: return "ERANGE";
	case EACCES: return "EACCES";
	case ENOSPC: return "ENOSPC";
	case ENODEV: return "ENODEV";
	default: break;
	}
	{
		static char buf[16];

		snprintf(buf, sizeof(buf), "E%d", e);
		return buf;
	}
}

static int fmt_target(const struct op *o, char *b, size_t n)
{
	switch (o->tkind) {
	case T_ZERO: return snprintf(b, n, "0");
	case T_OWN: return snprintf(b, n, "own");
	case T_SLOT: return snprintf(b, n, "w%dt%d", o->tslot / NT, o->tslot % NT);
	case T_NEG: return snprintf(b, n, "neg");
	case T_BIG: return snprintf(b, n, "big");
	default: return snprintf(b, n, "zombie");
	}
}

static void fmt_args(const struct op *o, char *b, size_t n)
{
	const struct dl_attr *a = &o->a;
	char t[16];

	fmt_target(o, t, sizeof(t));
	switch (o->type) {
	case OP_SETATTR:
		snprintf(b, n, "by=w%dt%d pid=%s sz=%u fl=%u null=%d pol=%d "
			 "sfl=%llx nice=%d prio=%u rt=%llu dl=%llu per=%llu "
			 "um=%u uM=%u tail=%d:%d", o->caller / NT, o->caller % NT,
			 t, o->size, o->flags, o->null, (int)a->sched_policy,
			 (unsigned long long)a->sched_flags, a->sched_nice,
			 a->sched_priority,
			 (unsigned long long)a->sched_runtime,
			 (unsigned long long)a->sched_deadline,
			 (unsigned long long)a->sched_period,
			 a->sched_util_min, a->sched_util_max, o->tailpos,
			 o->tailval);
		break;
	case OP_GETATTR:
		snprintf(b, n, "by=w%dt%d pid=%s sz=%u fl=%u null=%d",
			 o->caller / NT, o->caller % NT, t, o->size, o->flags,
			 o->null);
		break;
	case OP_SETSCHED:
		snprintf(b, n, "by=w%dt%d pid=%s pol=%ld prio=%d null=%d",
			 o->caller / NT, o->caller % NT, t, o->val, o->sub,
			 o->null);
		break;
	case OP_GETSCHED:
	case OP_GETPARAM:
	case OP_YIELD:
	case OP_FORK:
		snprintf(b, n, "by=w%dt%d pid=%s null=%d", o->caller / NT,
			 o->caller % NT, t, o->null);
		break;
	case OP_SETAFF:
	case OP_GETAFF:
		snprintf(b, n, "by=w%dt%d pid=%s sz=%u mask=%lx null=%d",
			 o->caller / NT, o->caller % NT, t, o->size, o->val,
			 o->null);
		break;
	case OP_EXIT:
	case OP_THREXIT:
		snprintf(b, n, "w%d sub=%d", o->caller / NT, o->sub);
		break;
	case OP_CGMOVE:
		snprintf(b, n, "%s to=cg%d file=%s", t, o->sub,
			 o->val ? "threads" : "procs");
		break;
	case OP_CGCPUS:
		if (o->val >= 100)
			snprintf(b, n, "cg%d partition=%s", o->sub,
				 part_vals[o->val - 100]);
		else
			snprintf(b, n, "cg%d cpus='%s'", o->sub,
				 cpus_vals[o->val]);
		break;
	case OP_SYSCTL_W:
		snprintf(b, n, "%s=%s", sysctl_names[o->sub],
			 sysctl_vals[o->sub][o->val]);
		break;
	case OP_SYSCTL_R:
		snprintf(b, n, "%s", sysctl_names[o->sub]);
		break;
	case OP_HOTPLUG:
		snprintf(b, n, "cpu1 online=%s", hotplug_vals[o->sub]);
		break;
	default:
		b[0] = '\0';
		break;
	}
}

static uint64_t hash = 0xcbf29ce484222325ULL;

static void hash_str(const char *s)
{
	for (; *s; s++) {
		hash ^= (unsigned char)*s;
		hash *= 0x100000001b3ULL;
	}
	hash ^= '\n';
	hash *= 0x100000001b3ULL;
}

/* ---- the statistics: results per op type ---- */

#define NERR 134
static long stat_ok[OP_NTYPES], stat_skip[OP_NTYPES];
static long stat_err[OP_NTYPES][NERR];
static long waits, waited_ms, redirects;

static void stat_add(int type, const struct res *r)
{
	if (r->ret == -2)
		stat_skip[type]++;
	else if (r->ret >= 0)
		stat_ok[type]++;
	else
		stat_err[type][r->err < NERR ? r->err : 0]++;
}

/* Prints a line (a diagnostic in TAP); whether it was written out. */
static bool out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool out(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (tap)
		fputs("# ", stdout);
	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return fflush(stdout) == 0 && n >= 0 && !ferror(stdout);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (tap)
		printf("# dlfuzz: %s\nnot ok 1 fuzz_completed\n", msg);
	else
		fprintf(stderr, "dlfuzz: %s\n", msg);
	fflush(stdout);
	exit(2);
}

/* ---- the workers ---- */

static int read_full(int fd, void *buf, size_t n)
{
	char *p = buf;

	while (n) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= r;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t r = write(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= r;
	}
	return 0;
}

static uint32_t crc_bytes(const unsigned char *p, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--) {
		h ^= *p++;
		h *= 16777619u;
	}
	return h;
}

/* A getattr's answer: the fields inside what the kernel wrote. */
static void fmt_attr(char *b, size_t n, const unsigned char *buf,
		     unsigned int usize)
{
	struct dl_attr a;
	unsigned int lim = usize < 4096 ? usize : 4096;

	memcpy(&a, buf, sizeof(a));
	snprintf(b, n, "sz=%u pol=%u fl=%llx nice=%d prio=%u rt=%llu dl=%llu "
		 "per=%llu um=%u uM=%u rest=%08x", a.size, a.sched_policy,
		 (unsigned long long)a.sched_flags, a.sched_nice,
		 a.sched_priority, (unsigned long long)a.sched_runtime,
		 (unsigned long long)a.sched_deadline,
		 (unsigned long long)a.sched_period, a.sched_util_min,
		 a.sched_util_max,
		 lim > sizeof(a) ? crc_bytes(buf + sizeof(a), lim - sizeof(a)) : 0);
}

static void do_setattr(const struct op *o, pid_t pid, struct res *r)
{
	static unsigned char buf[4200];

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &o->a, sizeof(o->a));
	((struct dl_attr *)buf)->size = o->size;
	if (o->tailpos)
		buf[o->tailpos] = (unsigned char)o->tailval;
	r->ret = dl_setattr(pid, o->null ? NULL : buf, o->flags);
	r->err = r->ret < 0 ? errno : 0;
	snprintf(r->text, TEXT, "sz=%u", ((struct dl_attr *)buf)->size);
}

static void do_getattr(const struct op *o, pid_t pid, struct res *r)
{
	static unsigned char buf[4200];

	memset(buf, 0xa5, sizeof(buf));
	r->ret = dl_getattr(pid, o->null ? NULL : buf, o->size, o->flags);
	r->err = r->ret < 0 ? errno : 0;
	if (r->ret == 0)
		fmt_attr(r->text, TEXT, buf, o->size);
}

static void do_setsched(const struct op *o, pid_t pid, struct res *r)
{
	struct sched_param sp = { .sched_priority = o->sub };

	r->ret = syscall(SYS_sched_setscheduler, pid, (int)o->val,
			 o->null ? NULL : &sp);
	r->err = r->ret < 0 ? errno : 0;
}

static void do_aff(const struct op *o, pid_t pid, struct res *r, bool set)
{
	unsigned char buf[256];

	memset(buf, set ? 0 : 0xa5, sizeof(buf));
	if (set)
		memcpy(buf, &o->val, sizeof(o->val));
	r->ret = syscall(set ? SYS_sched_setaffinity : SYS_sched_getaffinity,
			 pid, o->size, o->null ? NULL : buf);
	r->err = r->ret < 0 ? errno : 0;
	if (!set && r->ret >= 0)
		snprintf(r->text, TEXT, "mask=%02x%02x rest=%08x", buf[1],
			 buf[0], crc_bytes(buf + 2, sizeof(buf) - 2));
}

/* The child's policy, parameters and flags, as the child itself sees them. */
static void do_fork(struct res *r)
{
	int p[2], st;
	pid_t pid;

	if (pipe(p))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		unsigned char buf[64];
		char text[TEXT];

		memset(buf, 0xa5, sizeof(buf));
		if (dl_getattr(0, buf, DL_ATTR_SIZE_VER1, 0))
			snprintf(text, TEXT, "child getattr %s", errname(errno));
		else
			fmt_attr(text, TEXT, buf, DL_ATTR_SIZE_VER1);
		if (write_full(p[1], text, TEXT))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	r->ret = pid < 0 ? -1 : 0;
	r->err = pid < 0 ? errno : 0;
	if (pid > 0) {
		if (read_full(p[0], r->text, TEXT))
			snprintf(r->text, TEXT, "no report");
		waitpid(pid, &st, 0);
	}
	close(p[0]);
}

static void exec_op(const struct op *o, pid_t pid, struct res *r)
{
	switch (o->type) {
	case OP_SETATTR: do_setattr(o, pid, r); break;
	case OP_GETATTR: do_getattr(o, pid, r); break;
	case OP_SETSCHED: do_setsched(o, pid, r); break;
	case OP_GETSCHED:
		r->ret = sched_getscheduler(pid);
		r->err = r->ret < 0 ? errno : 0;
		break;
	case OP_GETPARAM: {
		struct sched_param sp = { .sched_priority = -7 };

		r->ret = syscall(SYS_sched_getparam, pid, o->null ? NULL : &sp);
		r->err = r->ret < 0 ? errno : 0;
		snprintf(r->text, TEXT, "prio=%d", sp.sched_priority);
		break;
	}
	case OP_SETAFF: do_aff(o, pid, r, true); break;
	case OP_GETAFF: do_aff(o, pid, r, false); break;
	case OP_YIELD:
		r->ret = sched_yield();
		r->err = r->ret < 0 ? errno : 0;
		break;
	case OP_FORK: do_fork(r); break;
	default:
		r->ret = -1;
		r->err = ENOSYS;
		break;
	}
}

static void *thread_loop(void *arg);

static pthread_t thr1;
static bool thr1_alive;

/* The slot of the calling worker thread; set per thread. */
static __thread struct slot *me;
static struct slot *proc_slots;	/* this worker's first slot */

static void *thread_loop(void *arg)
{
	struct cmd c;
	struct res r;

	(void)arg;
	if (!me)
		me = &proc_slots[1];
	me->tid = (pid_t)syscall(SYS_gettid);
	memset(&r, 0, sizeof(r));
	r.ret = me->tid;
	if (write_full(me->rep[1], &r, sizeof(r)))
		_exit(3);
	for (;;) {
		if (read_full(me->cmd[0], &c, sizeof(c)))
			_exit(4);
		memset(&r, 0, sizeof(r));
		switch (c.kind) {
		case C_OP:
			exec_op(&c.op, c.target, &r);
			break;
		case C_EXIT_PROC:
			_exit(0);
		case C_EXIT_THREAD:
			/* no answer: the joining thread answers */
			pthread_exit(NULL);
		case C_PING:
			break;
		case C_SPAWN:
			if (thr1_alive) {
				pthread_join(thr1, NULL);
				thr1_alive = false;
			}
			r.ret = -pthread_create(&thr1, NULL, thread_loop, NULL);
			if (r.ret) {
				r.err = (int)-r.ret;
				r.ret = -1;
			} else {
				struct res rr;

				thr1_alive = true;
				/* the new thread says it is there */
				if (read_full(proc_slots[1].rep[0], &rr, sizeof(rr)))
					_exit(5);
				r.tid = (pid_t)rr.ret;
			}
			break;
		}
		if (write_full(me->rep[1], &r, sizeof(r)))
			_exit(6);
	}
	return NULL;
}

/*
 * The pipes a worker keeps: its slots'.  The new thread announces itself
 * on its reply pipe, which its own process reads in C_SPAWN (above) and
 * the controller at the worker's start (below).
 */
static void worker_main(int w)
{
	int i, fd;

	signal(SIGXCPU, SIG_IGN);	/* DL_OVERRUN: a worker may overrun */
	proc_slots = &slots[w * NT];
	for (fd = 3; fd < 1024; fd++) {
		bool keep = false;

		for (i = 0; i < NT; i++) {
			struct slot *s = &proc_slots[i];

			keep |= fd == s->cmd[0] || fd == s->rep[1] ||
				fd == s->rep[0];
		}
		if (!keep)
			close(fd);
	}
	me = &proc_slots[0];
	if (pthread_create(&thr1, NULL, thread_loop, NULL))
		_exit(7);
	thr1_alive = true;
	thread_loop(NULL);
	_exit(0);
}

/* ---- the controller ---- */

static void slot_pipes(int s)
{
	if (pipe(slots[s].cmd) || pipe(slots[s].rep))
		die("pipe: %s", strerror(errno));
}

/* Prints each line of @path that starts with one of @keys ("" for all). */
static void show_file(const char *path, const char *const *keys)
{
	char line[256];
	FILE *f = fopen(path, "r");
	int i;

	if (!f) {
		out("  %s: %s", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		for (i = 0; keys[i]; i++)
			if (!strncmp(line, keys[i], strlen(keys[i]))) {
				out("  %s", line);
				break;
			}
	}
	fclose(f);
}

/*
 * A thread that does not answer: its state as the kernel sees it, before
 * the run ends and takes the workers with it.
 */
static void show_stuck(int s, const char *why)
{
	static const char *const all[] = { "", NULL };
	static const char *const sched[] = {
		"policy", "prio", "dl.", "nr_switches", "se.exec_start",
		"se.sum_exec_runtime", NULL,
	};
	char path[96];
	pid_t tid = slots[s].tid;

	out("w%dt%d (tid %d) %s:", s / NT, s % NT, tid, why);
	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	show_file(path, all);
	snprintf(path, sizeof(path), "/proc/%d/wchan", tid);
	show_file(path, all);
	snprintf(path, sizeof(path), "/proc/%d/sched", tid);
	show_file(path, sched);
	show_file("/sys/kernel/debug/sched/deadline_pool", all);
}

/* Waits for a thread's answer; a worker that hangs ends the run. */
static void get_reply(int s, struct res *r)
{
	struct pollfd p = { .fd = slots[s].rep[0], .events = POLLIN };
	int n;

	/* One look at a thread slow to answer (guest time): why it is. */
	do {
		n = poll(&p, 1, 5 * 1000);
	} while (n < 0 && errno == EINTR);
	if (n == 0 && slots[s].tid > 0)
		show_stuck(s, "has not answered in 5 s");
	do {
		n = poll(&p, 1, 120 * 1000);
	} while (n < 0 && errno == EINTR);
	if (n != 1 || read_full(slots[s].rep[0], r, sizeof(*r))) {
		if (slots[s].tid > 0)
			show_stuck(s, "does not answer");
		die("worker thread w%dt%d did not answer", s / NT, s % NT);
	}
}

/*
 * A worker that died can leave a command its thread never read in a
 * pipe (a thread exit, then its process's), which the next worker's
 * thread would read first and exit on: seed 1's op 134000 waited for a
 * thread gone that way, on both kernels.  So each worker gets new pipes.
 */
static void slot_pipes_renew(int s)
{
	close(slots[s].cmd[0]);
	close(slots[s].cmd[1]);
	close(slots[s].rep[0]);
	close(slots[s].rep[1]);
	slot_pipes(s);
}

static void spawn_worker(int w)
{
	struct res r;
	int i;
	pid_t pid;

	for (i = 0; i < NT; i++) {
		slots[w * NT + i].tid = 0;
		if (wpid[w])
			slot_pipes_renew(w * NT + i);
	}
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0)
		worker_main(w);
	wpid[w] = pid;
	/* thread 1 announces itself first or second: both come */
	for (i = 0; i < NT; i++) {
		get_reply(w * NT + i, &r);
		slots[w * NT + i].tid = (pid_t)r.ret;
	}
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A departed deadline task may still hold bandwidth. */
static bool pending;

static bool is_dl(pid_t tid)
{
	int p;

	if (tid <= 0)
		return false;
	p = sched_getscheduler(tid);
	return p >= 0 && (p & ~SCHED_RESET_ON_FORK_BIT) == SCHED_DEADLINE;
}

/*
 * After a wait that timed out: every deadline task of the system, the
 * workers' or not, with its parameters and state, to tell what holds
 * the bandwidth the workers do not.
 */
static void show_dl_tasks(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char path[64];
		struct dirent *t;
		DIR *td;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.16s/task", e->d_name);
		td = opendir(path);
		while (td && (t = readdir(td))) {
			pid_t tid = atoi(t->d_name);
			struct dl_attr a;
			char st = '?';
			int cpu = -1;

			if (tid <= 0 || dl_getattr(tid, &a, sizeof(a), 0) ||
			    a.sched_policy != SCHED_DEADLINE)
				continue;
			proc_stat_cpu(tid, &st, &cpu);
			out("  deadline task %d (of %s): %llu/%llu/%llu, %c on CPU %d",
			    tid, e->d_name, (unsigned long long)a.sched_runtime,
			    (unsigned long long)a.sched_deadline,
			    (unsigned long long)a.sched_period, st, cpu);
		}
		if (td)
			closedir(td);
	}
	if (d)
		closedir(d);
}

/*
 * What the deadline tasks there are hold, as the kernel sums it.  Not the
 * zombie: both kernels let it become a deadline task without charging
 * its bandwidth (it will never run).
 */
static long long expected_total(void)
{
	long long sum = 0;
	struct dl_attr a;
	int s;

	for (s = 0; s < NSLOT; s++) {
		pid_t tid = slots[s].tid;

		if (tid > 0 && !dl_getattr(tid, &a, sizeof(a), 0) &&
		    a.sched_policy == SCHED_DEADLINE && a.sched_period)
			sum += (long long)((a.sched_runtime << 20) /
					   a.sched_period);
	}
	return sum;
}

#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"

static void read_file(const char *path, char *b, size_t n);

/*
 * Whether the two CPUs are two root domains: a valid partition takes one
 * of them, the root cgroup keeps the other (it keeps one at least, so at
 * most one partition is valid).  The cpuset files say so, whatever the
 * kernel counted.
 */
static bool rd_split(void)
{
	char path[96], buf[64];
	int i;

	for (i = 1; i < 3; i++) {
		snprintf(path, sizeof(path), CG "%s/cpuset.cpus.partition",
			 cg_name[i]);
		read_file(path, buf, sizeof(buf));
		if (!strcmp(buf, "root") || !strcmp(buf, "isolated"))
			return true;
	}
	return false;
}

/* Whether CPU 1 is offline, as its sysfs file says. */
static bool cpu1_offline(void)
{
	char buf[16];

	read_file(CPU1_ONLINE, buf, sizeof(buf));
	return !strcmp(buf, "0");
}

static long debug_reads, unquiet;

/*
 * The two CPUs' root domains' figures, read when no worker runs.  On
 * stock they come from sched/debug, whose read races the scheduler of
 * the other CPU (dl.h): a 20000-op run of -H crashed stock so in
 * pick_task_fair() at op 7206, the controller reading while the workers
 * it had just answered still ran.  So the read waits, up to 100 ms, for
 * every worker to be asleep (in its read of the next command).
 */
static int read_bw2(long long *bw, long long *total)
{
	long t0 = now_ms();
	int s = 0;

	while (s < NSLOT) {
		char st = 'S';

		if (slots[s].tid > 0 &&
		    !proc_stat_cpu(slots[s].tid, &st, NULL) && st == 'R') {
			if (now_ms() - t0 > 100) {
				unquiet++;
				break;
			}
			usleep(1000);
			continue;
		}
		s++;
	}
	debug_reads++;
	return dl_bw_of_cpus(2, bw, total);
}

/* What every root domain has allocated, summed; -1 if unread. */
static long long bw_total(void)
{
	long long bw[2], total[2];

	if (ncpu < 2)
		return dl_bw_of_cpu(0, &bw[0], &total[0]) ? -1 : total[0];
	if (read_bw2(bw, total) || total[0] == DL_BW_NONE)
		return -1;
	/*
	 * An offline CPU 1 shows nothing: it is in no domain of CPU 0's.
	 * Two CPUs that show different figures are in two domains too,
	 * whatever the cpuset files say.
	 */
	if (total[1] != DL_BW_NONE && (rd_split() || bw[0] != bw[1] ||
				       total[0] != total[1]))
		return total[0] + total[1];
	return total[0];
}

/*
 * Waits until the bandwidth of the tasks that left has come back: until
 * the allocated total is what the deadline tasks there are hold, plus
 * the drift.  A task in debt (it overran a small budget) can hold it
 * long after its period; the wait is bounded by -w, and a timeout takes
 * what is left as drift (and says so).
 *
 * The drift: a root-domain rebuild counts tasks by cpuset and can leave
 * the total off the tasks' sum for good, on either kernel.  It is taken
 * after an op that can rebuild, before the next op that can make a
 * deadline task leave (rebase_if_due(), below), when nothing is
 * pending: a wait never has to time out to learn it.  Taken at a
 * timeout instead, it made later ops depend on whether a slow 0-lag
 * time came just before or just after the bound: on stock alone, seed
 * 1 timed out at op 88918 in one run and not in another.  Not after
 * every such op: each read of sched/debug risks the tree's race (dl.h),
 * and one in seven ops is one.
 */
static long long drift;
static bool rebase_due;
static bool verbose_op;	/* the op is in -v's range: its waits too */

/* -v: the deadline workers, their bandwidth and where they last ran. */
static const char *dl_slots(void)
{
	static char b[512];
	struct dl_attr a;
	int s, n = 0, cpu;
	char st;

	b[0] = '\0';
	for (s = 0; s < NSLOT; s++)
		if (slots[s].tid > 0 &&
		    !dl_getattr(slots[s].tid, &a, sizeof(a), 0) &&
		    a.sched_policy == SCHED_DEADLINE &&
		    !proc_stat_cpu(slots[s].tid, &st, &cpu))
			n += snprintf(b + n, sizeof(b) - n,
				      " w%dt%d:%llu/%llu/%llu@%d%c", s / NT, s % NT,
				      (unsigned long long)a.sched_runtime,
				      (unsigned long long)a.sched_deadline,
				      (unsigned long long)a.sched_period, cpu, st);
	return b;
}

static void rebase_if_due(void)
{
	long long total;

	if (rebase_due && !pending && (total = bw_total()) != -1) {
		drift = total - expected_total();
		rebase_due = false;
		if (verbose_op)
			out("dbg rebase: total_bw %lld, drift %lld;%s", total,
			    drift, dl_slots());
	}
}

static void settle(long idx)
{
	long long want, now;
	int step = 2;
	long t0;

	if (!pending)
		return;
	pending = false;
	t0 = now_ms();
	want = expected_total();
	if (bw_total() - drift == want)
		return;
	waits++;
	for (;;) {
		now = bw_total();
		if (now - drift == want)
			break;
		if (now_ms() - t0 > wait_ms) {
			out("note op %ld: total_bw %lld, the tasks hold %lld + "
			    "drift %lld after %ld ms: new drift %lld", idx, now,
			    want, drift, now_ms() - t0, now - want);
			show_dl_tasks();
			drift = now - want;
			break;
		}
		/*
		 * Each read of sched/debug risks the tree's race (dl.h): a
		 * wait that lasts reads every 256 ms, not 32.  Seed 2 of a
		 * 10^6-op run crashed ours in pick_task_fair() at op 38000
		 * with 32, a wait of 30 s being some 900 reads.
		 */
		dl_debug_backoff(&step, 256);
	}
	waited_ms += now_ms() - t0;
	if (verbose_op)
		out("dbg settle: total_bw %lld, the tasks hold %lld + drift %lld "
		    "after %ld ms;%s", now, want, drift, now_ms() - t0,
		    dl_slots());
}

static bool dl_and_note(pid_t tid)
{
	bool dl = is_dl(tid);

	pending |= dl;
	return dl;
}

static pid_t resolve(const struct op *o, int caller)
{
	switch (o->tkind) {
	case T_ZERO: return 0;
	case T_OWN: return slots[caller].tid;
	case T_SLOT: return slots[o->tslot].tid ? slots[o->tslot].tid : BAD_PID;
	case T_NEG: return o->tslot & 1 ? -1 : INT_MIN;
	case T_BIG: return o->tslot & 1 ? BAD_PID : INT_MAX;
	default: return zombie;
	}
}

static void call_slot(int s, const struct cmd *c, struct res *r)
{
	if (write_full(slots[s].cmd[1], c, sizeof(*c)))
		die("command to w%dt%d: %s", s / NT, s % NT, strerror(errno));
	get_reply(s, r);
}

/* Would this call take a deadline task out of the class? */
static bool leaves_dl(const struct op *o)
{
	int p;

	if (o->type == OP_SETSCHED) {
		p = (int)(o->val & ~SCHED_RESET_ON_FORK_BIT);
		return o->val >= 0 && p != SCHED_DEADLINE;
	}
	if (o->a.sched_flags & DL_FLAG_KEEP_POLICY)
		return false;
	p = (int)o->a.sched_policy;
	return p >= 0 && p != SCHED_DEADLINE;
}

/* ---- (d): budgets too small to run on, in emulation ---- */

static long redirects_d, stretched, starved;

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* The longest period a stretch may give: gen_dl's and the default limit. */
#define STRETCH_MAX_PERIOD 4194304000ULL

/*
 * Before the deadline thread @tid has to run: a budget of floor_ns at
 * least, its runtime, deadline and period scaled by one factor (the
 * deadline and period rounded up, so that its bandwidth cannot grow and
 * admission has no reason to refuse).  Not beyond STRETCH_MAX_PERIOD: a
 * bandwidth of 12 in 2^20 once made a period of 17 s, and the thread's
 * exit outlived the controller's patience.  With @last, such a thread
 * gets that period and the floor (its bandwidth grows, by little).
 * False if the kernel refuses (a period the sysctls no longer allow):
 * the thread stays as it is and is not asked to run.
 */
static bool unstarve(long idx, pid_t tid, bool last)
{
	struct dl_attr a;

	if (tid <= 0 || !floor_ns || dl_getattr(tid, &a, sizeof(a), 0) ||
	    a.sched_policy != SCHED_DEADLINE || a.sched_runtime >= floor_ns)
		return true;
	settle(idx);
	a.size = sizeof(a);
	a.sched_flags &= DL_FLAG_RESET_ON_FORK | DL_FLAG_RECLAIM |
			 DL_FLAG_DL_OVERRUN;
	a.sched_deadline = div_up(a.sched_deadline * floor_ns, a.sched_runtime);
	a.sched_period = div_up(a.sched_period * floor_ns, a.sched_runtime);
	a.sched_runtime = floor_ns;
	if (a.sched_period > STRETCH_MAX_PERIOD) {
		errno = ERANGE;
		if (!last)
			goto refused;
		a.sched_deadline = a.sched_period = STRETCH_MAX_PERIOD;
	}
	if (dl_setattr(tid, &a, 0))
		goto refused;
	stretched++;
	return true;
refused:
	starved++;
	return false;
}

/* Whether slot @s can be asked to run; else @r says it was not. */
static bool can_run(long idx, int s, struct res *r)
{
	if (!slots[s].tid || unstarve(idx, slots[s].tid, false))
		return true;
	r->ret = -2;
	snprintf(r->text, TEXT, "starved");
	return false;
}

/* Would this setattr give the thread @tid a budget under the floor? */
static bool makes_tiny(const struct op *o, pid_t tid)
{
	uint64_t fl = o->a.sched_flags;

	if (o->type != OP_SETATTR || !floor_ns || o->null ||
	    (fl & DL_FLAG_KEEP_PARAMS) || o->a.sched_runtime >= floor_ns)
		return false;
	if (fl & DL_FLAG_KEEP_POLICY)
		return is_dl(tid);
	return o->a.sched_policy == SCHED_DEADLINE;
}

/*
 * (h): sched_setattr() to SCHED_DEADLINE with SCHED_FLAG_KEEP_PARAMS on
 * a task of another class admits the bandwidth of the parameters it
 * would have (its fair slice as the runtime), then applies nothing, as
 * KEEP_PARAMS says, and returns 0: the task stays where it was, its
 * bandwidth allocated until a rebuild (the tree's kernel; seed 11 of -H,
 * op 17655: 0.14 of a CPU, and every wait after it timed out).  Ours
 * admits nothing there (patch 0011), so both sequences avoid it: its
 * record, and every admission after it, would differ.
 */
static bool keeps_params_leak(const struct op *o, pid_t tid)
{
	uint64_t fl = o->a.sched_flags;

	return avoid_h && o->type == OP_SETATTR &&
	       o->a.sched_policy == SCHED_DEADLINE &&
	       (fl & DL_FLAG_KEEP_PARAMS) && !(fl & DL_FLAG_KEEP_POLICY) &&
	       !is_dl(tid);
}

/* The sched syscalls, made by a worker thread. */
static void run_call(long idx, const struct op *o, struct res *r, char *note)
{
	bool sets = o->type == OP_SETATTR || o->type == OP_SETSCHED;
	struct cmd c = { .kind = C_OP, .op = *o };
	int s = o->caller;
	pid_t target, tid;
	bool was_dl;

	if (!slots[s].tid) {
		r->ret = -2;
		snprintf(r->text, TEXT, "no caller");
		return;
	}
	if (sets)
		settle(idx);
	/*
	 * A zombie made a deadline task is charged, then dropped by the next
	 * root-domain rebuild (which finds tasks through their cpusets, which
	 * an exited task has left); a later change of its parameters takes
	 * back what is no longer there.  The kernels differ in how (see the
	 * README): -Z goes there.
	 */
	if (sets && o->tkind == T_ZOMBIE && !zombie_sets) {
		r->ret = -2;
		snprintf(r->text, TEXT, "zombie");
		return;
	}
	target = resolve(o, s);
	c.target = target;
	/*
	 * (a): another thread (asleep) leaving SCHED_DEADLINE keeps its
	 * bandwidth on the classic class: the thread makes the call itself.
	 */
	if (sets && avoid_a && target != 0 && target != slots[s].tid &&
	    is_dl(target) && leaves_dl(o)) {
		if (o->tkind != T_SLOT) {
			r->ret = -2;
			snprintf(r->text, TEXT, "avoided (a)");
			return;
		}
		s = o->tslot;
		c.target = 0;
		strcpy(note, " redir");
		redirects++;
	}
	tid = c.target ? c.target : slots[s].tid;
	if (keeps_params_leak(o, tid)) {
		r->ret = -2;
		snprintf(r->text, TEXT, "avoided (h)");
		return;
	}
	was_dl = sets && is_dl(tid);
	if (was_dl)
		rebase_if_due();
	if (tid == slots[s].tid && makes_tiny(o, tid)) {
		/* (d): the thread could not come back from its own call */
		exec_op(o, tid, r);
		strcpy(note, " by-ctl");
		redirects_d++;
	} else if (can_run(idx, s, r)) {
		call_slot(s, &c, r);
	}
	if (was_dl && !is_dl(tid))
		pending = true;
}

static void run_exit(long idx, const struct op *o, struct res *r)
{
	int w = o->caller / NT, i, st = 0;
	struct cmd c = { .kind = C_EXIT_PROC };

	/* (d): each thread runs its own way out */
	for (i = 0; i < NT; i++)
		if (!can_run(idx, w * NT + i, r))
			return;
	rebase_if_due();
	for (i = 0; i < NT; i++)
		dl_and_note(slots[w * NT + i].tid);
	if (o->sub)
		kill(wpid[w], SIGKILL);
	else if (write_full(slots[w * NT].cmd[1], &c, sizeof(c)))
		die("exit command: %s", strerror(errno));
	if (waitpid(wpid[w], &st, 0) < 0)
		die("waitpid: %s", strerror(errno));
	spawn_worker(w);
	r->ret = 0;
	snprintf(r->text, TEXT, "status=%x", st);
}

static void run_threxit(long idx, const struct op *o, struct res *r)
{
	int w = o->caller / NT, s1 = w * NT + 1;
	struct cmd c = { .kind = C_EXIT_THREAD };

	r->ret = 0;
	if (o->sub < 2 && slots[s1].tid) {
		if (!can_run(idx, s1, r))
			return;
		rebase_if_due();
		dl_and_note(slots[s1].tid);
		if (write_full(slots[s1].cmd[1], &c, sizeof(c)))
			die("thread exit command: %s", strerror(errno));
		slots[s1].tid = 0;
	}
	if (o->sub == 1)
		return;
	if (slots[s1].tid) {
		r->ret = -2;
		snprintf(r->text, TEXT, "present");
		return;
	}
	if (!can_run(idx, w * NT, r))
		return;
	c.kind = C_SPAWN;
	call_slot(w * NT, &c, r);
	if (r->ret == 0)
		slots[s1].tid = r->tid;
}

static void run_cgmove(const struct op *o, struct res *r)
{
	char path[96];
	pid_t tid = slots[o->tslot].tid ? slots[o->tslot].tid : BAD_PID;

	if (avoid_f && ncpu > 1 && cpu1_offline()) {
		r->ret = -2;
		snprintf(r->text, TEXT, "avoided (f)");
		return;
	}
	snprintf(path, sizeof(path), CG "%s/cgroup.%s", cg_name[o->sub],
		 o->val ? "threads" : "procs");
	r->ret = file_put(path, "%d", tid);
	r->err = r->ret < 0 ? errno : 0;
}

static void read_file(const char *path, char *b, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t k;

	if (!f) {
		snprintf(b, n, "open %s", errname(errno));
		return;
	}
	k = fread(b, 1, n - 1, f);
	b[k] = '\0';
	fclose(f);
	while (k && b[k - 1] == '\n')
		b[--k] = '\0';
	for (; *b; b++)
		if (*b == '\n')
			*b = '|';
}

static void run_cgcpus(const struct op *o, struct res *r)
{
	char path[96], buf[128];

	if (avoid_f && ncpu > 1) {
		snprintf(path, sizeof(path), CG "%s/cpuset.cpus.partition",
			 cg_name[o->sub]);
		read_file(path, buf, sizeof(buf));
		if (cpu1_offline() || (o->val >= 100 && o->sub == 1) ||
		    (o->val < 100 && strstr(buf, "invalid"))) {
			r->ret = -2;
			snprintf(r->text, TEXT, "avoided (f)");
			return;
		}
	}
	if (o->val >= 100) {
		snprintf(path, sizeof(path), CG "%s/cpuset.cpus.partition",
			 cg_name[o->sub]);
		r->ret = file_put(path, "%s", part_vals[o->val - 100]);
	} else {
		snprintf(path, sizeof(path), CG "%s/cpuset.cpus", cg_name[o->sub]);
		r->ret = file_put(path, "%s\n", cpus_vals[o->val]);
	}
	r->err = r->ret < 0 ? errno : 0;
	snprintf(path, sizeof(path), CG "%s/cpuset.cpus.partition",
		 cg_name[o->sub]);
	read_file(path, buf, sizeof(buf));
	snprintf(r->text, TEXT, "part=%s", buf);
	snprintf(path, sizeof(path), CG "%s/cpuset.cpus.effective",
		 cg_name[o->sub]);
	read_file(path, buf, sizeof(buf));
	snprintf(r->text + strlen(r->text), TEXT - strlen(r->text),
		 " eff=%s", buf);
}

static void run_sysctl(const struct op *o, struct res *r, bool write)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", sysctl_names[o->sub]);
	if (write) {
		r->ret = file_put(path, "%s\n", sysctl_vals[o->sub][o->val]);
		r->err = r->ret < 0 ? errno : 0;
	} else {
		r->ret = 0;
		read_file(path, r->text, TEXT);
	}
}

static void run_bwread(struct res *r)
{
	long long bw, total, b[2], t[2];

	if (ncpu > 1) {
		/* CPU 1's domain too: CPU 0's again unless split */
		r->ret = read_bw2(b, t);
		r->err = r->ret < 0 ? errno : 0;
		if (!r->ret && t[1] == DL_BW_NONE)
			snprintf(r->text, TEXT, "bw=%lld total=%lld cpu1 none",
				 b[0], t[0]);
		else if (!r->ret)
			snprintf(r->text, TEXT, "bw=%lld total=%lld cpu1 "
				 "bw=%lld total=%lld", b[0], t[0], b[1], t[1]);
		return;
	}
	r->ret = dl_bw_of_cpu(0, &bw, &total);
	r->err = r->ret < 0 ? errno : 0;
	if (!r->ret)
		snprintf(r->text, TEXT, "bw=%lld total=%lld", bw, total);
}

/* (g): CPU 1 is a root domain of its own, with no limit. */
static bool cpu1_unlimited(void)
{
	long long bw[2], total[2];

	if (read_bw2(bw, total) || total[1] == DL_BW_NONE)
		return false;
	return bw[1] == -1 && (rd_split() || bw[0] != bw[1] ||
			       total[0] != total[1]);
}

/* CPU 1 offline or online; the CPUs online after. */
static void run_hotplug(const struct op *o, struct res *r)
{
	char buf[64];

	if (o->sub == 0 && avoid_f) {
		/* (f): the root cgroup keeps CPU 0 */
		read_file(CG "/cpuset.cpus.effective", buf, sizeof(buf));
		if (buf[0] != '0') {
			r->ret = -2;
			snprintf(r->text, TEXT, "avoided (f)");
			return;
		}
	}
	if (o->sub == 0 && avoid_g && cpu1_unlimited()) {
		r->ret = -2;
		snprintf(r->text, TEXT, "avoided (g)");
		return;
	}
	r->ret = file_put(CPU1_ONLINE, "%s\n", hotplug_vals[o->sub]);
	r->err = r->ret < 0 ? errno : 0;
	read_file("/sys/devices/system/cpu/online", buf, sizeof(buf));
	snprintf(r->text, TEXT, "online=%s", buf);
}

static long pings, strays;

/*
 * Whether worker slot @s may run outside its cpuset's CPUs: its
 * affinity has a CPU its cpuset's effective CPUs have not (a cpuset
 * defect, (f); then where it sleeps follows the scheduler, and so may
 * the root domain that counts it).  Says so in a note (not a record).
 */
static void check_stray(long idx, int s)
{
	char path[96], cg[64], eff[32];
	cpu_set_t m;
	int c;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", slots[s].tid);
	read_file(path, cg, sizeof(cg));
	if (strncmp(cg, "0::", 3) || sched_getaffinity(slots[s].tid,
						      sizeof(m), &m))
		return;
	snprintf(path, sizeof(path), CG "%.32s/cpuset.cpus.effective", cg + 3);
	read_file(path, eff, sizeof(eff));
	/* eff is "0", "1" or "0-1" here: two CPUs */
	for (c = 0; c < 2; c++)
		if (CPU_ISSET(c, &m) && !strchr(eff, '0' + c)) {
			strays++;
			out("note op %ld: w%dt%d may run on CPU %d, outside %s "
			    "(CPUs %s)", idx, s / NT, s % NT, c, cg + 3, eff);
			return;
		}
}

/*
 * After an op that changed which CPUs a cpuset has, on several CPUs:
 * every worker thread runs once, so that each last ran on a CPU of its
 * cpuset (see the top comment); then, for (e), a rebuild counts each
 * deadline task in the domain it is now in.
 */
static void ping_all(long idx)
{
	struct cmd c = { .kind = C_PING };
	struct res r;
	char buf[32];
	int s;

	if (ncpu < 2)
		return;
	for (s = 0; s < NSLOT; s++)
		if (slots[s].tid && can_run(idx, s, &r)) {
			call_slot(s, &c, &r);
			check_stray(idx, s);
		}
	pings++;
	if (!avoid_e)
		return;
	settle(idx);
	read_file("/proc/sys/kernel/sched_rt_period_us", buf, sizeof(buf));
	rebase_due = true;
}

/* Ops whose result follows the allocated bandwidth, or that rebuild it. */
static bool rebuilds(int type)
{
	return type == OP_CGMOVE || type == OP_CGCPUS || type == OP_SYSCTL_W ||
	       type == OP_SYSCTL_R || type == OP_HOTPLUG;
}

/*
 * -W: the kernel's reports (a WARNING, a BUG, an oops), each named with
 * the op after which it was first read from /dev/kmsg: which op of a
 * run made the kernel warn, make test failing on any such report.
 */
static int kmsg_fd = -1;

static void kmsg_open(void)
{
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg_fd < 0)
		die("/dev/kmsg: %s", strerror(errno));
	lseek(kmsg_fd, 0, SEEK_END);
}

static void kmsg_check(const char *line)
{
	char buf[1024];
	ssize_t n;

	if (kmsg_fd < 0)
		return;
	while ((n = read(kmsg_fd, buf, sizeof(buf) - 1)) > 0 ||
	       (n < 0 && errno == EPIPE)) {
		char *msg;

		if (n < 0)
			continue;	/* overwritten records: go on */
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		msg = strchr(buf, ';');
		msg = msg ? msg + 1 : buf;
		if (strstr(msg, "WARNING") || strstr(msg, "BUG") ||
		    strstr(msg, "Oops") || strstr(msg, "RIP:"))
			out("kernel after op %s: %s", line, msg);
	}
}

/* Ops that change which CPUs a cpuset has: ping_all() after them. */
static bool changes_cpus(int type)
{
	return type == OP_CGMOVE || type == OP_CGCPUS || type == OP_HOTPLUG;
}

/*
 * Before such an op on several CPUs: every worker can run (stretched if
 * it must be, (d)), or the ping after it could not reach one, which
 * then sleeps on the CPU it last ran on, outside its cpuset's CPUs, and
 * is counted there: seed 1 of -H at op 3718, a worker with a budget
 * under the floor when sched_deadline_period_max_us was 100, asleep on
 * CPU 1, counted in the default root domain when CPU 1 went offline,
 * and a sysctl write then refused (that domain's 0 CPUs), or not, by
 * where the worker had last run.
 */
static bool all_can_run(long idx, struct res *r)
{
	int s;

	for (s = 0; s < NSLOT; s++)
		if (slots[s].tid && !can_run(idx, s, r)) {
			snprintf(r->text, TEXT, "avoided (d)");
			return false;
		}
	return true;
}

static void dispatch(long idx, const struct op *o, struct res *r, char *note)
{
	switch (o->type) {
	case OP_EXIT: run_exit(idx, o, r); break;
	case OP_THREXIT: run_threxit(idx, o, r); break;
	case OP_CGMOVE: run_cgmove(o, r); break;
	case OP_CGCPUS: run_cgcpus(o, r); break;
	case OP_SYSCTL_W: run_sysctl(o, r, true); break;
	case OP_SYSCTL_R: run_sysctl(o, r, false); break;
	case OP_BWREAD: run_bwread(r); break;
	case OP_HOTPLUG: run_hotplug(o, r); break;
	default: run_call(idx, o, r, note); break;
	}
}

static void run_op(long idx, const struct op *o, struct res *r)
{
	char args[512], line[1024], note[16] = "";
	long t0 = now_ms();

	memset(r, 0, sizeof(*r));
	verbose_op = idx >= vfrom && idx <= vto;
	/* (c): no rebuild while a departed task still holds bandwidth */
	if (o->type == OP_BWREAD || (rebuilds(o->type) && avoid_c))
		settle(idx);
	if (ncpu < 2 || !changes_cpus(o->type) || all_can_run(idx, r))
		dispatch(idx, o, r, note);
	if (rebuilds(o->type))
		rebase_due = true;
	if (r->ret == 0 && changes_cpus(o->type))
		ping_all(idx);
	stat_add(o->type, r);
	fmt_args(o, args, sizeof(args));
	snprintf(line, sizeof(line), "%ld %s %s%s -> %ld %s %s", idx,
		 op_name[o->type], args, note, r->ret,
		 r->ret == -1 ? errname(r->err) : "0", r->text);
	hash_str(line);
	if (idx >= vfrom && idx <= vto)
		out("rec %s", line);
	if (verbose_op && getenv("DLFUZZ_DBG"))
		out("dbg after: total_bw %lld;%s", bw_total(), dl_slots());
	/* Where a run's time goes: an op that took long, its own wait too. */
	if (now_ms() - t0 >= 2000)
		out("slow op %s: %ld ms", line, now_ms() - t0);
	kmsg_check(line);
}

/* ---- setup and teardown ---- */

static char fs_saved[8][32];

/* (b): the fair servers hold nothing, on either kernel. */
static void fair_servers(bool off)
{
	char path[96];
	int c;

	for (c = 0; c < ncpu && c < 8; c++) {
		snprintf(path, sizeof(path), FS_DIR "/cpu%d/runtime", c);
		if (off) {
			read_file(path, fs_saved[c], sizeof(fs_saved[c]));
			if (!file_put(path, "0"))
				continue;
			/*
			 * The classic class refuses any write once a rebuild
			 * has dropped the servers from total_bw (the total
			 * less the server's share wraps): they are outside
			 * the accounting already, as wanted.
			 */
			if (errno == EBUSY && CLASSIC_DL()) {
				out("dlfuzz: fair server cpu%d: already outside the accounting",
				    c);
				fs_saved[c][0] = 0;
				continue;
			}
			die("fair server cpu%d runtime 0: %s", c,
			    strerror(errno));
		} else if (fs_saved[c][0] && file_put(path, "%s", fs_saved[c])) {
			out("dlfuzz: restoring the fair server of cpu%d: %s",
			    c, strerror(errno));
		}
	}
}

static void cgroups_setup(void)
{
	int i;

	mkdir(CG, 0755);
	if (access(CG "/cgroup.procs", F_OK) &&
	    mount("none", CG, "cgroup2", 0, NULL))
		die("mount cgroup2: %s", strerror(errno));
	if (file_put(CG "/cgroup.subtree_control", "+cpuset"))
		die("+cpuset: %s", strerror(errno));
	for (i = 1; i < 3; i++) {
		char path[64];

		snprintf(path, sizeof(path), CG "%s", cg_name[i]);
		if (mkdir(path, 0755) && errno != EEXIST)
			die("mkdir %s: %s", path, strerror(errno));
		snprintf(path, sizeof(path), CG "%s/cpuset.cpus", cg_name[i]);
		file_put(path, "%d", i == 1 || ncpu < 2 ? 0 : 1);
	}
}

static void cgroups_teardown(void)
{
	int i, k;

	for (i = 1; i < 3; i++) {
		char path[64];

		snprintf(path, sizeof(path), CG "%s/cpuset.cpus.partition",
			 cg_name[i]);
		file_put(path, "member");
		snprintf(path, sizeof(path), CG "%s", cg_name[i]);
		for (k = 0; k < 100 && rmdir(path) && errno == EBUSY; k++)
			usleep(10000);
	}
}

/*
 * Restores the first @n sysctls of this order: max before min, period
 * before runtime, so that each stays consistent.  The first two, the
 * deadline period limits, rebuild nothing.
 */
static void sysctls_restore(int n)
{
	static const int order[4] = { 3, 2, 1, 0 };
	int i;

	for (i = 0; i < n; i++) {
		char path[96];

		snprintf(path, sizeof(path), "/proc/sys/kernel/%s",
			 sysctl_names[order[i]]);
		if (file_put(path, "%s\n", sysctl_dflt[order[i]]))
			out("dlfuzz: restoring %s: %s", sysctl_names[order[i]],
			    strerror(errno));
	}
}

/* ---- options ---- */

/* The next index of -k's list, or -1. */
static long k_next(const char **p, long *hi)
{
	long a, b;
	char *e;

	while (**p == ',' || **p == ' ' || **p == '\n')
		(*p)++;
	if (!**p)
		return -1;
	a = strtol(*p, &e, 10);
	if (e == *p)
		die("bad -k list near '%.10s'", *p);
	b = a;
	if (*e == '-')
		b = strtol(e + 1, &e, 10);
	*p = e;
	*hi = b;
	return a;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *b;
	long n;

	if (!f)
		die("%s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = calloc(1, n + 1);
	if (!b || fread(b, 1, n, f) != (size_t)n)
		die("reading %s", path);
	fclose(f);
	return b;
}

static void usage(void)
{
	fprintf(stderr, "usage: dlfuzz [-s SEED] [-n OPS] [-c EVERY] "
		"[-v FROM-TO] [-k LIST|@FILE] [-K abcefgh|all] [-w MS] [-F NS] "
		"[-t] [-Z] [-H] [-W]\n");
	exit(2);
}

/*
 * The floor of (d): 12500 instructions, about 7 times the longest slice
 * seen to make no progress.  Under -icount shift=N an instruction is
 * 2^N ns; on the host's clock TCG runs some hundreds of millions a
 * second.  A debug kernel (KASAN, lockdep) takes some 8 times the
 * instructions for the same way back to user space.
 */
static uint64_t default_floor(void)
{
	const char *v = getenv("DLK_ICOUNT"), *d = getenv("DLK_DEBUG");
	uint64_t f = 50 * NSEC_PER_USEC;

	if (v && *v >= '0' && *v <= '9')
		f = 12500ULL << atoi(v);
	return d && !strcmp(d, "1") ? 8 * f : f;
}

static void parse(int argc, char **argv)
{
	int c;

	floor_ns = default_floor();
	while ((c = getopt(argc, argv, "s:n:c:v:k:K:w:F:tqZHW")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': nops = strtol(optarg, NULL, 0); break;
		case 'c': every = strtol(optarg, NULL, 0); break;
		case 'v':
			if (sscanf(optarg, "%ld-%ld", &vfrom, &vto) != 2)
				vfrom = vto = strtol(optarg, NULL, 0);
			break;
		case 'k':
			klist = optarg[0] == '@' ? slurp(optarg + 1) : optarg;
			break;
		case 'K':
			if (!strcmp(optarg, "all"))
				optarg = "abcefgh";
			avoid_a = !strchr(optarg, 'a');
			avoid_b = !strchr(optarg, 'b');
			avoid_c = !strchr(optarg, 'c');
			avoid_e = !strchr(optarg, 'e');
			avoid_f = !strchr(optarg, 'f');
			avoid_g = !strchr(optarg, 'g');
			avoid_h = !strchr(optarg, 'h');
			break;
		case 'w': wait_ms = strtol(optarg, NULL, 0); break;
		case 'F':
			floor_ns = strtoull(optarg, NULL, 0);
			floor_given = true;
			break;
		case 't': tap = true; break;
		case 'q': quiet = true; break;
		case 'Z': zombie_sets = true; break;
		case 'H': smp_ops = true; break;
		case 'W': kmsg_open(); break;
		default: usage();
		}
	}
	if (every <= 0 || nops < 0)
		usage();
}

/* ---- main ---- */

static long checkpoints;	/* "ck INDEX HASH" lines printed */

static void step(long idx, long *done)
{
	struct res r;
	struct op o;

	gen_op(idx, &o);
	run_op(idx, &o, &r);
	if (++*done % every == 0 &&
	    out("ck %ld %016llx", idx, (unsigned long long)hash))
		checkpoints++;
}

/* The ops the run is to make: -n's, or as many as -k's list names. */
static long planned_ops(void)
{
	const char *kp = klist;
	long a, hi, n = 0;

	if (!klist)
		return nops;
	while ((a = k_next(&kp, &hi)) >= 0)
		n += hi >= a ? hi - a + 1 : 0;
	return n;
}

static void print_stats(void)
{
	int t, e;

	for (t = 0; t < OP_NTYPES; t++) {
		char line[512];
		int n;

		n = snprintf(line, sizeof(line), "stat %-8s ok=%ld", op_name[t],
			     stat_ok[t]);
		if (stat_skip[t])
			n += snprintf(line + n, sizeof(line) - n, " skipped=%ld",
				      stat_skip[t]);
		for (e = 0; e < NERR; e++)
			if (stat_err[t][e])
				n += snprintf(line + n, sizeof(line) - n, " %s=%ld",
					      errname(e), stat_err[t][e]);
		out("%s", line);
	}
	out("waits %ld (%ld ms of guest time), redirected (a) %ld", waits,
	    waited_ms, redirects);
	out("floor %llu ns (d): calls made by the controller %ld, threads "
	    "stretched %ld, refused %ld", (unsigned long long)floor_ns,
	    redirects_d, stretched, starved);
	if (ncpu > 1)
		out("pings of every worker after a change of cpuset CPUs %ld "
		    "(%ld outside their cpuset); reads of the totals %ld, %ld "
		    "with a worker running", pings, strays, debug_reads,
		    unquiet);
}

int main(int argc, char **argv)
{
	long long start_total, end_total;
	long i, done = 0, hi, t0, planned, results = 0;
	long nok = 0, nerr = 0;
	int w, t, reaped = 0;
	bool completed;

	parse(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	/*
	 * Several vCPUs under -icount take turns: one that runs while
	 * another does gets the instructions of half the guest time.
	 */
	if (!floor_given && getenv("DLK_ICOUNT") && *getenv("DLK_ICOUNT"))
		floor_ns *= ncpu;
	if (tap)
		printf("TAP version 13\n1..3\n");
	out("dlfuzz seed=%llu ops=%ld every=%ld avoid=%s%s%s%s%s%s%s cpus=%d%s",
	    seed, nops, every, avoid_a ? "a" : "", avoid_b ? "b" : "",
	    avoid_c ? "c" : "", avoid_e ? "e" : "", avoid_f ? "f" : "",
	    avoid_g ? "g" : "", avoid_h ? "h" : "", ncpu,
	    smp_ops ? " smp-ops" : "");
	if (smp_ops && ncpu != 2 && tap) {
		/* a boot of another shape (make test SMP=N) */
		for (t = 1; t <= 3; t++)
			printf("ok %d %s # SKIP -H wants 2 CPUs, not %d\n", t,
			       (const char *[]){ "fuzz_completed",
			       "fuzz_valid_and_invalid_calls",
			       "fuzz_bandwidth_returned" }[t - 1], ncpu);
		return 0;
	}
	if (smp_ops && ncpu != 2)
		die("-H wants 2 CPUs online, not %d", ncpu);
	signal(SIGXCPU, SIG_IGN);
	if (avoid_b)
		fair_servers(true);
	cgroups_setup();
	/* a zombie child, never reaped before the end */
	zombie = fork();
	if (zombie == 0)
		_exit(0);
	usleep(1000);
	for (i = 0; i < NSLOT; i++)
		slot_pipes((int)i);
	for (w = 0; w < NW; w++)
		spawn_worker(w);
	start_total = bw_total();
	planned = planned_ops();
	t0 = now_ms();
	if (klist) {
		const char *kp = klist;
		long a;

		while ((a = k_next(&kp, &hi)) >= 0)
			for (; a <= hi; a++)
				step(a, &done);
	} else {
		for (i = 0; i < nops; i++)
			step(i, &done);
	}
	/*
	 * The end: every worker gone, its bandwidth returned.  Each thread
	 * runs its own exit, (d) above: the period limits first, so that
	 * stretching is not refused.  CPU 1 first, online for the fair
	 * servers' restore.
	 */
	if (smp_ops) {
		settle(-1);
		if (file_put(CPU1_ONLINE, "1"))
			out("dlfuzz: CPU 1 back online: %s", strerror(errno));
		ping_all(-1);
	}
	sysctls_restore(2);
	for (i = 0; i < NSLOT; i++)
		if (!unstarve(-1, slots[i].tid, true))
			out("w%ldt%ld: a budget under the floor, refused: %s",
			    i / NT, i % NT, strerror(errno));
	for (w = 0; w < NW; w++) {
		kill(wpid[w], SIGKILL);
		reaped += waitpid(wpid[w], NULL, 0) == wpid[w];
		for (t = 0; t < NT; t++)
			slots[w * NT + t].tid = 0;
	}
	pending = true;
	settle(-1);
	{
		char line[160];
		long long want = expected_total();

		end_total = bw_total();
		snprintf(line, sizeof(line), "end total_bw %lld, held %lld "
			 "(zombie %s)", end_total, want,
			 is_dl(zombie) ? "deadline" : "not deadline");
		hash_str(line);
		out("%s", line);
		waitpid(zombie, NULL, 0);
		usleep(20 * 1000);
		end_total = bw_total();
		snprintf(line, sizeof(line), "reaped total_bw %lld, start %lld",
			 end_total, start_total);
		hash_str(line);
		out("%s", line);
	}
	checkpoints += out("ck end %ld %016llx", done,
			   (unsigned long long)hash);
	out("ops %ld in %ld ms of guest time", done, now_ms() - t0);
	print_stats();
	cgroups_teardown();
	sysctls_restore(4);
	if (avoid_b)
		fair_servers(false);
	if (!tap)
		return 0;
	for (t = 0; t < OP_NTYPES; t++) {
		nok += stat_ok[t];
		results += stat_ok[t] + stat_skip[t] + stat_err[t][0];
		for (w = 1; w < NERR; w++)
			nerr += stat_err[t][w];
	}
	results += nerr;
	/*
	 * Completed: every op planned was made and has its result in the
	 * statistics, a checkpoint was written out every -c ops and at the
	 * end (the host compares them), and every worker was reaped.
	 */
	completed = done == planned && results == done &&
		    checkpoints == done / every + 1 && reaped == NW;
	printf("%sok 1 fuzz_completed # %ld of %ld ops, %ld results, %ld "
	       "checkpoints of %ld, %d of %d workers reaped\n",
	       completed ? "" : "not ", done, planned, results, checkpoints,
	       done / every + 1, reaped, NW);
	printf("%sok 2 fuzz_valid_and_invalid_calls # %ld succeeded, %ld "
	       "failed\n", nok > done / 10 && nerr > done / 10 ? "" : "not ",
	       nok, nerr);
	printf("%sok 3 fuzz_bandwidth_returned # total_bw %lld, was %lld\n",
	       end_total == start_total ? "" : "not ", end_total, start_total);
	return 0;
}
