// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dl.h"

long dl_setattr(pid_t pid, const void *attr, unsigned int flags)
{
	return syscall(SYS_sched_setattr, pid, attr, flags);
}

long dl_getattr(pid_t pid, void *attr, unsigned int size, unsigned int flags)
{
	return syscall(SYS_sched_getattr, pid, attr, size, flags);
}

struct dl_attr dl_attr_make(uint64_t runtime, uint64_t deadline,
			    uint64_t period, uint64_t flags)
{
	struct dl_attr a = {
		.size = DL_ATTR_SIZE_VER1,
		.sched_policy = SCHED_DEADLINE,
		.sched_flags = flags,
		.sched_runtime = runtime,
		.sched_deadline = deadline,
		.sched_period = period,
	};

	return a;
}

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

static FILE *sysctl_open(const char *name, const char *mode)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	return fopen(path, mode);
}

long sysctl_get(const char *name)
{
	FILE *f = sysctl_open(name, "r");
	long v;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int sysctl_set(const char *name, long value)
{
	FILE *f = sysctl_open(name, "w");
	int r;

	if (!f)
		return -1;
	/* The error of a refused write comes at the flush. */
	r = fprintf(f, "%ld\n", value) < 0;
	r |= fclose(f) != 0;
	return r ? -1 : 0;
}

FILE *dl_debug_open(int *saved)
{
	struct sched_param rt = {
		.sched_priority = sched_get_priority_max(SCHED_FIFO),
	};
	int pol = sched_getscheduler(0), base = pol & ~SCHED_RESET_ON_FORK;
	FILE *f;

	*saved = -1;
	if (base == SCHED_OTHER || base == SCHED_BATCH || base == SCHED_IDLE) {
		if (!sched_setscheduler(0, SCHED_FIFO, &rt))
			*saved = pol;
	}
	f = fopen("/sys/kernel/debug/sched/debug", "r");
	if (!f)
		dl_debug_close(NULL, *saved);
	return f;
}

void dl_debug_close(FILE *f, int saved)
{
	struct sched_param none = { 0 };
	int err = errno;

	if (f)
		fclose(f);
	if (saved >= 0)
		sched_setscheduler(0, saved, &none);
	errno = err;
}

int dl_bw_of_cpus_pool(int n, long long *bw, long long *total)
{
	FILE *f = fopen("/sys/kernel/debug/sched/deadline_pool", "r");
	long long b, t;
	char line[256];
	int cpu, found = 0;

	for (cpu = 0; cpu < n; cpu++)
		bw[cpu] = total[cpu] = DL_BW_NONE;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "cpu%d this_bw %*u running_bw %*u rd_bw %lld rd_total_bw %lld",
			   &cpu, &b, &t) != 3)
			continue;
		found = 1;
		if (cpu >= 0 && cpu < n) {
			bw[cpu] = b;
			total[cpu] = t;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

int dl_bw_of_cpus(int n, long long *bw, long long *total)
{
	if (!dl_bw_of_cpus_pool(n, bw, total))
		return 0;
	return dl_bw_of_cpus_debug(n, bw, total);
}

int dl_bw_of_cpus_debug(int n, long long *bw, long long *total)
{
	char line[256];
	int cpu = -1, i, saved;
	FILE *f;

	for (i = 0; i < n; i++)
		bw[i] = total[i] = DL_BW_NONE;
	f = dl_debug_open(&saved);
	if (!f)
		return -1;
	/* The dl_rq[N] sections come in CPU order: stop after the last. */
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (sscanf(line, "dl_rq[%d]:", &cpu) == 1) {
			if (cpu >= n)
				break;
			continue;
		}
		if (cpu < 0 || !colon)
			continue;
		if (strstr(line, ".dl_bw->bw "))
			sscanf(colon + 1, "%lld", &bw[cpu]);
		else if (strstr(line, ".dl_bw->total_bw "))
			sscanf(colon + 1, "%lld", &total[cpu]);
	}
	dl_debug_close(f, saved);
	return 0;
}

int dl_bw_of_cpu(int cpu, long long *bw, long long *total_bw)
{
	long long b[DL_MAX_CPUS], t[DL_MAX_CPUS];

	if (cpu < 0 || cpu >= DL_MAX_CPUS || dl_bw_of_cpus(cpu + 1, b, t) ||
	    b[cpu] == DL_BW_NONE || t[cpu] == DL_BW_NONE)
		return -1;
	*bw = b[cpu];
	*total_bw = t[cpu];
	return 0;
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
