// SPDX-License-Identifier: GPL-2.0
/*
 * dlcg: deadline bandwidth caps in cgroup v2's cpu controller (ours
 * only; the classic implementation has no cpu.dl.max, and each test
 * skips there).
 *
 * cpu.dl.max "$RUNTIME $PERIOD" (microseconds) caps the deadline
 * bandwidth the tasks of a cgroup and its descendants hold together:
 * (RUNTIME << 20) / PERIOD in units of 2^-20 of a CPU, as a task's
 * bandwidth is (runtime << 20) / period.  A task fits while the sum is at
 * most the cap; the children's caps may not add up to more than the
 * parent's; a cap may not go below what is held.  cpu.dl.stat shows
 * nr_tasks, bw_ppm (millionths of a CPU held) and nr_refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dl.h"
#include "file.h"
#include "spin.h"
#include "tap.h"

#define MS NSEC_PER_MSEC
#define US NSEC_PER_USEC
#define CG "/sys/fs/cgroup"
#define P100 (100 * MS)

/* (runtime << 20) / period: a task's bandwidth, or a cap's (us or ns). */
static long long bw_of(long long runtime, long long period)
{
	return (long long)(((unsigned long long)runtime << 20) / period);
}

/* The smallest runtime (ns) whose bandwidth over @period is @bw. */
static long long runtime_for(long long bw, long long period)
{
	return (long long)(((__int128)bw * period + (1 << 20) - 1) >> 20);
}

static void cg_path(char *buf, size_t n, const char *grp, const char *file)
{
	snprintf(buf, n, CG "/%s/%s", grp, file);
}


/*
 * cgroup2 mounted, with the cpu controller for the children of the root;
 * a skip where there is no cap to test.
 */
static void cg_up(void)
{
	char ctl[256] = "";
	FILE *f;

	mkdir(CG, 0755);
	if (access(CG "/cgroup.controllers", F_OK)) {
		REQUIRE(mount("none", CG, "cgroup2", 0, NULL) == 0,
			"mount cgroup2: %s", strerror(errno));
	}
	f = fopen(CG "/cgroup.controllers", "r");
	if (f) {
		if (!fgets(ctl, sizeof(ctl), f))
			ctl[0] = 0;
		fclose(f);
	}
	if (!strstr(ctl, "cpu ") && !strstr(ctl, "cpu\n"))
		SKIP("no cpu controller: deadline caps are ours (the classic implementation)");
	REQUIRE(file_put(CG "/cgroup.subtree_control", "+cpu") == 0,
		"enabling the cpu controller: %s", strerror(errno));
}

static void cg_rm(const char *grp)
{
	char p[256];

	snprintf(p, sizeof(p), CG "/%s", grp);
	rmdir(p);
}

static void cg_mk(const char *grp, int cpu_below)
{
	char p[256];

	snprintf(p, sizeof(p), CG "/%s", grp);
	REQUIRE(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", p,
		strerror(errno));
	if (cpu_below) {
		cg_path(p, sizeof(p), grp, "cgroup.subtree_control");
		REQUIRE(file_put(p, "+cpu") == 0, "+cpu in %s: %s", grp,
			strerror(errno));
	}
	cg_path(p, sizeof(p), grp, "cpu.dl.max");
	if (access(p, F_OK)) {
		cg_rm(grp);
		SKIP("no cpu.dl.max: deadline caps are ours (the classic implementation)");
	}
}

/* Write @val to @grp's cpu.dl.max: 0 or the errno. */
static int cap_put(const char *grp, const char *val)
{
	char p[256];

	cg_path(p, sizeof(p), grp, "cpu.dl.max");
	return file_put(p, "%s", val) ? errno : 0;
}

/* A child of the root, @grp, capped at 10 ms every 100 ms. */
static void capped(const char *grp)
{
	cg_up();
	cg_mk(grp, 0);
	CHECK(cap_put(grp, "10000 100000") == 0, "capping %s: %s", grp,
	      strerror(errno));
}

