// SPDX-License-Identifier: GPL-2.0
/*
 * stress: hundreds of deadline tasks while CPUs go offline and online and
 * cgroup v2 cpuset partitions come and go; afterwards the bandwidth
 * accounting of the root domain must be back where it started.
 *
 * Worker processes (-n, 200 by default) hold small reservations whose sum
 * is 0.4 of one CPU (see u_for()): periods of 5 to 100 ms (runtimes of
 * 200 us at least), some with a constrained deadline, some reclaiming
 * (GRUB); some sleep until their next period, some spin and yield, some
 * spin without end (the CBS throttles them), some sleep for up to a
 * second.  M-2 "hogs" (one on two CPUs) switch between 2% and 30% of a
 * CPU among them, so that taking CPUs away is sometimes refused (with
 * the sysctls low).  The controller and its threads run SCHED_FIFO
 * (reset on fork), so that the workers' load cannot starve them.
 * Some workers change their own parameters, some exit (as deadline
 * tasks) and are created again.  Meanwhile the controller's threads take
 * CPUs 1..M-1 offline and online, make cgroup v2 partitions, move workers
 * into and out of them and change their CPUs, change other workers'
 * parameters, and touch the sched sysctls.  EBUSY from any of them is
 * admission control doing its job: counted, never a failure.
 *
 * Both implementations rebuild a root domain's total from the tasks that
 * exist whenever the root domains change, so any error that came before
 * the last rebuild is forgotten.  What can be compared is what happens
 * after one: the run ends by quiescing everything (no exit, no parameter
 * change, no hotplug, no cgroup op), waiting out every 0-lag time,
 * undoing the partitions and the hotplug, and rebuilding the root
 * domains once more from scratch (a partition of the last CPU made and
 * undone: each time a new root domain, which counts the fair servers on
 * both kernels).  Then the total must be what the live tasks hold plus
 * the fair servers, exactly; every task must still be making progress;
 * all must die within a bounded time of SIGKILL; and once their 0-lag
 * times have passed the total must be what it was before the run, taken
 * after the same kind of rebuild.
 *
 * Where the kernel has deadline bandwidth caps per cgroup (cpu.dl.max,
 * the EDF-CBS class's), a fourth thread also caps a cgroup tree
 * (stresscap, its children a and b, and u, a slice delegated to uid
 * 65534 with kernel.sched_dl_unprivileged on), moves workers into it and
 * out, rewrites the caps, and samples every capped cgroup: what it holds
 * (cpu.dl.stat) must never exceed its cap.  One worker in 25 runs as
 * uid 65534, admitted without privilege inside the slice.  At the end
 * every cgroup of the tree must hold nothing.
 *
 * Usage: stress [-d SECONDS] [-n TASKS] [-s SEED]
 * The tests share the run's results through a file: the first runs the
 * stress, the others judge it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>
#include <time.h>
#include <unistd.h>

#include "dl.h"
#include "file.h"
#include "spin.h"
#include "tap.h"

#define MS NSEC_PER_MSEC
#define US NSEC_PER_USEC
#define MAX_TASKS 1024
#define MAX_CPUS 64
#define NPART 2
#define CG "/sys/fs/cgroup"
#define RESULTS "/tmp/stress.results"
#define CAPS CG "/stresscap"	/* the capped tree, on the EDF-CBS class */
#define NOBODY 65534		/* the unprivileged workers' uid */
#define CPU_ONLINE "/sys/devices/system/cpu/cpu%d/online"
/*
 * sched_rt_runtime_us for the run, below the default 950000.  It is the
 * utilization that reclaiming (GRUB) tasks may take of a CPU: at 0.95,
 * reclaimers and the fair server took all of a crowded CPU between them,
 * and the real-time controller and RCU's kthread starved for 26 s on
 * the classic kernel (an RCU stall).  0.8 leaves them room.
 */
#define RT_RUNTIME_HOME 800000

/* ---- options ---- */

static long duration_s = 60;
static int ntasks = 200;
static unsigned long long seed;

/* ---- what the run shares between processes ---- */

enum kind { K_SLEEP, K_YIELD, K_SPIN, K_NAP, K_HOG, NKINDS };

static const char *const kind_name[NKINDS] = {
	"sleep", "yield", "spin", "nap", "hog",
};

struct slot {
	pid_t pid;		/* 0: free */
	int kind;
	int is_dl;		/* admitted */
	unsigned long jobs;	/* progress: jobs done, or spin slices */
	int exiting;		/* past its last look at the quiesce */
	unsigned int gen;	/* how many workers this slot has had */
};

/* Counters, all updated with __atomic: workers are processes. */
enum counter {
	C_CREATED, C_BECOME_OK, C_BECOME_BUSY, C_BECOME_ERR,
	C_SELF_OK, C_SELF_BUSY, C_SELF_ERR,
	C_OTHER_OK, C_OTHER_BUSY, C_OTHER_ESRCH, C_OTHER_ERR,
	C_EXITED, C_SET_PERM,
	C_OFF_OK, C_OFF_BUSY, C_OFF_ERR, C_ON_OK, C_ON_ERR,
	C_PART_MADE, C_PART_INVALID, C_PART_REFUSED, C_PART_GONE,
	C_MOVE_OK, C_MOVE_BUSY, C_MOVE_ERR,
	C_CPUS_OK, C_CPUS_BUSY, C_CPUS_ERR,
	C_FLIP_OK, C_FLIP_ERR,
	C_SYSCTL_OK, C_SYSCTL_BUSY, C_SYSCTL_ERR,
	C_CAPMOVE_OK, C_CAPMOVE_BUSY, C_CAPMOVE_ERR,
	C_CAPW_OK, C_CAPW_BUSY, C_CAPW_ERR, C_UNPRIV,
	NCOUNTERS
};

static const char *const counter_name[NCOUNTERS] = {
	"tasks created", "admitted at start", "start EBUSY", "start error",
	"own setattr ok", "own setattr EBUSY", "own setattr error",
	"setattr of another ok", "setattr of another EBUSY",
	"setattr of another ESRCH", "setattr of another error",
	"exited as deadline tasks",
	"setattr EPERM (cpuset narrower than its root domain)",
	"CPU offline ok", "CPU offline EBUSY", "CPU offline error",
	"CPU online ok", "CPU online error",
	"partitions made", "partitions invalid", "partitions refused",
	"partitions removed",
	"moves ok", "moves EBUSY", "moves error",
	"partition cpus ok", "partition cpus EBUSY", "partition cpus error",
	"partition flips ok", "partition flips error",
	"sysctl ok", "sysctl EBUSY", "sysctl error",
	"moves into caps ok", "moves into caps EBUSY", "moves into caps error",
	"cap writes ok", "cap writes EBUSY", "cap writes error",
	"unprivileged workers",
};

struct shared {
	int quiesce;		/* no exits, no changes: the end is near */
	int caps;		/* cpu.dl.max: the capped tree is there */
	unsigned long beat;	/* the controller's heartbeat */
	long count[NCOUNTERS];
	int last_err[NCOUNTERS];
	struct slot slot[MAX_TASKS];
};

static struct shared *sh;
static int sh_fd = -1;		/* its memory, which the workers map too */
static char self_path[256];	/* this program, which the workers run */

static void count(enum counter c)
{
	__atomic_fetch_add(&sh->count[c], 1, __ATOMIC_RELAXED);
}

static void count_err(enum counter c, int err)
{
	count(c);
	__atomic_store_n(&sh->last_err[c], err, __ATOMIC_RELAXED);
}

static int quiescing(void)
{
	return __atomic_load_n(&sh->quiesce, __ATOMIC_ACQUIRE);
}

/* ---- what the first test leaves for the others ---- */

struct results {
	int done;		/* the run got to its end */
	int ncpus;
	long duration_ms;	/* stress phase, guest time */
	long count[NCOUNTERS];
	int last_err[NCOUNTERS];
	long long bw;		/* the limit per CPU */
	long long before[MAX_CPUS], quiet[MAX_CPUS], after[MAX_CPUS];
	long long rebuilt[MAX_CPUS];	/* after a sysctl read, at the end */
	long long tasks_bw;	/* what the live tasks hold, quiesced */
	long long servers_bw;	/* the fair servers' share */
	int live, dl_live;	/* workers alive, admitted, when quiesced */
	int exits_left;		/* still exiting when the wait for them ended */
	long exit_ms;		/* how long that wait was */
	long quiet_ms;		/* till the total was the tasks', or -1 */
	int starved;		/* admitted workers that did no job */
	pid_t starved_pid[8];
	int in_debt;		/* did no job, in debt, but one in time */
	int unreaped;		/* not reaped in time after SIGKILL */
	long reap_ms;
	int stuck_d;		/* tasks found in D state, twice */
	char stuck_comm[128];
	long zero_lag_ms;	/* how long the total took to come back */
	long horizon_ms;	/* the latest 0-lag time, from SIGKILL */
	int caps;		/* the capped tree was there */
	long cap_samples;	/* cgroups sampled, each a check */
	long cap_exceeded;	/* samples over the cap */
	char cap_worst[160];	/* the first of them */
	long long caps_left;	/* held in the tree at the end, or -1 */
	long caps_back_ms;	/* how long it took to be 0, or -1 */
};

