// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <time.h>

#include "spin.h"

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

int64_t cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void spin_cpu(int64_t ns)
{
	int64_t end = cpu_ns() + ns;

	while (cpu_ns() < end)
		;
}

void spin_cpu_stalls(int64_t ns, struct stalls *st)
{
	int64_t c = cpu_ns(), end = c + ns;

	while (c < end) {
		int64_t next = cpu_ns();

		if (next - c >= STALL_NS) {
			st->total += next - c;
			if (next - c > st->longest)
				st->longest = next - c;
		}
		c = next;
	}
}

struct run spin_until_gap(int64_t limit)
{
	int64_t c0 = cpu_ns(), t0 = now_ns(), last = t0, c_last = c0;
	struct run r = { .start = t0 };

	for (;;) {
		int64_t t = now_ns(), c = cpu_ns();

		/*
		 * Wall time moved on much more than CPU time since the last
		 * look: the thread was not running in between.
		 */
		if ((t - last) - (c - c_last) >= GAP_NS) {
			r.used = c_last - c0;
			r.cpu_end = c_last;
			r.gap = (t - last) - (c - c_last);
			r.resumed = t;
			return r;
		}
		if (t - t0 >= limit) {
			r.used = c - c0;
			r.cpu_end = c;
			r.resumed = t;
			return r;
		}
		last = t;
		c_last = c;
	}
}

void sleep_until(int64_t t)
{
	struct timespec ts = { t / 1000000000, t % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}