/* A field of @grp's cpu.dl.stat, or -1. */
static long long stat_of(const char *grp, const char *field)
{
	char p[256], line[128];
	long long v = -1;
	size_t n = strlen(field);
	FILE *f;

	cg_path(p, sizeof(p), grp, "cpu.dl.stat");
	f = fopen(p, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ' ')
			v = atoll(line + n + 1);
	fclose(f);
	return v;
}

/*
 * Wait up to @ms for @grp to hold nothing: the bandwidth of tasks just
 * killed comes back at their 0-lag times.
 */
static void held_back(const char *grp, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * MS;

	while (stat_of(grp, "bw_ppm") > 0 && now_ns() < end)
		sleep_until(now_ns() + 10 * MS);
	CHECK(stat_of(grp, "bw_ppm") == 0, "%s still holds %lld ppm", grp,
	      stat_of(grp, "bw_ppm"));
}

/* Move @pid into @grp (NULL: the root): 0 or the errno. */
static int cg_move(pid_t pid, const char *grp)
{
	char p[256];

	if (grp)
		cg_path(p, sizeof(p), grp, "cgroup.procs");
	else
		snprintf(p, sizeof(p), CG "/cgroup.procs");
	return file_put(p, "%d", pid) ? errno : 0;
}

/* A sleeping child in @grp (NULL: the root). */
static pid_t sleeper_in(const char *grp)
{
	pid_t pid = sleeper_spawn();

	REQUIRE(cg_move(pid, grp) == 0, "moving %d to %s: %s", pid,
		grp ?: "/", strerror(errno));
	return pid;
}

/* sched_setattr() of @pid to runtime @q of period (= deadline) @p. */
static int dl_set(pid_t pid, long long q, long long p)
{
	struct dl_attr a = dl_attr_make(q, p, p, 0);

	return dl_setattr(pid, &a, 0) ? errno : 0;
}

/*
 * A cap of 10 ms / 100 ms admits a task of exactly that, refuses one
 * unit of bandwidth more, and two halves fit as one whole.
 */
static void cap_admits_up_to_the_line(void)
{
	long long cap = bw_of(10000, 100000);
	pid_t s, t;

	cg_up();
	cg_mk("l", 0);
	CHECK(cap_put("l", "10000 100000") == 0, "writing the cap");
	s = sleeper_in("l");
	t = sleeper_in("l");
	CHECK(dl_set(s, 10 * MS, P100) == 0, "a task at the cap: %s",
	      strerror(errno));
	CHECK(stat_of("l", "bw_ppm") == cap * 1000000 / (1 << 20),
	      "bw_ppm %lld, want %lld", stat_of("l", "bw_ppm"),
	      cap * 1000000 / (1 << 20));
	CHECK(stat_of("l", "nr_tasks") == 1, "nr_tasks %lld",
	      stat_of("l", "nr_tasks"));
	CHECK(dl_set(s, runtime_for(cap + 1, P100), P100) == EBUSY,
	      "one unit over the cap was not refused");
	CHECK(dl_set(t, 1 * MS, P100) == EBUSY,
	      "a second task beside a full cap was not refused");
	CHECK(stat_of("l", "nr_refused") == 2, "nr_refused %lld",
	      stat_of("l", "nr_refused"));
	CHECK(dl_set(s, 5 * MS, P100) == 0, "lowering was refused");
	CHECK(dl_set(t, 5 * MS, P100) == 0, "the other half was refused");
	CHECK(stat_of("l", "nr_tasks") == 2, "nr_tasks %lld",
	      stat_of("l", "nr_tasks"));
	sleeper_end(s);
	sleeper_end(t);
	cg_rm("l");
}

/*
 * Children's caps add up to at most the parent's; an uncapped child's
 * own children count against the nearest capped ancestor, and so do its
 * tasks' reservations.
 */