static struct results res;

/* ---- small helpers ---- */

/* A seeded generator per thread: splitmix64. */
static __thread unsigned long long rng_state;

static unsigned long long rnd(void)
{
	unsigned long long z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static long long between(long long lo, long long hi)
{
	return lo + (long long)(rnd() % (unsigned long long)(hi - lo + 1));
}

static int chance(int percent)
{
	return (int)(rnd() % 100) < percent;
}

static pid_t controller;	/* the process that runs the stress */

static void beat(void);

/*
 * Sleeps @ms; in the controller's main thread, a heartbeat for the
 * watchdog too (its other threads sleep here as well, and must not
 * hide a main thread that is stuck).
 */
static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	if ((pid_t)syscall(SYS_gettid) == controller)
		beat();
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static long now_ms(void)
{
	return (long)(now_ns() / MS);
}

static int ncpus_conf(void)
{
	int n = (int)sysconf(_SC_NPROCESSORS_CONF);

	return n > MAX_CPUS ? MAX_CPUS : n;
}

/* The bandwidth of a reservation, as the kernel computes it (2^-20). */
static long long bw_of(uint64_t runtime, uint64_t period)
{
	return (long long)((runtime << 20) / period);
}

/* ---- the workers ---- */

struct params {
	uint64_t runtime, deadline, period, flags;
};

/*
 * Fresh parameters for a worker of @kind with bandwidth @u (2^-20).  The
 * runtime is 200 us at least: a task that overruns its budget (by a tick,
 * or by however long the host kept its vCPU from running) waits out the
 * debt at its own bandwidth, and one preempted inside an RCU read-side
 * section holds up every grace period meanwhile.  Short periods go with
 * larger bandwidths.
 */
static struct params params_for(int kind, long long u)
{
	struct params p = { 0 };
	uint64_t min_period = ((200 * US) << 20) / (uint64_t)u;

	if (kind == K_HOG)
		p.period = 20 * MS;
	else
		p.period = between(5, 100) * MS;
	if (p.period < min_period)
		p.period = min_period;
	p.deadline = p.period;
	if (chance(30))
		p.deadline = p.period * between(50, 95) / 100;
	p.runtime = (uint64_t)u * p.period >> 20;
	if (p.runtime > p.deadline)
		p.runtime = p.deadline;
	/* Reclaiming is refused without privilege (EPERM). */
	if (chance(20) && !geteuid())
		p.flags |= DL_FLAG_RECLAIM;
	return p;
}

static long set_params(pid_t pid, const struct params *p)
{
	struct dl_attr a = dl_attr_make(p->runtime, p->deadline, p->period,
					p->flags);

	return dl_setattr(pid, &a, 0);
}

static int ncpu_all;

/* Hogs that take CPUs away from the others at times. */
static int hogs(void)
{
	return ncpu_all > 2 ? ncpu_all - 2 : 1;
}

/* One worker in 25 runs without privilege, in the slice; no hog. */
static int unpriv_slot(int i)
{
	return i >= hogs() && i % 25 == 24;
}

/* A big hog's percentage of a CPU: 30% among all of them. */
static int hog_big_pct(void)
{
	return 30 / hogs();
}

/*
 * The bandwidth of a worker of @kind.  The set holds 0.4 of one CPU: a
 * tenth of the workers (the spinners, whose every job overruns) take a
 * quarter of it, the rest the remainder, each within 50% of its kind's
 * mean.  The hogs switch between 2% and 30% of a CPU, shared among them
 * (hog_big_pct()).  One CPU, not the machine: partitions take CPUs 1..M-1,
 * and making one checks no deadline bandwidth (cpuset code, on both
 * kernels), so the tasks of the root cgroup can find themselves all on
 * CPU 0, admitted or not.  0.4 of the machine there (0.8 of CPU 0 on
 * two CPUs, with a hog at 30%) was more than the CPU: the deadline
 * class took all of it, and the controller (SCHED_FIFO) starved.
 */
static long long u_for(int kind)
{
	long long total = (1LL << 20) * 4 / 10, mean;

	if (kind == K_HOG)
		return (2LL << 20) / 100;
	if (kind == K_SPIN)
		mean = total / 4 / (ntasks / 10 + 1);
	else
		mean = total * 3 / 4 / (ntasks - ntasks / 10);
	return mean * between(50, 150) / 100;
}

/* Longest monotonic step counted as this thread's own running time. */
#define BURN_STEP_MAX_NS ((int64_t)(100 * US))

/*
 * Burns about @ns of CPU time, counted as the sum of short monotonic
 * steps between looks at the clock; a longer step is time the worker did
 * not run, and is not counted.  The thread's CPU-time clock would be
 * exact, but reading it takes the runqueue lock inside an RCU read-side
 * section: a worker throttled there, at a tiny bandwidth and with a debt
 * from a host that did not run its vCPU, held up grace periods (and the
 * hotplug waiting for them) for 26 s in a 200-task run.
 */
static void burn(int64_t ns)
{
	int64_t done = 0, last = now_ns(), t;
	volatile int k;

	while (done < ns) {
		for (k = 0; k < 200; k++)
			;
		t = now_ns();
		if (t - last < BURN_STEP_MAX_NS)
			done += t - last;
		last = t;
	}
}

/* One job of a worker; @p is what it runs with. */
static void job(struct slot *s, const struct params *p, int64_t *next)
{
	struct timespec ts;
	int i;

	switch (s->kind) {
	case K_SLEEP:
		burn((int64_t)p->runtime * 3 / 10);
		*next += (int64_t)p->period;
		if (*next < now_ns())
			*next = now_ns();
		ts.tv_sec = *next / (int64_t)NSEC_PER_SEC;
		ts.tv_nsec = *next % (int64_t)NSEC_PER_SEC;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		break;
	case K_YIELD:
	case K_HOG:
		burn((int64_t)p->runtime * 8 / 10);
		sched_yield();
		break;
	case K_SPIN:
		/* Throttled by the CBS; each slice of CPU is progress. */
		for (i = 0; i < 8; i++)
			burn(250 * US);
		break;
	default:
		burn((int64_t)p->runtime / 10);
		sleep_ms(between(200, 1000));
		break;
	}
	__atomic_fetch_add(&s->jobs, 1, __ATOMIC_RELAXED);
}

static void count_set(long r, enum counter ok, enum counter busy,
		      enum counter err)
{
	if (!r)
		count(ok);
	else if (errno == EBUSY)
		count(busy);
	else
		count_err(err, errno);
}

/*
 * A deadline task must be allowed on every CPU of its root domain: in a
 * cgroup narrower than that (a partition made invalid by a CPU going
 * offline, or turned back into a member), setattr is EPERM.
 */
static void count_setattr(long r, enum counter ok, enum counter busy,
			  enum counter err)
{
	if (r && errno == EPERM)
		count(C_SET_PERM);
	else
		count_set(r, ok, busy, err);
}

/*
 * A worker about to exit says so, then looks at the quiesce once more:
 * either it sees it and stays (-1), or the controller, which raises the
 * quiesce before it looks at the workers, sees it exiting and waits for
 * it (wait_exits()).  A worker of tiny bandwidth can take seconds to
 * exit on a debug kernel; counted as live while the kernel has already
 * given its bandwidth back, it made the totals look short.
 */
static int leave_unless_quiesced(struct slot *s)
{
	__atomic_store_n(&s->exiting, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&sh->quiesce, __ATOMIC_SEQ_CST))
		return 0;
	__atomic_store_n(&s->exiting, 0, __ATOMIC_SEQ_CST);
	return -1;
}

static void __attribute__((noreturn)) worker(int i)
{
	struct slot *s = &sh->slot[i];
	int64_t t, next, die_at, change_at, hog_at = 0;
	struct params p, q;
	long long u;
	int big = 0;
	long r;

	rng_state = seed * 1000003 + (unsigned long long)i * 7919 + s->gen;
	u = u_for(s->kind);
	p = params_for(s->kind, u);
	/* Admitted, or refused (EBUSY) until there is room: retry. */
	while (set_params(0, &p)) {
		if (errno != EBUSY && errno != EPERM) {
			count_err(C_BECOME_ERR, errno);
			_exit(3);
		}
		count_setattr(-1, C_BECOME_OK, C_BECOME_BUSY, C_BECOME_ERR);
		if (quiescing())
			for (;;)
				pause();
		sleep_ms(between(20, 200));
	}
	count(C_BECOME_OK);
	__atomic_store_n(&s->is_dl, 1, __ATOMIC_RELEASE);
	t = now_ns();
	next = t;
	/*
	 * A third exit after a while, the others after a minute or two (so
	 * that tasks come and go for the whole run, not only its start); a
	 * third change their parameters.
	 */
	die_at = t + (chance(35) ? between(500, 8000) :
				   between(60000, 120000)) * (int64_t)MS;
	change_at = chance(35) ? t + between(500, 4000) * (int64_t)MS : 0;
	if (s->kind == K_HOG)
		hog_at = t + between(1000, 4000) * (int64_t)MS;
	for (;;) {
		job(s, &p, &next);
		if (quiescing())
			continue;
		t = now_ns();
		if (die_at && t > die_at && !leave_unless_quiesced(s)) {
			count(C_EXITED);
			_exit(0);
		}
		if (change_at && t > change_at) {
			q = params_for(s->kind, u * between(50, 150) / 100);
			r = set_params(0, &q);
			count_setattr(r, C_SELF_OK, C_SELF_BUSY, C_SELF_ERR);
			if (!r)
				p = q;
			change_at = t + between(500, 4000) * (int64_t)MS;
		}
		if (hog_at && t > hog_at) {
			/* A hog switches between 2% and its share of 30%. */
			big = !big;
			q = p;
			q.runtime = p.period * (big ? hog_big_pct() : 2) / 100;
			r = set_params(0, &q);
			count_setattr(r, C_SELF_OK, C_SELF_BUSY, C_SELF_ERR);
			if (!r)
				p = q;
			hog_at = t + between(1000, 4000) * (int64_t)MS;
		}
	}
}

