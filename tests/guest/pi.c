// SPDX-License-Identifier: GPL-2.0
/*
 * pi: priority inheritance and bandwidth reclaiming, on one vCPU under
 * -icount.
 *
 * A deadline task that blocks on a priority-inheritance mutex held by a
 * SCHED_OTHER task lends the holder its deadline: the holder runs, at
 * deadline priority and unthrottled, until it unlocks.  Without that, an
 * RT hog would starve the holder and the deadline task with it (priority
 * inversion).  GRUB (SCHED_FLAG_RECLAIM) lets a lone task use the
 * bandwidth nobody else reserved; without the flag it gets its runtime
 * and no more.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dl.h"
#include "spin.h"
#include "tap.h"

#define MS 1000000LL

struct shared {
	pthread_mutex_t lock;
	int64_t asked, got, holder_done;
};

static void need_one_cpu(void)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) != 1)
		SKIP("measured on one vCPU");
	tap_skip_on_debug_kernel();
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { t / 1000000000, t % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static struct shared *shared_lock(int protocol)
{
	struct shared *sh = shared_with_mutex(sizeof(*sh), protocol);

	REQUIRE(sh, "shared mutex: %s", strerror(errno));
	return sh;
}

/*
 * The holder (SCHED_OTHER) takes the lock, then has 30 ms of work to do
 * under it; from @start an RT hog spins; at @start + 50 ms a 5/100 ms
 * deadline task wants the lock.  Returns how long it waited.
 */
static int64_t inversion(int protocol)
{
	struct sched_param sp = { .sched_priority = 10 };
	struct shared *sh = shared_lock(protocol);
	int64_t start = now_ns() + 300 * MS;
	pid_t holder, hog, waiter;
	int fds[2];
	char c;

	REQUIRE(dl_sysctl_known_state() == 0, "sysctls: %s", strerror(errno));
	REQUIRE(pipe(fds) == 0, "pipe");
	holder = fork();
	REQUIRE(holder >= 0, "fork");
	if (holder == 0) {
		pthread_mutex_lock(&sh->lock);
		c = 1;
		if (write(fds[1], &c, 1) != 1)
			_exit(1);
		sleep_until(start);
		spin_cpu(30 * MS);
		sh->holder_done = now_ns();
		pthread_mutex_unlock(&sh->lock);
		_exit(0);
	}
	REQUIRE(read(fds[0], &c, 1) == 1, "holder did not lock");
	waiter = fork();
	REQUIRE(waiter >= 0, "fork");
	if (waiter == 0) {
		if (dl_become(5 * MS, 100 * MS, 100 * MS, 0))
			_exit(1);
		sleep_until(start + 50 * MS);
		sh->asked = now_ns();
		pthread_mutex_lock(&sh->lock);
		sh->got = now_ns();
		pthread_mutex_unlock(&sh->lock);
		_exit(0);
	}
	hog = fork();
	REQUIRE(hog >= 0, "fork");
	if (hog == 0) {
		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(1);
		sleep_until(start);
		while (now_ns() < start + 1500 * MS)
			;
		_exit(0);
	}
	waitpid(waiter, NULL, 0);
	waitpid(holder, NULL, 0);
	waitpid(hog, NULL, 0);
	tap_diag("%s: asked at +%.3f ms, got it at +%.3f ms (holder done +%.3f)",
		 protocol == PTHREAD_PRIO_INHERIT ? "PI mutex" : "plain mutex",
		 (sh->asked - start) / 1e6, (sh->got - start) / 1e6,
		 (sh->holder_done - start) / 1e6);
	return sh->got - sh->asked;
}

/*
 * With a PI mutex the holder inherits the deadline and finishes its
 * 30 ms (six times the waiter's runtime: it is not throttled) at once.
 */
static void pi_holder_runs_unthrottled(void)
{
	int64_t wait;

	need_one_cpu();
	wait = inversion(PTHREAD_PRIO_INHERIT);
	CHECK(wait > 0 && wait <= 40 * MS, "waited %lld ns for the lock",
	      (long long)wait);
}

/* The control: a plain mutex leaves the holder to the fair server. */
static void plain_mutex_inverts(void)
{
	int64_t wait;

	need_one_cpu();
	wait = inversion(PTHREAD_PRIO_NONE);
	CHECK(wait > 200 * MS, "waited only %lld ns without PI", (long long)wait);
}

/* A lone spinning task's CPU share over @len of wall time. */
static double share(uint64_t flags, int64_t len)
{
	int64_t t0, c0;

	need_one_cpu();
	REQUIRE(dl_sysctl_known_state() == 0, "sysctls: %s", strerror(errno));
	REQUIRE(dl_become(10 * MS, 100 * MS, 100 * MS, flags) == 0,
		"setattr: %s", strerror(errno));
	t0 = now_ns();
	c0 = cpu_ns();
	while (now_ns() - t0 < len)
		;
	return (double)(cpu_ns() - c0) / (double)(now_ns() - t0);
}