static void nested_caps_within_the_parent(void)
{
	pid_t s;

	cg_up();
	cg_mk("n", 1);
	CHECK(cap_put("n", "20000 100000") == 0, "the parent's cap");
	cg_mk("n/a", 0);
	cg_mk("n/b", 0);
	cg_mk("n/c", 0);
	cg_mk("n/d", 1);
	cg_mk("n/d/e", 0);
	cg_mk("n/d/f", 0);
	CHECK(cap_put("n/a", "10000 100000") == 0, "a: half the parent");
	CHECK(cap_put("n/b", "10000 100000") == 0, "b: the other half");
	CHECK(cap_put("n/c", "1000 100000") == EBUSY,
	      "c: the children's caps above the parent's were taken");
	CHECK(cap_put("n", "19000 100000") == EBUSY,
	      "the parent's cap below its children's was taken");
	CHECK(cap_put("n/d/e", "1000 100000") == EBUSY,
	      "a grandchild under an uncapped child was not held to the parent");
	CHECK(cap_put("n/b", "5000 100000") == 0, "b lowered");
	CHECK(cap_put("n/d/e", "1000 100000") == 0, "e, in b's room");
	s = sleeper_in("n/d/e");
	CHECK(dl_set(s, 2 * MS, P100) == EBUSY, "a task above e's cap");
	CHECK(stat_of("n/d/e", "nr_refused") == 1, "e refused %lld",
	      stat_of("n/d/e", "nr_refused"));
	CHECK(dl_set(s, 1 * MS, P100) == 0, "a task at e's cap: %s",
	      strerror(errno));
	sleeper_end(s);
	held_back("n", 1000);
	s = sleeper_in("n/d/f");
	CHECK(dl_set(s, runtime_for(bw_of(20000, 100000) + 1, P100), P100) ==
	      EBUSY, "a task in f above the parent's cap");
	CHECK(stat_of("n", "nr_refused") == 1, "the parent refused %lld",
	      stat_of("n", "nr_refused"));
	CHECK(dl_set(s, 20 * MS, P100) == 0, "a task at the parent's cap: %s",
	      strerror(errno));
	CHECK(stat_of("n", "nr_tasks") == 1 && stat_of("n/d", "nr_tasks") == 1,
	      "nr_tasks: parent %lld, d %lld", stat_of("n", "nr_tasks"),
	      stat_of("n/d", "nr_tasks"));
	sleeper_end(s);
	cg_rm("n/d/f");
	cg_rm("n/d/e");
	cg_rm("n/d");
	cg_rm("n/c");
	cg_rm("n/b");
	cg_rm("n/a");
	cg_rm("n");
}

/* A cap may not go below what the group holds; "max" lifts it. */
static void cap_below_held_refused(void)
{
	pid_t s;

	cg_up();
	cg_mk("h", 0);
	s = sleeper_in("h");
	CHECK(dl_set(s, 5 * MS, P100) == 0, "uncapped: %s", strerror(errno));
	CHECK(cap_put("h", "4000 100000") == EBUSY,
	      "a cap below what is held was taken");
	CHECK(cap_put("h", "5000 100000") == 0, "a cap at what is held");
	CHECK(cap_put("h", "max") == 0, "max");
	CHECK(dl_set(s, 50 * MS, P100) == 0, "after max: %s", strerror(errno));
	CHECK(cap_put("h", "junk 100000") == EINVAL &&
	      cap_put("h", "1000 10") == EINVAL, "bad writes not EINVAL");
	sleeper_end(s);
	cg_rm("h");
}

