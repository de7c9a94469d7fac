// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dl.h"

int dl_become(uint64_t runtime, uint64_t deadline, uint64_t period,
	      uint64_t flags)
{
	struct dl_attr a = dl_attr_make(runtime, deadline, period, flags);

	return dl_setattr(0, &a, 0) ? -1 : 0;
}

static void sleeper_woken(int sig)
{
	(void)sig;
}

pid_t sleeper_spawn(void)
{
	pid_t pid;

	/* Set before fork: a nudge can come as soon as the child exists. */
	signal(SIGUSR1, sleeper_woken);
	pid = fork();

	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

void sleeper_nudge(pid_t pid)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	kill(pid, SIGUSR1);
	nanosleep(&ts, NULL);
}

void sleeper_end(pid_t pid)
{
	/*
	 * Killed as it is: a sleeping deadline task switched to another
	 * policy keeps its bandwidth allocated in the classic implementation
	 * (see admission.c), which would starve the tests that follow.
	 */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* One fair server's reservation, (runtime << 20) / period, or -1. */
static long long fair_server_bw(int cpu)
{
	unsigned long long runtime, period;
	char path[96];
	FILE *f;
	int n;

	snprintf(path, sizeof(path),
		 "/sys/kernel/debug/sched/fair_server/cpu%d/runtime", cpu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fscanf(f, "%llu", &runtime);
	fclose(f);
	snprintf(path, sizeof(path),
		 "/sys/kernel/debug/sched/fair_server/cpu%d/period", cpu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n += fscanf(f, "%llu", &period);
	fclose(f);
	if (n != 2 || !period)
		return -1;
	return (long long)((runtime << 20) / period);
}

long long dl_fair_servers_bw(void)
{
	long long sum = 0, bw;
	int cpu, n = (int)sysconf(_SC_NPROCESSORS_ONLN);

	for (cpu = 0; cpu < n; cpu++) {
		bw = fair_server_bw(cpu);
		if (bw < 0)
			return -1;
		sum += bw;
	}
	return sum;
}

int dl_debug_backoff(int *ms, int max_ms)
{
	struct timespec ts = { *ms / 1000, (*ms % 1000) * 1000000L };
	int slept = *ms;

	nanosleep(&ts, NULL);
	*ms = *ms * 2 > max_ms ? max_ms : *ms * 2;
	return slept;
}

/* Waits up to @ms for @cpu's total to be @a or @b; 0 once it is. */
static int total_bw_wait_either(int cpu, long long a, long long b, int ms)
{
	long long bw, total = -1;
	int waited = 0, step = 10;

	for (;;) {
		if (dl_bw_of_cpu(cpu, &bw, &total) == 0 &&
		    (total == a || total == b))
			return 0;
		if (waited >= ms)
			return -1;
		waited += dl_debug_backoff(&step, 100);
	}
}

int dl_total_bw_wait(int cpu, long long want, int ms)
{
	return total_bw_wait_either(cpu, want, want, ms);
}

int dl_total_bw_wait_idle(int cpu, int ms)
{
	return total_bw_wait_either(cpu, 0, dl_fair_servers_bw(), ms);
}

/*
 * After a rebuild, a departed task's bandwidth that the classic
 * implementation still returns at its 0-lag time makes total_bw negative
 * when that time comes, and every admission then fails.  Seen shortly
 * after a write, it is taken as a refusal (EBUSY), so the write is
 * retried: the rebuild it does puts the total right.
 */
static bool total_bw_underflowed(void)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	long long bw, total;

	nanosleep(&ts, NULL);
	if (dl_bw_of_cpu(0, &bw, &total) || total >= 0)
		return false;
	errno = EBUSY;
	return true;
}

/*
 * Whether there is one root domain and it holds no deadline bandwidth
 * (its total is 0, or the fair servers'): no task that left has a 0-lag
 * time to come.
 */
static bool nothing_held(void)
{
	long long bw[DL_MAX_CPUS], total[DL_MAX_CPUS];
	long long srv = dl_fair_servers_bw();
	int cpu, n = (int)sysconf(_SC_NPROCESSORS_ONLN);

	if (n > DL_MAX_CPUS || dl_bw_of_cpus(n, bw, total) ||
	    total[0] == DL_BW_NONE)
		return false;
	for (cpu = 1; cpu < n; cpu++)
		if (total[cpu] != total[0])
			return false;
	return total[0] == 0 || total[0] == srv;
}

static void density_test_off(void)
{
	sysctl_set("sched_dl_admission", 0);
}

int dl_density_test_on(void)
{
	static bool registered;

	if (sysctl_get("sched_dl_admission") < 0) {
		errno = ENOENT;
		return -1;
	}
	if (!registered && !atexit(density_test_off))
		registered = true;
	return sysctl_set("sched_dl_admission", 1);
}

int dl_sysctl_known_state(void)
{
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	int i;

	/*
	 * The tasks of the test before may give their bandwidth back at
	 * their 0-lag times, 100 ms after they left at most: a rebuild
	 * before that makes the classic total underflow when they do.
	 */
	if (!nothing_held())
		nanosleep(&ts, NULL);
	/* Admission by utilization (the density test is the EDF-CBS class's). */
	if (sysctl_get("sched_dl_admission") > 0)
		sysctl_set("sched_dl_admission", 0);
	/*
	 * If a write is refused all the same (EBUSY: bandwidth a departed
	 * task still holds, or a total_bw that underflowed), the rebuild that
	 * the refused write does too puts the accounting right: retry.
	 */
	for (i = 0; i < 20; i++) {
		if (!sysctl_set("sched_rt_period_us", 1000000) &&
		    !sysctl_set("sched_rt_runtime_us", 950000) &&
		    !total_bw_underflowed())
			return 0;
		if (errno != EBUSY)
			return -1;
		ts.tv_nsec = 100 * 1000 * 1000;
		nanosleep(&ts, NULL);
	}
	return -1;
}

void *shared_with_mutex(size_t size, int protocol)
{
	void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_mutexattr_t ma;
	int err;

	if (mem == MAP_FAILED)
		return NULL;
	memset(mem, 0, size);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setprotocol(&ma, protocol);
	err = pthread_mutex_init(mem, &ma);
	pthread_mutexattr_destroy(&ma);
	if (err) {
		munmap(mem, size);
		errno = err;
		return NULL;
	}
	return mem;
}
