// SPDX-License-Identifier: GPL-2.0
/*
 * compleak [-r ROUNDS] [-s SEED]: the component framework stress
 * (tests/modules/component_stress.c) in rounds, with a kmemleak scan
 * after each: round i loads the module for one single-threaded sequence
 * (seed SEED + 1000 i) and one run of two threads, unloads it, waits
 * out kmemleak's minimum age and scans twice.  Any object reported is a
 * failure of that round, shown with its seed.  The devres state is
 * checked inside the module after every step.
 *
 * The first test is the control: tests/modules/dlk_leak.ko leaks one
 * object on purpose, and the same scan must report it.  Needs a debug
 * kernel (kmemleak); skipped elsewhere.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "file.h"
#include "tap.h"

#define KMEMLEAK "/sys/kernel/debug/kmemleak"
/* kmemleak reports objects at least 5 s old (MSECS_MIN_AGE). */
#define MIN_AGE_US (5500 * 1000)

static int rounds = 6;
static unsigned long seed = 20261205;

static void need_kmemleak(void)
{
	if (access(KMEMLEAK, W_OK))
		SKIP("no %s: kmemleak is in the debug kernels", KMEMLEAK);
}

/*
 * Waits out the minimum age and scans twice (an object is reported once
 * two scans found no reference to it); the report's size, and its first
 * @n bytes in @buf.
 */
static long scan(char *buf, size_t n)
{
	long len = 0;
	ssize_t r;
	int fd;

	usleep(MIN_AGE_US);
	REQUIRE(file_put(KMEMLEAK, "scan") == 0 &&
		file_put(KMEMLEAK, "scan") == 0, "scan: %s", strerror(errno));
	fd = open(KMEMLEAK, O_RDONLY);
	REQUIRE(fd >= 0, "%s: %s", KMEMLEAK, strerror(errno));
	buf[0] = '\0';
	while ((r = read(fd, buf + len, n - 1 - len)) > 0 &&
	       (size_t)(len += r) < n - 1)
		;
	buf[len] = '\0';
	close(fd);
	return len;
}

/* Forgets what was reported, so that the next scan shows only new leaks. */
static void forget(void)
{
	CHECK(file_put(KMEMLEAK, "clear") == 0, "clear: %s", strerror(errno));
}

/* Runs "kunit MODULE SUITE ARGS..." with its output in @log; its status. */
static int run_kunit(char *log, size_t n, char *const argv[])
{
	int p[2], st = 0;
	size_t len = 0;
	ssize_t r;
	pid_t pid;

	REQUIRE(pipe(p) == 0, "pipe: %s", strerror(errno));
	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execv("/tests/bin/kunit", argv);
		_exit(127);
	}
	close(p[1]);
	while ((r = read(p[0], log + len, n - 1 - len)) > 0 &&
	       (len += (size_t)r) < n - 1)
		;
	log[len] = '\0';
	close(p[0]);
	waitpid(pid, &st, 0);
	return st;
}

static void unload(const char *name)
{
	if (syscall(SYS_delete_module, name, O_NONBLOCK) && errno != ENOENT)
		CHECK(0, "unloading %s: %s", name, strerror(errno));
}

/* Prints up to @lines lines of @s as diagnostics. */
static void show(const char *what, const char *s, int lines)
{
	const char *e;

	while (*s && lines-- > 0) {
		e = strchr(s, '\n');
		tap_diag("%s: %.*s", what, (int)(e ? e - s : (long)strlen(s)), s);
		s = e ? e + 1 : s + strlen(s);
	}
}

/* The objects a kmemleak report in @buf lists. */
static int objects(const char *buf)
{
	int n = 0;

	while ((buf = strstr(buf, "unreferenced object "))) {
		n++;
		buf++;
	}
	return n;
}

/*
 * The control: a deliberate leak is reported by the same scan.  The
 * scan's own line on the console ("1 new suspected memory leaks", at
 * KERN_INFO) would fail the boot, so the console shows only warnings
 * and worse while it runs; what it found is checked here instead, and it
 * must be the canary alone, so that the quiet scan hides no real leak.
 * Earlier suites' leaks are reported by the loud scan before it.
 */