/* Moving a reservation in is checked against the cap; out, never. */
static void moves_in_checked_out_free(void)
{
	pid_t s, t;

	capped("m");
	s = sleeper_in("m");
	t = sleeper_in(NULL);
	CHECK(dl_set(s, 8 * MS, P100) == 0, "in the group: %s",
	      strerror(errno));
	CHECK(dl_set(t, 5 * MS, P100) == 0, "outside: %s", strerror(errno));
	CHECK(cg_move(t, "m") == EBUSY, "a move over the cap was taken");
	CHECK(stat_of("m", "nr_refused") == 1, "nr_refused %lld",
	      stat_of("m", "nr_refused"));
	CHECK(cg_move(s, NULL) == 0, "moving out: %s", strerror(errno));
	CHECK(stat_of("m", "bw_ppm") == 0 && stat_of("m", "nr_tasks") == 0,
	      "after the move out: bw_ppm %lld, nr_tasks %lld",
	      stat_of("m", "bw_ppm"), stat_of("m", "nr_tasks"));
	CHECK(cg_move(t, "m") == 0, "a move that fits: %s", strerror(errno));
	CHECK(stat_of("m", "bw_ppm") == bw_of(5, 100) * 1000000 / (1 << 20),
	      "bw_ppm %lld after the move in", stat_of("m", "bw_ppm"));
	sleeper_end(s);
	sleeper_end(t);
	cg_rm("m");
}

/*
 * A task that used half its budget and exits gives the group its
 * bandwidth back at its 0-lag time, as the root domain gets it: the
 * deadline less the budget left at its bandwidth, start + 1 s - 50 ms *
 * 10 for 50 ms spun of 100 ms every second, so about 450 ms after the
 * exit (later if the host stalled the spin, never before 500 ms after
 * the start).
 */
static void held_until_zero_lag_after_exit(void)
{
	long long bw = bw_of(100, 1000), t0, ppm = bw * 1000000 / (1 << 20);
	int status, i;
	pid_t pid;

	capped("z");
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (cg_move(getpid(), "z") ||
		    dl_become(100 * MS, 1000 * MS, 1000 * MS, 0))
			_exit(1);
		spin_cpu(50 * MS);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	t0 = now_ns();
	REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"the child could not run: %#x", status);
	/* Its last switch, which gives the bandwidth, may follow the reap. */
	sleep_until(t0 + 20 * MS);
	CHECK(stat_of("z", "bw_ppm") == ppm && stat_of("z", "nr_tasks") == 0,
	      "at the exit: bw_ppm %lld (want %lld), nr_tasks %lld",
	      stat_of("z", "bw_ppm"), ppm, stat_of("z", "nr_tasks"));
	sleep_until(t0 + 300 * MS);
	CHECK(stat_of("z", "bw_ppm") == ppm, "given back early: %lld",
	      stat_of("z", "bw_ppm"));
	for (i = 0; i < 60 && stat_of("z", "bw_ppm"); i++)
		sleep_until(now_ns() + 20 * MS);
	CHECK(stat_of("z", "bw_ppm") == 0 && now_ns() - t0 < 1500LL * (long long)MS,
	      "bw_ppm %lld %lld ms after the exit", stat_of("z", "bw_ppm"),
	      (now_ns() - t0) / MS);
	tap_diag("back %lld ms after the exit", (now_ns() - t0) / MS);
	cg_rm("z");
}

/* A child forked with reset-on-fork holds nothing. */
static void reset_on_fork_child_charges_nothing(void)
{
	int status;
	pid_t pid;

	capped("f");
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		pid_t c;

		if (cg_move(getpid(), "f") ||
		    dl_become(5 * MS, P100, P100, DL_FLAG_RESET_ON_FORK))
			_exit(1);
		c = fork();
		if (c == 0) {
			_exit(stat_of("f", "nr_tasks") == 1 &&
			      dl_set(0, 6 * MS, P100) == EBUSY ? 0 : 3);
		}
		if (c < 0 || waitpid(c, &status, 0) != c)
			_exit(2);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 4);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "status %#x (1: setup, 2: fork, 3: the child held bandwidth or got 6 ms beside 5 in 10)",
	      status);
	sleep_until(now_ns() + 200 * MS);
	CHECK(stat_of("f", "nr_tasks") == 0, "nr_tasks %lld after both left",
	      stat_of("f", "nr_tasks"));
	cg_rm("f");
}

#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"

/*
 * A cap is in CPUs, not tied to any: CPU 1 offline and back leaves what
 * the group holds as it was, and the cap still refuses.
 */