/*
 * A worker is a program of its own: this one run again with -w (see
 * worker_main()), through posix_spawn(), which does not copy the
 * controller's memory.  A forked worker shared the controller's anon_vma
 * tree, and its exit took that tree's lock for write: a worker of 0.3%
 * of a CPU, throttled with the lock held while it exited (it overruns
 * by milliseconds on a debug kernel), held up every other exit and every
 * fork of the controller, whose mmap lock held up its other threads in
 * turn.  The run then made no headway for many minutes, on either
 * kernel: a deadline task has no bandwidth inheritance for sleeping
 * locks other than rt_mutex.
 */
static void spawn(int i)
{
	struct slot *s = &sh->slot[i];
	char arg[4][24];
	char *argv[] = { "stress", "-w", arg[0], "-f", arg[1], "-s", arg[2],
			 "-n", arg[3], NULL };
	extern char **environ;
	pid_t pid;
	int err;

	beat();
	s->gen++;
	s->is_dl = 0;
	s->exiting = 0;
	s->jobs = 0;
	if (i < hogs())
		s->kind = K_HOG;
	else if (i % 10 == 9)
		s->kind = K_SPIN;
	else
		s->kind = (int)(rnd() % 100) < 50 ? K_SLEEP :
			  (int)(rnd() % 100) < 60 ? K_YIELD : K_NAP;
	snprintf(arg[0], sizeof(arg[0]), "%d", i);
	snprintf(arg[1], sizeof(arg[1]), "%d", sh_fd);
	snprintf(arg[2], sizeof(arg[2]), "%llu", seed);
	snprintf(arg[3], sizeof(arg[3]), "%d", ntasks);
	fflush(stdout);
	err = posix_spawn(&pid, self_path, NULL, NULL, argv, environ);
	if (err) {
		tap_diag("posix_spawn: %s", strerror(err));
		return;
	}
	__atomic_store_n(&s->pid, pid, __ATOMIC_RELEASE);
	count(C_CREATED);
}

/* The worker of slot @i, in a process of its own; @fd is the shared memory. */
static int worker_main(int i, int fd)
{
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		  0);
	if (sh == MAP_FAILED || i < 0 || i >= ntasks || i >= MAX_TASKS)
		return 3;
	close(fd);
	ncpu_all = ncpus_conf();
	signal(SIGXCPU, SIG_IGN);
	/* Into the slice as root, then uid 65534 for good. */
	if (sh->caps && unpriv_slot(i) &&
	    !file_put(CAPS "/u/cgroup.procs", "%d", getpid()) &&
	    !setgroups(0, NULL) && !setgid(NOBODY) && !setuid(NOBODY))
		count(C_UNPRIV);
	worker(i);
}

/* A live worker's pid, at random, or 0. */
static pid_t some_worker(void)
{
	int k;

	for (k = 0; k < 8; k++) {
		pid_t pid = __atomic_load_n(&sh->slot[rnd() % ntasks].pid,
					    __ATOMIC_ACQUIRE);
		if (pid)
			return pid;
	}
	return 0;
}

/* ---- CPU hotplug ---- */