static void kmemleak_reports_a_leak(void)
{
	static char buf[16384], printk[64];
	int fd, n;

	need_kmemleak();
	scan(buf, sizeof(buf));
	forget();
	fd = open("/proc/sys/kernel/printk", O_RDONLY);
	REQUIRE(fd >= 0, "/proc/sys/kernel/printk: %s", strerror(errno));
	n = (int)read(fd, printk, sizeof(printk) - 1);
	close(fd);
	REQUIRE(n > 0, "/proc/sys/kernel/printk: %s", strerror(errno));
	printk[n] = '\0';
	fd = open("/lib/modules/dlk/dlk_leak.ko", O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0, "dlk_leak.ko: %s", strerror(errno));
	REQUIRE(syscall(SYS_finit_module, fd, "", 0) == 0,
		"loading dlk_leak.ko: %s", strerror(errno));
	close(fd);
	REQUIRE(file_put("/proc/sys/kernel/printk", "5") == 0,
		"console loglevel: %s", strerror(errno));
	scan(buf, sizeof(buf));
	forget();
	CHECK(file_put("/proc/sys/kernel/printk", "%s", printk) == 0,
	      "console loglevel back to %s: %s", printk, strerror(errno));
	unload("dlk_leak");
	CHECK(strstr(buf, "dlk-leak-canary"), "kmemleak did not report the "
	      "object dlk_leak.ko leaked");
	CHECK(objects(buf) == 1, "kmemleak reports %d objects, not only the "
	      "one dlk_leak.ko leaked", objects(buf));
	if (!strstr(buf, "dlk-leak-canary") || objects(buf) != 1)
		show("kmemleak", buf, 40);
}

/*
 * Whether a sequence or the two threads failed.  The module's last case
 * is left to the compstress suite: it counts a known defect of the
 * classic implementation over the whole run, and fails (marked) only
 * when the run was long enough to meet it.
 */
static int sequence_failed(const char *log)
{
	const char *s = log;

	while ((s = strstr(s, "not ok "))) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);

		if (memmem(s, len, " seq ", 5) || memmem(s, len, "two_threads", 11))
			return 1;
		s += len;
	}
	return 0;
}

/* Each round of the stress leaks nothing. */
static void stress_rounds_leak_nothing(void)
{
	static char buf[16384], log[65536];
	char seedp[64], *argv[] = { "kunit", "component_stress",
				    "component_stress", seedp,
				    "sequences=1", "threads_sequences=1", NULL };
	int i, st, ran;
	long n;

	need_kmemleak();
	unload("component_stress");
	scan(buf, sizeof(buf));
	forget();
	for (i = 0; i < rounds; i++) {
		unsigned long s = seed + 1000UL * (unsigned long)i;

		snprintf(seedp, sizeof(seedp), "seed=%lu", s);
		st = run_kunit(log, sizeof(log), argv);
		unload("component_stress");
		ran = WIFEXITED(st) && WEXITSTATUS(st) <= 1 &&
		      strstr(log, "ok 1 seq 0") && strstr(log, "two_threads");
		CHECK(ran && !sequence_failed(log),
		      "round %d (seed %lu): the stress failed, status %#x", i,
		      s, st);
		if (!ran || sequence_failed(log))
			show("kunit", log, 40);
		n = scan(buf, sizeof(buf));
		CHECK(n == 0, "round %d (seed %lu): kmemleak reports %ld bytes",
		      i, s, n);
		if (n) {
			show("kmemleak", buf, 40);
			forget();
		}
	}
	tap_diag("%d rounds from seed %lu", rounds, seed);
}

int main(int argc, char **argv)
{
	static const struct tap_test tests[] = {
		TAP_TEST(kmemleak_reports_a_leak),
		TAP_TEST(stress_rounds_leak_nothing),
		{ NULL, NULL }
	};
	int c;

	while ((c = getopt(argc, argv, "r:s:")) != -1) {
		if (c == 'r')
			rounds = atoi(optarg);
		else if (c == 's')
			seed = strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	return tap_run(tests);
}