static void caps_hold_across_hotplug(void)
{
	long long held;
	pid_t s, t;
	int r;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP("one CPU: nothing to take offline");
	capped("hp");
	s = sleeper_in("hp");
	t = sleeper_in("hp");
	CHECK(dl_set(s, 8 * MS, P100) == 0, "8 ms: %s", strerror(errno));
	held = stat_of("hp", "bw");
	CHECK(held == bw_of(8 * MS, P100), "bw %lld", held);
	REQUIRE(file_put(CPU1_ONLINE, "0") == 0, "CPU 1 offline: %s",
		strerror(errno));
	/* A sleeper last on CPU 1 sits on its runqueue until it wakes. */
	sleeper_nudge(s);
	sleeper_nudge(t);
	CHECK(stat_of("hp", "bw") == held && stat_of("hp", "nr_tasks") == 1,
	      "CPU 1 offline: bw %lld, nr_tasks %lld", stat_of("hp", "bw"),
	      stat_of("hp", "nr_tasks"));
	r = dl_set(t, 3 * MS, P100);
	CHECK(r == EBUSY, "over the cap, CPU 1 offline: %s",
	      r ? strerror(r) : "admitted");
	CHECK(file_put(CPU1_ONLINE, "1") == 0, "CPU 1 online: %s",
	      strerror(errno));
	CHECK(stat_of("hp", "bw") == held, "CPU 1 back: bw %lld",
	      stat_of("hp", "bw"));
	CHECK(dl_set(t, 2 * MS, P100) == 0, "at the cap: %s", strerror(errno));
	sleeper_end(s);
	sleeper_end(t);
	cg_rm("hp");
}

struct pi_shared {
	pthread_mutex_t m;
	volatile int locked;
	volatile int done;
};

/*
 * Priority inheritance across caps: a fair holder in a group already at
 * its cap, boosted by a deadline task of another group, runs on the
 * donor's reservation (a privileged one: replenished in place), charged
 * nowhere: neither group's books move while the holder shows the
 * deadline priority (prio -1), and the donor gets the lock as soon as
 * the holder's 100 ms of work are done.
 */
static void pi_holder_in_a_full_group(void)
{
	struct pi_shared *sh;
	long long full, prio;
	char path[64];
	int boosted = 0;
	int64_t t0, waited;
	pid_t a, holder, donor;
	int st;

	cg_up();
	cg_mk("pa", 0);
	cg_mk("pb", 0);
	CHECK(cap_put("pa", "10000 100000") == 0 &&
	      cap_put("pb", "10000 100000") == 0, "the caps");
	a = sleeper_in("pa");
	CHECK(dl_set(a, 10 * MS, P100) == 0, "pa full: %s", strerror(errno));
	full = stat_of("pa", "bw");
	sh = shared_with_mutex(sizeof(*sh), PTHREAD_PRIO_INHERIT);
	REQUIRE(sh, "shared mutex: %s", strerror(errno));
	holder = fork();
	REQUIRE(holder >= 0, "fork: %s", strerror(errno));
	if (holder == 0) {
		if (cg_move(getpid(), "pa"))
			_exit(1);
		pthread_mutex_lock(&sh->m);
		sh->locked = 1;
		spin_cpu(100 * MS);
		pthread_mutex_unlock(&sh->m);
		_exit(0);
	}
	snprintf(path, sizeof(path), "/proc/%d/sched", holder);
	while (!sh->locked)
		sched_yield();
	donor = fork();
	REQUIRE(donor >= 0, "fork: %s", strerror(errno));
	if (donor == 0) {
		if (cg_move(getpid(), "pb") || dl_become(5 * MS, P100, P100, 0))
			_exit(1);
		pthread_mutex_lock(&sh->m);
		sh->done = 1;
		pthread_mutex_unlock(&sh->m);
		_exit(0);
	}
	t0 = now_ns();
	while (!sh->done && now_ns() - t0 < 5000 * (int64_t)MS) {
		if (!proc_field(path, "prio", &prio) && prio == -1)
			boosted = 1;
		CHECK(stat_of("pa", "bw") == full && stat_of("pb", "bw") <=
		      bw_of(5 * MS, P100), "during the boost: pa %lld, pb %lld",
		      stat_of("pa", "bw"), stat_of("pb", "bw"));
		sleep_until(now_ns() + 2 * MS);
	}
	waited = now_ns() - t0;
	waitpid(holder, &st, 0);
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "holder %#x", st);
	waitpid(donor, &st, 0);
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "donor %#x", st);
	CHECK(boosted, "the holder was never seen boosted");
	CHECK(sh->done && waited < 1000 * (int64_t)MS,
	      "the donor had the lock %lld ms on", (long long)(waited / MS));
	tap_diag("the donor had the lock %lld ms on", (long long)(waited / MS));
	sleeper_end(a);
	cg_rm("pa");
	cg_rm("pb");
}