static int cpu_online(int cpu)
{
	char path[96], c = '1';
	int fd;

	snprintf(path, sizeof(path), CPU_ONLINE, cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 1;
	if (read(fd, &c, 1) != 1)
		c = '1';
	close(fd);
	return c == '1';
}

static int cpu_set_online(int cpu, int on)
{
	char path[96];

	snprintf(path, sizeof(path), CPU_ONLINE, cpu);
	return file_put(path, "%d", on);
}

static void all_cpus_online(void)
{
	int cpu;

	for (cpu = 1; cpu < ncpu_all; cpu++)
		if (!cpu_online(cpu) && cpu_set_online(cpu, 1))
			tap_diag("CPU %d back online: %s", cpu,
				 strerror(errno));
}

static void *hotplug_thread(void *arg)
{
	rng_state = seed + (uintptr_t)arg;
	while (!quiescing()) {
		int cpu = (int)between(1, ncpu_all - 1);

		if (cpu_online(cpu)) {
			if (!cpu_set_online(cpu, 0))
				count(C_OFF_OK);
			else if (errno == EBUSY)
				count(C_OFF_BUSY);
			else
				count_err(C_OFF_ERR, errno);
		} else if (!cpu_set_online(cpu, 1)) {
			count(C_ON_OK);
		} else {
			count_err(C_ON_ERR, errno);
		}
		sleep_ms(between(20, 400));
	}
	return NULL;
}

/* ---- cgroup v2 partitions ---- */

struct part {
	int exists;
	int lo, hi;		/* its CPUs, lo-hi */
};

static struct part part[NPART];

static void part_path(char *b, size_t n, int k, const char *file)
{
	snprintf(b, n, CG "/stress%d%s%s", k, file ? "/" : "", file ? file : "");
}

static int part_write(int k, const char *file, const char *fmt, long v1,
		      long v2)
{
	char path[96];

	part_path(path, sizeof(path), k, file);
	return file_put(path, fmt, v1, v2);
}

/*
 * Moves every task listed in @procs (a cgroup's cgroup.procs) to the
 * root cgroup; how many failed.
 */
static int cg_empty(const char *procs)
{
	char line[32];
	int failed = 0;
	FILE *f;

	f = fopen(procs, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (file_put(CG "/cgroup.procs", "%d", atoi(line)) &&
		    errno != ESRCH)
			failed++;
	fclose(f);
	return failed;
}

/* Moves worker @pid into the cgroup of @procs, counted as ok/busy/err. */
static void move_worker(pid_t pid, const char *procs, enum counter ok,
			enum counter busy, enum counter err)
{
	long r = file_put(procs, "%d", pid);

	/* A worker that has just exited is no error. */
	if (r && errno == ESRCH)
		return;
	count_set(r, ok, busy, err);
}

/* Moves every task of partition @k to the root cgroup; how many failed. */
static int part_empty(int k)
{
	char path[96];

	part_path(path, sizeof(path), k, "cgroup.procs");
	return cg_empty(path);
}

static void part_make(int k)
{
	char path[96], state[64] = "";
	int o = k ? 0 : 1, lo, hi;
	FILE *f;

	lo = (int)between(1, ncpu_all - 1);
	hi = chance(30) && lo + 1 < ncpu_all ? lo + 1 : lo;
	if (part[o].exists && lo <= part[o].hi && hi >= part[o].lo) {
		count(C_PART_REFUSED);
		return;
	}
	part_path(path, sizeof(path), k, NULL);
	if (mkdir(path, 0755) && errno != EEXIST) {
		count_err(C_PART_REFUSED, errno);
		return;
	}
	part[k].exists = 1;
	part[k].lo = lo;
	part[k].hi = hi;
	if (part_write(k, "cpuset.cpus", "%ld-%ld", lo, hi) ||
	    part_write(k, "cpuset.cpus.partition", "root", 0, 0)) {
		count_err(C_PART_REFUSED, errno);
		return;
	}
	part_path(path, sizeof(path), k, "cpuset.cpus.partition");
	f = fopen(path, "r");
	if (f) {
		if (!fgets(state, sizeof(state), f))
			state[0] = 0;
		fclose(f);
	}
	count(!strcmp(state, "root\n") ? C_PART_MADE : C_PART_INVALID);
}

static void part_remove(int k)
{
	char path[96];
	int i;

	part_write(k, "cpuset.cpus.partition", "member", 0, 0);
	part_path(path, sizeof(path), k, NULL);
	for (i = 0; i < 100; i++) {
		part_empty(k);
		if (!rmdir(path) || errno == ENOENT)
			break;
		sleep_ms(10);
	}
	if (i == 100)
		tap_diag("rmdir %s: %s", path, strerror(errno));
	part[k].exists = 0;
	count(C_PART_GONE);
}

static void part_move(int k)
{
	char path[96];
	pid_t pid = some_worker();

	if (!pid)
		return;
	if (chance(30))
		snprintf(path, sizeof(path), CG "/cgroup.procs");
	else
		part_path(path, sizeof(path), k, "cgroup.procs");
	move_worker(pid, path, C_MOVE_OK, C_MOVE_BUSY, C_MOVE_ERR);
}

static void part_cpus(int k)
{
	int lo = part[k].lo, hi = part[k].hi, o = k ? 0 : 1;

	if (hi > lo && chance(50))
		hi = lo;			/* shrink */
	else if (hi + 1 < ncpu_all && !(part[o].exists && part[o].lo == hi + 1))
		hi++;				/* grow */
	else
		return;
	if (!part_write(k, "cpuset.cpus", "%ld-%ld", lo, hi)) {
		part[k].hi = hi;
		count(C_CPUS_OK);
	} else if (errno == EBUSY) {
		count(C_CPUS_BUSY);
	} else {
		/* EINVAL: the CPUs would overlap a sibling's */
		count_err(C_CPUS_ERR, errno);
	}
}

static void part_flip(int k)
{
	char path[96], state[64] = "";
	FILE *f;
	int r;

	part_path(path, sizeof(path), k, "cpuset.cpus.partition");
	f = fopen(path, "r");
	if (f) {
		if (!fgets(state, sizeof(state), f))
			state[0] = 0;
		fclose(f);
	}
	r = file_put(path, "%s", strncmp(state, "member", 6) ? "member" : "root");
	if (r)
		count_err(C_FLIP_ERR, errno);
	else
		count(C_FLIP_OK);
}

static void *cpuset_thread(void *arg)
{
	rng_state = seed + (uintptr_t)arg;
	while (!quiescing()) {
		int k = (int)(rnd() % NPART);

		if (!part[k].exists) {
			part_make(k);
		} else {
			switch (rnd() % 10) {
			case 0: part_remove(k); break;
			case 1: part_cpus(k); break;
			case 2: part_flip(k); break;
			default: part_move(k); break;
			}
		}
		sleep_ms(between(10, 150));
	}
	return NULL;
}

/* ---- deadline bandwidth caps per cgroup (the EDF-CBS class's) ---- */

#define NCAPDIR 4

/*
 * The tree: stresscap 0.15 of a CPU, a and b 0.05 each, u 0.04 (the
 * slice of uid 65534); the caps of a, b and u add up to at most their
 * parent's, as they must.  The hogs (up to 0.3) fit in none.
 */
static const char *const cap_dir[NCAPDIR] = {
	CAPS, CAPS "/a", CAPS "/b", CAPS "/u",
};

static const char *const cap_first[NCAPDIR] = {
	"15000 100000", "5000 100000", "5000 100000", "4000 100000",
};

static char *path_of(char *b, size_t n, int k, const char *file)
{
	snprintf(b, n, "%s/%s", cap_dir[k], file);
	return b;
}

static int cap_file(int k, const char *file, char *buf, size_t n)
{
	char path[128];
	size_t got;
	FILE *f;

	f = fopen(path_of(path, sizeof(path), k, file), "r");
	if (!f)
		return -1;
	got = fread(buf, 1, n - 1, f);
	fclose(f);
	buf[got] = 0;
	return got ? 0 : -1;
}

/* Cgroup @k's cap in units of 2^-20 of a CPU (-1: "max"; -2: unread). */
static long long cap_of(int k)
{
	unsigned long long r, per;
	char buf[64];

	if (cap_file(k, "cpu.dl.max", buf, sizeof(buf)))
		return -2;
	if (!strncmp(buf, "max", 3))
		return -1;
	if (sscanf(buf, "%llu %llu", &r, &per) != 2 || !per)
		return -2;
	return (long long)((r << 20) / per);
}

/* A field of cgroup @k's cpu.dl.stat ("bw", "nr_tasks"), or -1. */
static long long cap_stat(int k, const char *field)
{
	char buf[256], *l;
	size_t n = strlen(field);

	if (cap_file(k, "cpu.dl.stat", buf, sizeof(buf)))
		return -1;
	for (l = buf; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, field, n) && l[n] == ' ')
			return atoll(l + n + 1);
	return -1;
}

/* Every capped cgroup holds at most its cap: counted, the first noted. */
static void caps_sample(void)
{
	long long cap, held;
	int k;

	for (k = 0; k < NCAPDIR; k++) {
		cap = cap_of(k);
		held = cap_stat(k, "bw");
		if (cap < 0 || held < 0)
			continue;
		res.cap_samples++;
		if (held <= cap)
			continue;
		if (!res.cap_exceeded++)
			snprintf(res.cap_worst, sizeof(res.cap_worst),
				 "%s held %lld over its cap %lld", cap_dir[k],
				 held, cap);
	}
}

static void caps_remove(void);

/* Makes the tree if the kernel has caps: whether it does. */
static int caps_setup(void)
{
	char path[128];
	int k;

	if (!access(CAPS, F_OK))
		caps_remove();
	if (file_put(CG "/cgroup.subtree_control", "+cpu") ||
	    (mkdir(CAPS, 0755) && errno != EEXIST))
		return 0;
	if (access(CAPS "/cpu.dl.max", F_OK)) {
		rmdir(CAPS);
		file_put(CG "/cgroup.subtree_control", "-cpu");
		return 0;
	}
	REQUIRE(file_put(CAPS "/cgroup.subtree_control", "+cpu") == 0,
		"+cpu in %s: %s", CAPS, strerror(errno));
	for (k = 1; k < NCAPDIR; k++)
		REQUIRE(!mkdir(cap_dir[k], 0755) || errno == EEXIST,
			"mkdir %s: %s", cap_dir[k], strerror(errno));
	for (k = 0; k < NCAPDIR; k++)
		REQUIRE(file_put(path_of(path, sizeof(path), k, "cpu.dl.max"),
				 "%s", cap_first[k]) == 0,
			"capping %s: %s", cap_dir[k], strerror(errno));
	/* The slice: capped by root, delegated to the user. */
	REQUIRE(!chown(cap_dir[3], NOBODY, NOBODY) &&
		!chown(CAPS "/u/cgroup.procs", NOBODY, NOBODY),
		"chown %s: %s", cap_dir[3], strerror(errno));
	REQUIRE(sysctl_set("sched_dl_unprivileged", 1) == 0,
		"kernel.sched_dl_unprivileged: %s", strerror(errno));
	return 1;
}

/* The tree goes, children first; left by a killed run too. */
static void caps_remove(void)
{
	char path[128];
	int k;

	for (k = NCAPDIR - 1; k >= 0; k--) {
		cg_empty(path_of(path, sizeof(path), k, "cgroup.procs"));
		if (rmdir(cap_dir[k]) && errno != ENOENT)
			tap_diag("rmdir %s: %s", cap_dir[k], strerror(errno));
	}
	sysctl_set("sched_dl_unprivileged", 0);
	file_put(CG "/cgroup.subtree_control", "-cpu");
}

/*
 * The end: what every cgroup of the tree holds (the killed workers'
 * bandwidth comes back at their 0-lag times) must go to 0 within @ms.
 */
static void caps_wait_empty(long ms)
{
	long t0 = now_ms();
	long long left;
	int k;

	for (;;) {
		left = 0;
		for (k = 0; k < NCAPDIR; k++)
			left += cap_stat(k, "bw") + cap_stat(k, "nr_tasks");
		if (!left || now_ms() - t0 > ms)
			break;
		sleep_ms(20);
	}
	res.caps_left = left;
	res.caps_back_ms = left ? -1 : now_ms() - t0;
}

/* A worker into cgroup @k of the tree, or out of it to the root. */
static void cap_move(void)
{
	pid_t pid = some_worker();
	int k = (int)(rnd() % (NCAPDIR + 1));
	char path[128];

	if (!pid)
		return;
	if (k == NCAPDIR)
		snprintf(path, sizeof(path), CG "/cgroup.procs");
	else
		path_of(path, sizeof(path), k, "cgroup.procs");
	move_worker(pid, path, C_CAPMOVE_OK, C_CAPMOVE_BUSY, C_CAPMOVE_ERR);
}

/* A new cap for a cgroup: 1 to 8 ms every 100 ms, 10 to 20 at the top. */
static void cap_write(void)
{
	int k = (int)(rnd() % NCAPDIR);
	long runtime = k ? between(1000, 8000) : between(10000, 20000);
	char path[128];
	long r;

	r = file_put(path_of(path, sizeof(path), k, "cpu.dl.max"),
		     "%ld 100000", runtime);
	count_set(r, C_CAPW_OK, C_CAPW_BUSY, C_CAPW_ERR);
}

static void *caps_thread(void *arg)
{
	rng_state = seed + (uintptr_t)arg;
	while (!quiescing()) {
		if (chance(70))
			cap_move();
		else
			cap_write();
		caps_sample();
		sleep_ms(between(10, 100));
	}
	return NULL;
}

/* ---- the sched sysctls ---- */

static void sysctl_op(void)
{
	long r = 0;

	switch (rnd() % 5) {
	case 0:
		r = sysctl_get("sched_rt_runtime_us") < 0;
		break;
	case 1:
		r = sysctl_set("sched_rt_runtime_us", RT_RUNTIME_HOME);
		break;
	case 2:
		/* Below what is held: EBUSY, or taken and given back. */
		r = sysctl_set("sched_rt_runtime_us", between(300000, 780000));
		if (!r)
			r = sysctl_set("sched_rt_runtime_us", RT_RUNTIME_HOME);
		break;
	case 3:
		r = sysctl_set("sched_rt_period_us", 1000000);
		break;
	default:
		r = sysctl_set("sched_deadline_period_max_us",
			       sysctl_get("sched_deadline_period_max_us"));
		break;
	}
	count_set(r, C_SYSCTL_OK, C_SYSCTL_BUSY, C_SYSCTL_ERR);
}

static void *sysctl_thread(void *arg)
{
	rng_state = seed + (uintptr_t)arg;
	while (!quiescing()) {
		sysctl_op();
		sleep_ms(between(500, 3000));
	}
	/* Whatever the last op left, the run's value again. */
	if (sysctl_set("sched_rt_runtime_us", RT_RUNTIME_HOME))
		tap_diag("restoring sched_rt_runtime_us: %s", strerror(errno));
	return NULL;
}

/* ---- the controller ---- */

static void setattr_other(void)
{
	struct dl_attr got = { 0 };
	struct params p;
	pid_t pid = some_worker();
	long r;

	if (!pid || dl_getattr(pid, &got, sizeof(got), 0) ||
	    got.sched_policy != SCHED_DEADLINE)
		return;
	p.period = got.sched_period;
	p.deadline = got.sched_deadline;
	p.flags = got.sched_flags & DL_FLAG_RECLAIM;
	p.runtime = got.sched_runtime * between(50, 150) / 100;
	if (p.runtime < 16 * US)
		p.runtime = 16 * US;
	if (p.runtime > p.deadline)
		p.runtime = p.deadline;
	r = set_params(pid, &p);
	if (r && errno == ESRCH)
		count(C_OTHER_ESRCH);
	else
		count_setattr(r, C_OTHER_OK, C_OTHER_BUSY, C_OTHER_ERR);
}

/* Reaps the workers that exited; @respawn makes new ones in their slots. */
static void reap(int respawn)
{
	int status, i;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (i = 0; i < ntasks; i++)
			if (sh->slot[i].pid == pid)
				break;
		if (i == ntasks)
			continue;
		__atomic_store_n(&sh->slot[i].pid, 0, __ATOMIC_RELEASE);
		if (WIFEXITED(status) && WEXITSTATUS(status))
			tap_diag("worker %d exited with %d", pid,
				 WEXITSTATUS(status));
		if (respawn)
			spawn(i);
	}
}