/* GRUB: with SCHED_FLAG_RECLAIM a lone 10/100 ms task uses the idle time. */
static void reclaim_uses_idle_bandwidth(void)
{
	double s = share(DL_FLAG_RECLAIM, 2000 * MS);

	tap_diag("share with SCHED_FLAG_RECLAIM: %.3f", s);
	CHECK(s >= 0.80 && s <= 0.96, "share %.3f, want close to the 0.95 limit",
	      s);
}

/* Without the flag it gets its 10% and no more. */
static void no_reclaim_without_flag(void)
{
	double s = share(0, 2000 * MS);

	tap_diag("share without SCHED_FLAG_RECLAIM: %.3f", s);
	CHECK(s >= 0.095 && s <= 0.105, "share %.3f, want 0.100", s);
}

/* What the two tasks of the test below tell their parent. */
struct sleeper_reclaim {
	long blocks;		/* the sleeper's naps */
	double share;		/* the spinner's, while the sleeper sleeps long */
};

/*
 * The sleeper, 3/10 ms: 30 periods of 1 ms of work, a nap of 100 us and
 * 1 ms more, then asleep for 1.5 s.  Each nap blocks it before its 0-lag
 * time, and the next block comes before that time but with a later one.
 */
static void sleeper(struct sleeper_reclaim *sr, int64_t start)
{
	struct timespec nap = { 0, 100 * 1000 };
	int i;

	if (dl_become(3 * MS, 10 * MS, 10 * MS, 0))
		_exit(1);
	for (i = 0; i < 30; i++) {
		sleep_until(start + i * 10 * MS);
		spin_cpu(MS);
		nanosleep(&nap, NULL);
		spin_cpu(MS);
		sr->blocks++;
	}
	sleep_until(start + 1800 * MS);
	_exit(0);
}

/*
 * GRUB hands a sleeping task's bandwidth to the reclaiming ones from its
 * 0-lag time on, however it blocked and woke before: its last block must
 * still leave the active bandwidth when that time comes.  (Ours leaves
 * the inactive timer queued across a wakeup; it must then follow the
 * 0-lag time of the last block.)  Counted active, the sleeper would leave
 * the spinner 0.3 / (0.3 + 0.3) of the limit.  The spinner's period is
 * long so that the sleeper's earlier deadlines run it at once.
 */
static void reclaim_after_sleeper_blocked_often(void)
{
	struct sleeper_reclaim *sr;
	int64_t start, t0, c0;
	pid_t sl, sp;
	int st;

	need_one_cpu();
	REQUIRE(dl_sysctl_known_state() == 0, "sysctls: %s", strerror(errno));
	sr = mmap(NULL, sizeof(*sr), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	REQUIRE(sr != MAP_FAILED, "mmap: %s", strerror(errno));
	sr->share = -1;
	start = now_ns() + 50 * MS;
	sl = fork();
	REQUIRE(sl >= 0, "fork: %s", strerror(errno));
	if (sl == 0)
		sleeper(sr, start);
	sp = fork();
	REQUIRE(sp >= 0, "fork: %s", strerror(errno));
	if (sp == 0) {
		if (dl_become(30 * MS, 100 * MS, 100 * MS, DL_FLAG_RECLAIM))
			_exit(1);
		while (now_ns() < start + 400 * MS)
			;
		t0 = now_ns();
		c0 = cpu_ns();
		while (now_ns() < start + 1700 * MS)
			;
		sr->share = (double)(cpu_ns() - c0) / (double)(now_ns() - t0);
		_exit(0);
	}
	waitpid(sp, &st, 0);
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "the spinner not admitted");
	waitpid(sl, &st, 0);
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "the sleeper not admitted");
	tap_diag("%ld naps, then the spinner's share %.3f", sr->blocks,
		 sr->share);
	CHECK(sr->blocks == 30, "%ld naps of 30", sr->blocks);
	CHECK(sr->share >= 0.80, "share %.3f, want close to the 0.95 limit",
	      sr->share);
	munmap(sr, sizeof(*sr));
}

int main(void)
{
	static const struct tap_test tests[] = {
		TAP_TEST(pi_holder_runs_unthrottled),
		TAP_TEST(plain_mutex_inverts),
		TAP_TEST(reclaim_uses_idle_bandwidth),
		TAP_TEST(no_reclaim_without_flag),
		TAP_TEST(reclaim_after_sleeper_blocked_often),
		{ NULL, NULL }
	};

	return tap_run(tests);
}
