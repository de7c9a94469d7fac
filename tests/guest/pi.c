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

int main(void)
{
	static const struct tap_test tests[] = {
		TAP_TEST(pi_holder_runs_unthrottled),
		TAP_TEST(plain_mutex_inverts),
		TAP_TEST(reclaim_uses_idle_bandwidth),
		TAP_TEST(no_reclaim_without_flag),
		{ NULL, NULL }
	};

	return tap_run(tests);
}