/* Every online CPU's total_bw; the limit per CPU in *bw. */
static int snapshot(long long *total, long long *bw)
{
	long long b[DL_MAX_CPUS];
	int cpu;

	if (ncpu_all > DL_MAX_CPUS || dl_bw_of_cpus(ncpu_all, b, total))
		return -1;
	for (cpu = 0; cpu < ncpu_all; cpu++)
		if (total[cpu] == DL_BW_NONE)
			return -1;
	*bw = b[ncpu_all - 1];
	return 0;
}

/* Waits until every CPU's total is @want's, up to @ms; the ms it took. */
static long wait_totals(const long long *want, long long *got, long ms)
{
	long t0 = now_ms();
	long long b;
	int cpu, same, step = 20;

	do {
		same = !snapshot(got, &b);
		for (cpu = 0; same && cpu < ncpu_all; cpu++)
			same = got[cpu] == want[cpu];
		if (same)
			return now_ms() - t0;
		/* Few reads of sched/debug: see dl_debug_backoff(). */
		sleep_ms(step);
		step = step * 2 > 250 ? 250 : step * 2;
	} while (now_ms() - t0 < ms);
	return -1;
}

/*
 * Reaps, until no worker that had said it was exiting is left (up to
 * @ms); how many are left.  How long it took goes into res.exit_ms.
 */
static int wait_exits(long ms)
{
	long t0 = now_ms();
	int i, left;

	for (;;) {
		reap(0);
		left = 0;
		for (i = 0; i < ntasks; i++)
			if (sh->slot[i].pid &&
			    __atomic_load_n(&sh->slot[i].exiting, __ATOMIC_SEQ_CST))
				left++;
		res.exit_ms = now_ms() - t0;
		if (!left || res.exit_ms >= ms)
			return left;
		sleep_ms(50);
	}
}

/* Waits until the totals stop changing for 500 ms (up to @ms). */
static void wait_stable(long long *got, long ms)
{
	long long prev[MAX_CPUS], b;
	long t0 = now_ms(), since = now_ms();

	snapshot(prev, &b);
	while (now_ms() - t0 < ms && now_ms() - since < 500) {
		sleep_ms(100);
		snapshot(got, &b);
		if (memcmp(got, prev, sizeof(prev))) {
			memcpy(prev, got, sizeof(prev));
			since = now_ms();
		}
	}
	snapshot(got, &b);
}

/*
 * A root domain made anew for all CPUs: a partition of the last CPU,
 * made and undone.  Each step builds new root domains, whose totals
 * start from the fair servers of their CPUs on both kernels, then count
 * the tasks.  (A rebuild that keeps a root domain, as a sysctl access
 * does, drops the servers on the classic one.)
 */
static int fresh_root_domain(void)
{
	const char *p = CG "/stress-fresh";
	int r;

	if (mkdir(p, 0755) && errno != EEXIST)
		return -1;
	r = file_put(CG "/stress-fresh/cpuset.cpus", "%d", ncpu_all - 1) ||
	    file_put(CG "/stress-fresh/cpuset.cpus.partition", "root");
	if (r)
		tap_diag("partition for a fresh root domain: %s",
			 strerror(errno));
	file_put(CG "/stress-fresh/cpuset.cpus.partition", "member");
	if (rmdir(p))
		r = -1;
	return r ? -1 : 0;
}

static void cgroups_setup(void)
{
	int k;

	mkdir(CG, 0755);
	if (access(CG "/cgroup.procs", F_OK))
		REQUIRE(mount("none", CG, "cgroup2", 0, NULL) == 0,
			"mount cgroup2: %s", strerror(errno));
	REQUIRE(file_put(CG "/cgroup.subtree_control", "+cpuset") == 0,
		"+cpuset: %s", strerror(errno));
	/* Left by an earlier run that was killed. */
	for (k = 0; k < NPART; k++) {
		part[k].exists = 1;
		part_remove(k);
	}
	rmdir(CG "/stress-fresh");
	memset(sh->count, 0, sizeof(sh->count));
}

/* Calls @fn with each process's pid and its /proc/PID/stat line. */
static void for_each_proc_stat(void (*fn)(const char *pid, char *stat,
					  void *arg), void *arg)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[300], buf[512];
		FILE *f;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f))
			fn(e->d_name, buf, arg);
		fclose(f);
	}
	closedir(d);
}

struct d_tasks {
	pid_t *pids;
	int max, k;
	char *comm;
	size_t n;
};

static void note_if_d(const char *pid, char *stat, void *arg)
{
	struct d_tasks *t = arg;
	char *rp = strrchr(stat, ')');

	if (rp && rp[1] == ' ' && rp[2] == 'D' && t->k < t->max) {
		t->pids[t->k++] = atoi(pid);
		snprintf(t->comm, t->n, "%.100s", stat);
	}
}

/* Tasks in D state now: their pids, up to @max; the count. */
static int tasks_in_d(pid_t *pids, int max, char *comm, size_t n)
{
	struct d_tasks t = { pids, max, 0, comm, n };

	for_each_proc_stat(note_if_d, &t);
	return t.k;
}

static void stuck_in_d(void)
{
	pid_t a[32], b[32];
	int na, nb, i, j;
	char comm[128] = "";

	na = tasks_in_d(a, 32, comm, sizeof(comm));
	sleep_ms(2000);
	nb = tasks_in_d(b, 32, comm, sizeof(comm));
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (a[i] == b[j]) {
				res.stuck_d++;
				snprintf(res.stuck_comm, sizeof(res.stuck_comm),
					 "%s", comm);
			}
}

/* Kills every worker; how many were not reaped within @ms. */
static int kill_all(long ms)
{
	long t0;
	int i, left;

	for (i = 0; i < ntasks; i++)
		if (sh->slot[i].pid)
			kill(sh->slot[i].pid, SIGKILL);
	t0 = now_ms();
	for (;;) {
		reap(0);
		for (left = 0, i = 0; i < ntasks; i++)
			left += sh->slot[i].pid != 0;
		if (!left || now_ms() - t0 > ms)
			break;
		sleep_ms(10);
	}
	res.reap_ms = now_ms() - t0;
	return left;
}

/* ---- the watchdog: where things stand if the controller stops ---- */

#define WD_RUNTIME (5 * MS)
#define WD_PERIOD (100 * MS)
#define WD_QUIET_MS 60000

static pid_t watchdog_pid;

/* The controller is making progress. */
static void beat(void)
{
	__atomic_add_fetch(&sh->beat, 1, __ATOMIC_RELAXED);
}

static void show_pools(void);

/* One task: pid, name, state, CPU, policy and CPU time. */
static void show_task(const char *pid, char *stat, void *arg)
{
	char comm[64] = "", st = '?', *lp = strchr(stat, '('),
	     *rp = strrchr(stat, ')');
	unsigned long ut = 0, stime = 0;
	int cpu = -1, policy = -1;

	(void)arg;
	if (lp && rp) {
		snprintf(comm, sizeof(comm), "%.*s", (int)(rp - lp - 1),
			 lp + 1);
		/* Fields 3 on: state ... 14 utime 15 stime ... 39 CPU 41 policy */
		sscanf(rp + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
		       "%lu %lu %*d %*d %*d %*d %*d %*d %*u %*u %*d %*u "
		       "%*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u "
		       "%*d %d %*u %d", &st, &ut, &stime, &cpu, &policy);
	}
	tap_diag("watchdog: %s %s %c cpu %d policy %d ticks %lu", pid, comm,
		 st, cpu, policy, ut + stime);
}