#define NOBODY 65534

/*
 * Give @grp's directory and delegation files to NOBODY, as
 * cgroup-v2.rst's "Delegation" describes: the directory, cgroup.procs,
 * cgroup.threads and cgroup.subtree_control.
 */
static void cg_delegate(const char *grp)
{
	static const char *const files[] = {
		"", "/cgroup.procs", "/cgroup.threads", "/cgroup.subtree_control",
	};
	char p[256];
	unsigned int i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), CG "/%s%s", grp, files[i]);
		REQUIRE(chown(p, NOBODY, NOBODY) == 0, "chown %s: %s", p,
			strerror(errno));
	}
}

/*
 * Run @fn in a child that root puts in @grp, then becomes NOBODY; the
 * child's exit status is fn's (0: as wanted), 100 and up: the setup.
 */
static int as_nobody_in(const char *grp, int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (cg_move(getpid(), grp))
			_exit(100);
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(101);
		_exit(fn());
	}
	REQUIRE(waitpid(pid, &status, 0) == pid, "waitpid: %s",
		strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
}

static int try_dl(long long q, long long p, unsigned long long flags)
{
	struct dl_attr a = dl_attr_make(q, p, p, flags);

	return dl_setattr(0, &a, 0) ? errno : 0;
}

/* sysctl 0: EPERM as ever; 1: admitted inside the capped slice. */
static int nobody_gets_5ms(void)
{
	return try_dl(5 * MS, P100, 0);
}

static int nobody_rules(void)
{
	pid_t root_task = (pid_t)atoi(getenv("DLCG_ROOT_TASK") ?: "0");
	struct dl_attr a = dl_attr_make(1 * MS, P100, P100, 0);
	pid_t other;
	int r;

	if (try_dl(500 * US, 900 * US, 0) != EPERM)
		return 1;	/* a period under the floor */
	if (try_dl(1 * MS, P100, DL_FLAG_RECLAIM) != EPERM)
		return 2;	/* reclaim */
	if (!root_task || dl_setattr(root_task, &a, 0) == 0 || errno != EPERM)
		return 3;	/* another user's task */
	other = fork();
	if (other == 0) {
		pause();
		_exit(0);
	}
	r = other > 0 && dl_setattr(other, &a, 0) && errno == EPERM;
	if (other > 0) {
		kill(other, SIGKILL);
		waitpid(other, NULL, 0);
	}
	if (!r)
		return 8;	/* another process of its own */
	if (try_dl(10 * MS, P100, 0))
		return 4;	/* at the cap */
	if (try_dl(runtime_for(bw_of(10000, 100000) + 1, P100), P100, 0) !=
	    EBUSY)
		return 5;	/* over it */
	if (fork() >= 0)
		return 6;	/* a deadline task's fork */
	if (try_dl(5 * MS, P100, DL_FLAG_RESET_ON_FORK))
		return 7;
	return 0;
}

struct pi_holder {
	pthread_mutex_t *m;
	volatile int locked;
	int64_t spun_at;
};

/*
 * Holds the lock while it spins 30 ms of its own CPU time, once boosted
 * (its prio in sched is -1): before, on another CPU, it would spin
 * unboosted while the donor is on its way to the lock.
 */
static void *pi_holder_fn(void *arg)
{
	struct pi_holder *h = arg;
	int64_t end = now_ns() + 5000 * (int64_t)MS;
	long long prio = 0;

	pthread_mutex_lock(h->m);
	h->locked = 1;
	while (now_ns() < end &&
	       (proc_field("/proc/thread-self/sched", "prio", &prio) ||
		prio != -1))
		;
	spin_cpu(30 * MS);
	h->spun_at = now_ns();
	pthread_mutex_unlock(h->m);
	return NULL;
}

/*
 * A thread with 2 ms every 100 ms waits on a PI mutex that a fair thread
 * of its process holds for 30 ms of CPU: boosted on an unprivileged
 * donor, the holder is throttled on the donor's budget, so the wait is
 * some 15 periods (1.5 s), not 30 ms.  Exit status: 0 as wanted, 9 too
 * short (the holder ran unthrottled), 10 too long, 11 the setup.
 */
static int nobody_pi_bounded(void)
{
	pthread_mutexattr_t ma;
	pthread_mutex_t m;
	struct pi_holder h = { &m, 0, 0 };
	pthread_t th;
	int64_t t0, waited;

	if (pthread_mutexattr_init(&ma) ||
	    pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT) ||
	    pthread_mutex_init(&m, &ma))
		return 11;
	if (pthread_create(&th, NULL, pi_holder_fn, &h))
		return 11;
	while (!h.locked)
		sched_yield();
	if (try_dl(2 * MS, P100, 0))
		return 11;
	t0 = now_ns();
	pthread_mutex_lock(&m);
	waited = now_ns() - t0;
	pthread_mutex_unlock(&m);
	pthread_join(th, NULL);
	printf("# the holder's 30 ms took %lld ms under the boost\n",
	       (long long)(waited / MS));
	fflush(stdout);
	if (waited < 700 * (int64_t)MS)
		return 9;
	return waited > 10000 * (int64_t)MS ? 10 : 0;
}

/* In the slice, admitted; a move out of it refused, within it allowed. */
static int nobody_stays_in_slice(void)
{
	if (try_dl(5 * MS, P100, 0))
		return 1;
	if (cg_move(getpid(), "d/other") != EPERM)
		return 2;
	if (cg_move(getpid(), "d/slice/inner2"))
		return 3;
	return 0;
}

/*
 * A cap of the user's own making is no slice: in its delegated w, it
 * leaves w for w/y (no process may stay in a cgroup that passes a
 * controller down), gives w's children the cpu controller, caps w/x and
 * moves there.
 */
static int nobody_own_cap(void)
{
	if (mkdir(CG "/w/x", 0755) || mkdir(CG "/w/y", 0755) ||
	    cg_move(getpid(), "w/y") ||
	    file_put(CG "/w/cgroup.subtree_control", "+cpu") ||
	    cap_put("w/x", "10000 100000") || cg_move(getpid(), "w/x"))
		return 1;
	return try_dl(5 * MS, P100, 0) == EPERM ? 0 : 2;
}