static void show_tasks(void)
{
	for_each_proc_stat(show_task, NULL);
}

/* Each line of @path, as diagnostics headed @what. */
static void show_file(const char *what, const char *path)
{
	char line[160];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		tap_diag("watchdog: %s %.*s", what,
			 (int)strcspn(line, "\n"), line);
	fclose(f);
}

/*
 * Where each of the controller's threads is: its state, the system call
 * it is in and its kernel stack.
 */
static void show_controller(void)
{
	static const char *const file[] = { "stat", "syscall", "stack" };
	char path[96], tid[32];
	struct dirent *e;
	unsigned int i;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", controller);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		int t = atoi(e->d_name);

		if (t <= 0)
			continue;
		snprintf(tid, sizeof(tid), "thread %d", t);
		for (i = 0; i < sizeof(file) / sizeof(file[0]); i++) {
			snprintf(path, sizeof(path), "/proc/%d/task/%d/%s",
				 controller, t, file[i]);
			show_file(tid, path);
		}
	}
	closedir(d);
}

/*
 * A deadline task of its own (a runaway one, or one reclaiming the
 * whole CPU, cannot starve it as it can the SCHED_FIFO controller) that
 * looks at the heartbeat each second.  After a minute without one it
 * shows every task and the release pools, and asks the kernel for every
 * CPU's backtrace and every task's state (sysrq l and t): twice at most.
 */
static void watchdog_start(void)
{
	unsigned long last;
	long since;
	int dumps = 0;

	watchdog_pid = fork();
	if (watchdog_pid)
		return;
	if (dl_become(WD_RUNTIME, WD_PERIOD, WD_PERIOD, 0))
		_exit(0);
	last = __atomic_load_n(&sh->beat, __ATOMIC_RELAXED);
	since = now_ms();
	while (dumps < 2) {
		unsigned long b;

		sleep_ms(1000);
		b = __atomic_load_n(&sh->beat, __ATOMIC_RELAXED);
		if (b != last) {
			last = b;
			since = now_ms();
			continue;
		}
		if (now_ms() - since < WD_QUIET_MS)
			continue;
		dumps++;
		tap_diag("watchdog: no heartbeat for %ld ms", now_ms() - since);
		show_controller();
		show_tasks();
		show_pools();
		file_put("/proc/sysrq-trigger", "l");
		file_put("/proc/sysrq-trigger", "t");
		since = now_ms();
	}
	for (;;)
		pause();
}

static void watchdog_stop(void)
{
	if (watchdog_pid > 0) {
		kill(watchdog_pid, SIGKILL);
		waitpid(watchdog_pid, NULL, 0);
	}
	watchdog_pid = 0;
}

/*
 * What the live workers hold, from the kernel's own view of them; how
 * many are alive and how many of those admitted in *@live and *@dl_live.
 */
static long long tally_tasks(int *live, int *dl_live)
{
	long long bw = 0;
	struct dl_attr a;
	int i;

	*live = *dl_live = 0;
	for (i = 0; i < ntasks; i++) {
		pid_t pid = sh->slot[i].pid;

		if (!pid)
			continue;
		(*live)++;
		memset(&a, 0, sizeof(a));
		if (dl_getattr(pid, &a, sizeof(a), 0) ||
		    a.sched_policy != SCHED_DEADLINE)
			continue;
		(*dl_live)++;
		bw += bw_of(a.sched_runtime, a.sched_period);
	}
	memset(&a, 0, sizeof(a));
	if (watchdog_pid > 0 && !dl_getattr(watchdog_pid, &a, sizeof(a), 0) &&
	    a.sched_policy == SCHED_DEADLINE)
		bw += bw_of(a.sched_runtime, a.sched_period);
	return bw;
}

/* The runqueue clock of CPU 0 (sched/debug's .clock), in ns; -1 if unread. */
static long long rq_clock_ns(void)
{
	long long ms = -1, ns = 0;
	char line[256];
	int in = 0, saved;
	FILE *f = dl_debug_open(&saved);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cpu#", 4))
			in = !strncmp(line, "cpu#0", 5) &&
			     (line[5] == ',' || line[5] == '\n');
		if (in && !strncmp(line, "  .clock ", 9) &&
		    sscanf(strchr(line, ':') + 1, "%lld.%lld", &ms, &ns) == 2)
			break;
	}
	dl_debug_close(f, saved);
	return ms < 0 ? -1 : ms * (long long)MS + ns;
}

/*
 * How long from now until the last worker's 0-lag time: its absolute
 * deadline less its remaining runtime at its own bandwidth (a debt, a
 * negative runtime, puts it later).  The bandwidth of a task that dies
 * comes back then on both kernels, not before; a task that overran its
 * budget by a long stall of its vCPU can be seconds away from it.
 */
static long zero_lag_horizon_ms(void)
{
	long long clock = rq_clock_ns(), latest = clock;
	char path[64];
	struct dl_attr a;
	int i;

	if (clock < 0)
		return -1;
	for (i = 0; i < ntasks; i++) {
		pid_t pid = sh->slot[i].pid;
		long long runtime, deadline, zl;

		memset(&a, 0, sizeof(a));
		if (!pid || dl_getattr(pid, &a, sizeof(a), 0) ||
		    a.sched_policy != SCHED_DEADLINE || !a.sched_runtime)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/sched", pid);
		if (proc_field(path, "dl.runtime", &runtime) ||
		    proc_field(path, "dl.deadline", &deadline))
			continue;
		zl = deadline - (long long)((__int128)runtime *
					    (long long)a.sched_period /
					    (long long)a.sched_runtime);
		if (zl > latest)
			latest = zl;
	}
	return (long)((latest - clock) / MS);
}

/* Our implementation's view of the bandwidth waiting for 0-lag times. */
static void show_pools(void)
{
	FILE *f = fopen("/sys/kernel/debug/sched/deadline_pool", "r");
	char line[160];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		tap_diag("%.*s", (int)strcspn(line, "\n"), line);
	fclose(f);
}

/*
 * A worker that did no job: its state and CPU (/proc/PID/stat), and the
 * scheduler's view of it (/proc/PID/sched: its deadline entity, CPU time
 * and switches), against CPU 0's runqueue clock.  Shown twice, a second
 * apart, to tell a task that runs without progress from one that waits.
 */
static void show_starved(pid_t pid)
{
	static const char *const field[] = {
		"se.sum_exec_runtime", "nr_switches", "dl.runtime",
		"dl.deadline", "policy",
	};
	char path[64];
	long long v[5];
	unsigned int i;
	int cpu = -1;
	char st = '?';

	proc_stat_cpu(pid, &st, &cpu);
	snprintf(path, sizeof(path), "/proc/%d/sched", pid);
	for (i = 0; i < sizeof(field) / sizeof(field[0]); i++)
		if (proc_field(path, field[i], &v[i]))
			v[i] = -1;
	tap_diag("  worker %d: %c on CPU %d, policy %lld, ran %lld ms in %lld switches, dl.runtime %lld, dl.deadline clock%+lld ns",
		 pid, st, cpu, v[4], v[0], v[1], v[2], v[3] - rq_clock_ns());
}

/* The totals and the tasks' tally again, to see whether they moved. */
static void show_totals(const char *when)
{
	long long tot[MAX_CPUS], b, bw;
	int cpu, live, dl_live;

	if (snapshot(tot, &b))
		return;
	bw = tally_tasks(&live, &dl_live);
	for (cpu = 0; cpu < ncpu_all; cpu++)
		tap_diag("%s: CPU %d total_bw %lld, the tasks hold %lld",
			 when, cpu, tot[cpu], bw);
}

/*
 * How long worker @pid, now in debt, may go without a job: @ms, plus the
 * time until its next period, deadline - D + P, when the timer
 * replenishes it, plus the time its debt takes to repay at its bandwidth
 * (the CBS moves its deadline that far on then: a vCPU the host did not
 * run for 40 ms, charged to a task of 0.2%, is 20 s), up to 2 minutes; 0
 * if it is not in debt.  The deadline may already lie far ahead: a
 * debt repaid before moved it there, and the task ran its budget out
 * again since.
 */
static long debt_wait_ms(pid_t pid, long ms)
{
	long long runtime, deadline, clock, next;
	struct dl_attr a;
	char path[64];
	long repay;

	snprintf(path, sizeof(path), "/proc/%d/sched", pid);
	memset(&a, 0, sizeof(a));
	if (proc_field(path, "dl.runtime", &runtime) || runtime >= 0 ||
	    dl_getattr(pid, &a, sizeof(a), 0) || !a.sched_runtime)
		return 0;
	repay = (long)((__int128)-runtime * a.sched_period /
		       a.sched_runtime / MS);
	clock = rq_clock_ns();
	if (!proc_field(path, "dl.deadline", &deadline) && clock >= 0) {
		next = deadline - (long long)a.sched_deadline +
		       (long long)a.sched_period - clock;
		if (next > 0)
			repay += next / MS;
	}
	return ms + (repay < 120000 ? repay : 120000);
}