/* Unprivileged SCHED_DEADLINE, off by default and inside a slice only. */
static void unprivileged_only_in_a_capped_slice(void)
{
	char buf[16];
	pid_t s;
	int r;

	cg_up();
	cg_mk("u", 0);
	cg_mk("v", 0);
	REQUIRE(sysctl_get("sched_dl_unprivileged") == 0,
		"kernel.sched_dl_unprivileged is %ld by default",
		sysctl_get("sched_dl_unprivileged"));
	CHECK(cap_put("u", "10000 100000") == 0, "the slice's cap");
	cg_delegate("u");
	r = as_nobody_in("u", nobody_gets_5ms);
	CHECK(r == EPERM, "sysctl 0: nobody got %d, want EPERM", r);
	REQUIRE(sysctl_set("sched_dl_unprivileged", 1) == 0,
		"setting kernel.sched_dl_unprivileged: %s", strerror(errno));
	r = as_nobody_in("u", nobody_gets_5ms);
	CHECK(r == 0, "sysctl 1, in the slice: nobody got %d (%s)", r,
	      r < 100 ? strerror(r) : "setup");
	held_back("u", 1000);
	r = as_nobody_in("v", nobody_gets_5ms);
	CHECK(r == EPERM, "sysctl 1, no cap on the path: nobody got %d", r);
	s = sleeper_in("u");
	snprintf(buf, sizeof(buf), "%d", s);
	setenv("DLCG_ROOT_TASK", buf, 1);
	r = as_nobody_in("u", nobody_rules);
	CHECK(r == 0, "rule %d broken (1 period floor, 2 reclaim, 3 another user's task, 4 at the cap, 5 over it, 6 fork, 7 reset-on-fork, 8 another process of its own)",
	      r);
	CHECK(stat_of("u", "nr_refused") == 1, "the slice refused %lld",
	      stat_of("u", "nr_refused"));
	sleeper_end(s);
	held_back("u", 1000);
	r = as_nobody_in("u", nobody_pi_bounded);
	CHECK(r == 0, "PI: %d (9: the holder ran its 30 ms unthrottled, 10: over 10 s)",
	      r);
	sysctl_set("sched_dl_unprivileged", 0);
	cg_rm("u");
	cg_rm("v");
}

/*
 * A user's own cap makes no slice, and a task admitted without privilege
 * does not leave its slice.
 */
static void unprivileged_slice_is_the_administrators(void)
{
	int r;

	cg_up();
	cg_mk("w", 0);
	cg_delegate("w");
	cg_mk("d", 1);
	cg_mk("d/slice", 1);
	cg_mk("d/slice/inner", 0);
	cg_mk("d/slice/inner2", 0);
	cg_mk("d/other", 0);
	CHECK(cap_put("d/slice", "10000 100000") == 0, "the slice's cap");
	cg_delegate("d");
	cg_delegate("d/slice");
	cg_delegate("d/slice/inner");
	cg_delegate("d/slice/inner2");
	cg_delegate("d/other");
	REQUIRE(sysctl_set("sched_dl_unprivileged", 1) == 0,
		"setting kernel.sched_dl_unprivileged: %s", strerror(errno));
	r = as_nobody_in("w", nobody_own_cap);
	CHECK(r == 0, "own cap: %d (1: setup, 2: admitted under its own cap)",
	      r);
	r = as_nobody_in("d/slice/inner", nobody_stays_in_slice);
	CHECK(r == 0, "moves: %d (1: not admitted, 2: moved out of the slice, 3: no move within it)",
	      r);
	sysctl_set("sched_dl_unprivileged", 0);
	cg_rm("w/x");
	cg_rm("w/y");
	cg_rm("w");
	cg_rm("d/slice/inner");
	cg_rm("d/slice/inner2");
	cg_rm("d/slice");
	cg_rm("d/other");
	cg_rm("d");
}

int main(void)
{
	static const struct tap_test tests[] = {
		TAP_TEST(cap_admits_up_to_the_line),
		TAP_TEST(nested_caps_within_the_parent),
		TAP_TEST(cap_below_held_refused),
		TAP_TEST(moves_in_checked_out_free),
		TAP_TEST(held_until_zero_lag_after_exit),
		TAP_TEST(reset_on_fork_child_charges_nothing),
		TAP_TEST(caps_hold_across_hotplug),
		TAP_TEST(pi_holder_in_a_full_group),
		TAP_TEST(unprivileged_only_in_a_capped_slice),
		TAP_TEST(unprivileged_slice_is_the_administrators),
		{ NULL, NULL }
	};

	int was_mounted = !access(CG "/cgroup.controllers", F_OK), r;

	r = tap_run(tests);
	/* Left as found for the suites after this one. */
	file_put(CG "/cgroup.subtree_control", "-cpu");
	if (!was_mounted)
		umount(CG);
	return r;
}