/*
 * Each admitted worker must get through a job in @ms; one in debt, in
 * the time its debt allows (debt_wait_ms()), all waited for at once.
 */
static void check_progress(long ms)
{
	unsigned long jobs[MAX_TASKS];
	long wait[MAX_TASKS], t0, longest = 0;
	int i, owing = 0;

	for (i = 0; i < ntasks; i++)
		jobs[i] = __atomic_load_n(&sh->slot[i].jobs, __ATOMIC_RELAXED);
	sleep_ms(ms);
	for (i = 0; i < ntasks; i++) {
		struct slot *s = &sh->slot[i];

		wait[i] = 0;
		if (!s->pid || !s->is_dl || s->jobs != jobs[i])
			continue;
		/* Not in debt: starved, whatever comes while others wait. */
		wait[i] = debt_wait_ms(s->pid, ms) ?: -1;
		if (wait[i] < 0)
			continue;
		owing++;
		if (wait[i] > longest)
			longest = wait[i];
	}
	t0 = now_ms();
	while (owing && now_ms() - t0 < longest) {
		sleep_ms(200);
		for (owing = 0, i = 0; i < ntasks; i++) {
			if (wait[i] <= 0)
				continue;
			if (now_ms() - t0 >= wait[i]) {
				wait[i] = -2;	/* past what its debt allows */
			} else if (sh->slot[i].jobs != jobs[i]) {
				res.in_debt++;
				tap_diag("worker %d (%s) did no job in %ld ms, in debt; it did one %ld ms later",
					 sh->slot[i].pid,
					 kind_name[sh->slot[i].kind], ms,
					 now_ms() - t0);
				wait[i] = 0;
			} else {
				owing++;
			}
		}
	}
	for (i = 0; i < ntasks; i++) {
		struct slot *s = &sh->slot[i];

		if (!wait[i] || (wait[i] > 0 && s->jobs != jobs[i]))
			continue;	/* a job, in time */
		if (res.starved < 8)
			res.starved_pid[res.starved] = s->pid;
		res.starved++;
		tap_diag("worker %d (%s) did no job in %ld ms%s", s->pid,
			 kind_name[s->kind], ms,
			 wait[i] != -1 ? ", nor in the time its debt allows" : "");
	}
	for (i = 0; i < res.starved && i < 8; i++)
		show_starved(res.starved_pid[i]);
	if (res.starved)
		sleep_ms(1000);
	for (i = 0; i < res.starved && i < 8; i++)
		show_starved(res.starved_pid[i]);
}

static void print_figures(void)
{
	int c;

	tap_diag("seed %llu, %d CPUs, %d task slots, %ld ms of stress",
		 seed, res.ncpus, ntasks, res.duration_ms);
	for (c = 0; c < NCOUNTERS; c++)
		if (res.count[c])
			tap_diag("  %-28s %ld%s%s", counter_name[c],
				 res.count[c], res.last_err[c] ? " (last: " : "",
				 res.last_err[c] ? strerror(res.last_err[c]) : "");
}

static void save_results(void)
{
	FILE *f = fopen(RESULTS, "w");

	REQUIRE(f && fwrite(&res, sizeof(res), 1, f) == 1 && !fclose(f),
		"writing %s: %s", RESULTS, strerror(errno));
}

static int load_results(void)
{
	FILE *f = fopen(RESULTS, "r");
	int ok;

	if (!f)
		return -1;
	ok = fread(&res, sizeof(res), 1, f) == 1;
	fclose(f);
	return ok && res.done ? 0 : -1;
}

static void stress_run(void)
{
	pthread_t th[4];
	long long b, after_fresh[MAX_CPUS], want[MAX_CPUS];
	struct sched_param sp;
	long t0, tw, limit, wait, shown;
	int i, cpu;
	ssize_t n;

	rng_state = seed;
	ncpu_all = ncpus_conf();
	res.ncpus = ncpu_all;
	if (ncpu_all < 2)
		SKIP("CPU hotplug needs 2 CPUs");
	REQUIRE(ntasks >= ncpu_all && ntasks <= MAX_TASKS, "-n %d", ntasks);
	unlink(RESULTS);
	n = readlink("/proc/self/exe", self_path, sizeof(self_path));
	REQUIRE(n > 0 && n < (ssize_t)sizeof(self_path), "/proc/self/exe: %s",
		n < 0 ? strerror(errno) : "too long");
	sh_fd = memfd_create("stress", 0);
	REQUIRE(sh_fd >= 0 && !ftruncate(sh_fd, sizeof(*sh)),
		"memfd: %s", strerror(errno));
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED,
		  sh_fd, 0);
	REQUIRE(sh != MAP_FAILED, "mmap: %s", strerror(errno));
	memset(sh, 0, sizeof(*sh));

	/* Before: all CPUs, no partition, a root domain built anew. */
	all_cpus_online();
	REQUIRE(dl_sysctl_known_state() == 0 &&
		!sysctl_set("sched_rt_runtime_us", RT_RUNTIME_HOME),
		"sysctls: %s", strerror(errno));
	cgroups_setup();
	sh->caps = res.caps = caps_setup();
	tap_diag("capped cgroups: %s", res.caps ? "a tree under " CAPS :
		 "none (no cpu.dl.max)");
	REQUIRE(fresh_root_domain() == 0, "rebuilding the root domain");
	/* Tasks of earlier suites may hold bandwidth until their 0-lag. */
	wait_stable(res.before, 5000);
	res.servers_bw = dl_fair_servers_bw();
	REQUIRE(snapshot(res.before, &res.bw) == 0, "reading sched/debug");
	for (cpu = 0; cpu < ncpu_all; cpu++)
		tap_diag("before: CPU %d bw %lld total_bw %lld", cpu, res.bw,
			 res.before[cpu]);
	tap_diag("the fair servers hold %lld", res.servers_bw);
	controller = getpid();
	watchdog_start();

	/*
	 * The controller and its threads above the fair class (its children
	 * start there again): the workers' load must not starve them.
	 */
	sp.sched_priority = 10;
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
		tap_diag("SCHED_FIFO: %s", strerror(errno));

	/* The stress. */
	memset(sh->count, 0, sizeof(sh->count));
	for (i = 0; i < ntasks; i++)
		spawn(i);
	t0 = now_ms();
	REQUIRE(!pthread_create(&th[0], NULL, hotplug_thread, (void *)1) &&
		!pthread_create(&th[1], NULL, cpuset_thread, (void *)2) &&
		!pthread_create(&th[2], NULL, sysctl_thread, (void *)3) &&
		(!res.caps ||
		 !pthread_create(&th[3], NULL, caps_thread, (void *)4)),
		"pthread_create");
	for (shown = t0; now_ms() - t0 < duration_s * 1000;) {
		reap(1);
		if (chance(50))
			setattr_other();
		sleep_ms(between(10, 100));
		if (now_ms() - shown < 60000)
			continue;
		shown = now_ms();
		tap_diag("%ld s: %ld tasks created, %ld CPU offline, "
			 "%ld partitions", (shown - t0) / 1000,
			 sh->count[C_CREATED], sh->count[C_OFF_OK],
			 sh->count[C_PART_MADE]);
	}
	res.duration_ms = now_ms() - t0;

	/*
	 * Quiesce: no more exits, changes, hotplug or cgroup ops.  Workers
	 * still exiting go (leave_unless_quiesced()); then every 0-lag time
	 * passes, the departed tasks' bandwidth comes back, and the total
	 * is what the live ones hold (periods are 100 ms at most: a debt
	 * on a slow kernel adds some).
	 */
	__atomic_store_n(&sh->quiesce, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < (res.caps ? 4 : 3); i++)
		pthread_join(th[i], NULL);
	res.exits_left = wait_exits(tap_debug_kernel() ? 120000 : 60000);
	for (i = 0; i < NPART; i++)
		if (part[i].exists)
			part_remove(i);
	all_cpus_online();
	REQUIRE(fresh_root_domain() == 0, "rebuilding the root domain");
	reap(0);
	res.tasks_bw = tally_tasks(&res.live, &res.dl_live);
	for (cpu = 0; cpu < ncpu_all; cpu++)
		want[cpu] = res.tasks_bw + res.servers_bw;
	res.quiet_ms = wait_totals(want, res.quiet,
				   tap_debug_kernel() ? 30000 : 15000);
	memcpy(res.count, sh->count, sizeof(res.count));
	memcpy(res.last_err, sh->last_err, sizeof(res.last_err));
	print_figures();
	tap_diag("quiesced: %d workers alive, %d admitted, holding %lld",
		 res.live, res.dl_live, res.tasks_bw);
	tap_diag("quiesced: %d workers still exiting, %ld ms after the quiesce",
		 res.exits_left, res.exit_ms);
	for (cpu = 0; cpu < ncpu_all; cpu++)
		tap_diag("quiesced: CPU %d total_bw %lld%s", cpu, res.quiet[cpu],
			 res.quiet_ms < 0 ? " (never the tasks' and servers')" : "");
	if (res.quiet_ms < 0)
		show_pools();
	else
		tap_diag("quiesced: the total was the tasks' and the servers' %ld ms after the rebuild",
			 res.quiet_ms);
	/*
	 * A task that overran its budget waits out the debt at its own
	 * bandwidth: a vCPU the host did not run for 100 ms, charged to a
	 * 0.5% task, is 20 s.  Hence the generous bounds.
	 */
	check_progress(tap_debug_kernel() ? 30000 : 10000);
	if (res.starved) {
		show_totals("after the wait");
		show_pools();
	}

	/*
	 * The end: every worker killed, reaped in time, its bandwidth back
	 * by the latest 0-lag time (with a margin for the exits' own
	 * running), up to 5 minutes.
	 */
	limit = tap_debug_kernel() ? 120000 : 60000;
	res.horizon_ms = zero_lag_horizon_ms();
	tap_diag("the latest 0-lag time is %ld ms away", res.horizon_ms);
	watchdog_stop();
	res.unreaped = kill_all(limit);
	tap_diag("%d workers not reaped %ld ms after SIGKILL", res.unreaped,
		 res.reap_ms);
	wait = (tap_debug_kernel() ? 10000 : 5000) +
	       (res.horizon_ms > res.reap_ms ? res.horizon_ms - res.reap_ms : 0);
	tw = wait_totals(res.before, res.after, wait < 300000 ? wait : 300000);
	res.zero_lag_ms = tw;
	for (cpu = 0; cpu < ncpu_all; cpu++)
		tap_diag("after: CPU %d total_bw %lld (before %lld)%s", cpu,
			 res.after[cpu], res.before[cpu],
			 tw < 0 ? " (not back)" : "");
	if (tw < 0)
		show_pools();
	if (res.caps) {
		caps_wait_empty(10000);
		tap_diag("capped cgroups: %ld samples, %ld over a cap; %s",
			 res.cap_samples, res.cap_exceeded,
			 res.caps_left ? "not empty at the end" : "empty at the end");
		caps_remove();
	}
	stuck_in_d();
	/* For the record: a rebuild now, on an empty machine. */
	sysctl_get("sched_rt_runtime_us");
	sleep_ms(100);
	snapshot(res.rebuilt, &b);
	fresh_root_domain();
	sleep_ms(100);
	snapshot(after_fresh, &b);
	for (cpu = 0; cpu < ncpu_all; cpu++)
		tap_diag("rebuilt: CPU %d total_bw %lld after a sysctl read, "
			 "%lld after a partition", cpu, res.rebuilt[cpu],
			 after_fresh[cpu]);
	if (sysctl_set("sched_rt_runtime_us", 950000))
		tap_diag("restoring sched_rt_runtime_us: %s", strerror(errno));
	res.done = 1;
	save_results();
}

/* ---- the tests ---- */

static void need_results(void)
{
	REQUIRE(load_results() == 0, "the stress did not finish");
}

/* The stress ran to its end, and did a bit of everything. */
static void stress_ran(void)
{
	stress_run();
	CHECK(res.duration_ms >= duration_s * 1000, "ran %ld ms",
	      res.duration_ms);
	CHECK(res.count[C_CREATED] > ntasks, "%ld tasks created",
	      res.count[C_CREATED]);
	CHECK(res.count[C_BECOME_OK] > ntasks / 2, "%ld admitted",
	      res.count[C_BECOME_OK]);
	CHECK(res.count[C_OFF_OK] > 0 && res.count[C_ON_OK] > 0,
	      "no CPU went offline and online");
	CHECK(res.count[C_PART_MADE] > 0, "no partition was made");
	CHECK(res.count[C_MOVE_OK] > 0, "no task moved");
	CHECK(res.count[C_SELF_OK] + res.count[C_OTHER_OK] > 0,
	      "no parameter changed");
	/* Valid parameters: nothing but EBUSY may refuse them. */
	CHECK(!res.count[C_BECOME_ERR] && !res.count[C_SELF_ERR] &&
	      !res.count[C_OTHER_ERR], "setattr failed other than EBUSY");
	CHECK(!res.count[C_OFF_ERR] && !res.count[C_ON_ERR],
	      "hotplug failed other than EBUSY");
}

/*
 * Quiesced, every admitted worker still gets its jobs done, one repaying
 * a debt in the time that takes.
 */
static void no_task_starved(void)
{
	need_results();
	if (res.in_debt)
		tap_diag("%d workers in debt did a job only later, in time",
			 res.in_debt);
	CHECK(res.dl_live > 0, "no deadline task was alive at the end");
	CHECK(!res.starved, "%d deadline tasks did no job (first %d)",
	      res.starved, res.starved_pid[0]);
}

/*
 * After the last rebuild, the total is the live tasks' bandwidth plus
 * the fair servers', on every CPU (one root domain).
 */
static void accounting_matches_tasks(void)
{
	long long want;
	int cpu;

	need_results();
	want = res.tasks_bw + res.servers_bw;
	for (cpu = 0; cpu < res.ncpus; cpu++)
		CHECK(res.quiet[cpu] == want,
		      "CPU %d: total_bw %lld, the tasks hold %lld and the "
		      "servers %lld: %+lld", cpu, res.quiet[cpu], res.tasks_bw,
		      res.servers_bw, res.quiet[cpu] - want);
}

/*
 * A worker exiting at the quiesce is gone in bounded time, SIGKILL ends
 * every other one in bounded time, and nothing stays in D state.
 */
static void every_task_reaped(void)
{
	need_results();
	CHECK(!res.exits_left, "%d workers still exiting %ld ms after the quiesce",
	      res.exits_left, res.exit_ms);
	CHECK(!res.unreaped, "%d workers not reaped %ld ms after SIGKILL",
	      res.unreaped, res.reap_ms);
	CHECK(!res.stuck_d, "%d tasks in D state 2 s apart: %s", res.stuck_d,
	      res.stuck_comm);
}

/* Once the 0-lag times have passed, each CPU's total is what it was. */
static void accounting_returned(void)
{
	int cpu;

	need_results();
	for (cpu = 0; cpu < res.ncpus; cpu++)
		CHECK(res.after[cpu] == res.before[cpu],
		      "CPU %d: total_bw %lld, was %lld", cpu, res.after[cpu],
		      res.before[cpu]);
	if (res.zero_lag_ms >= 0)
		tap_diag("back %ld ms after the last task was reaped",
			 res.zero_lag_ms);
}

/* (Ours) every sample of every capped cgroup: held <= its cap. */
static void caps_held_at_every_sample(void)
{
	need_results();
	if (!res.caps)
		SKIP("no cpu.dl.max: deadline caps are the EDF-CBS class's");
	CHECK(res.cap_samples > 100, "%ld samples", res.cap_samples);
	CHECK(res.count[C_CAPMOVE_OK] > 0 && res.count[C_CAPMOVE_BUSY] > 0,
	      "moves into the caps: %ld ok, %ld EBUSY",
	      res.count[C_CAPMOVE_OK], res.count[C_CAPMOVE_BUSY]);
	CHECK(res.count[C_CAPW_OK] > 0, "no cap written");
	CHECK(res.count[C_UNPRIV] > 0, "no unprivileged worker");
	CHECK(!res.count[C_CAPMOVE_ERR] && !res.count[C_CAPW_ERR],
	      "cap moves or writes failed other than EBUSY (last: %s, %s)",
	      strerror(res.last_err[C_CAPMOVE_ERR]),
	      strerror(res.last_err[C_CAPW_ERR]));
	CHECK(!res.cap_exceeded, "%ld of %ld samples over a cap; first: %s",
	      res.cap_exceeded, res.cap_samples, res.cap_worst);
}

/* (Ours) once the workers are gone, the capped tree holds nothing. */
static void caps_back_at_the_end(void)
{
	need_results();
	if (!res.caps)
		SKIP("no cpu.dl.max: deadline caps are the EDF-CBS class's");
	CHECK(!res.caps_left, "the tree still holds %lld (bw + nr_tasks)",
	      res.caps_left);
	if (!res.caps_left)
		tap_diag("empty %ld ms after the totals came back",
			 res.caps_back_ms);
}

static void usage(void)
{
	fprintf(stderr, "usage: stress [-d SECONDS] [-n TASKS] [-s SEED]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct tap_test tests[] = {
		TAP_TEST(stress_ran),
		TAP_TEST(no_task_starved),
		TAP_TEST(accounting_matches_tasks),
		TAP_TEST(every_task_reaped),
		TAP_TEST(accounting_returned),
		TAP_TEST(caps_held_at_every_sample),
		TAP_TEST(caps_back_at_the_end),
		{ NULL, NULL }
	};
	const char *s = getenv("DLK_SEED");
	int c, w = -1, fd = -1;

	seed = s ? strtoull(s, NULL, 0) : (unsigned long long)time(NULL);
	while ((c = getopt(argc, argv, "d:n:s:w:f:")) != -1) {
		switch (c) {
		case 'd': duration_s = strtol(optarg, NULL, 0); break;
		case 'n': ntasks = (int)strtol(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'w': w = (int)strtol(optarg, NULL, 0); break;
		case 'f': fd = (int)strtol(optarg, NULL, 0); break;
		default: usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (w >= 0)
		return worker_main(w, fd);
	return tap_run(tests);
}
