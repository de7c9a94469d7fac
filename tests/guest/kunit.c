// SPDX-License-Identifier: GPL-2.0
/*
 * kunit [-f GLOB] [-w FILE=VALUE] [-u] MODULE SUITE [PARAM=VALUE...]:
 * loads /lib/modules/dlk/MODULE.ko with those module parameters, whose
 * KUnit suite SUITE runs as it loads, and prints the suite's KTAP results
 * from /sys/kernel/debug/kunit/SUITE/results.  -f runs only the cases
 * that KUnit's filter GLOB ("suite.case") keeps.  -w writes VALUE to FILE
 * (a sysctl) while the module loads and puts the old value back after;
 * a FILE the kernel does not have is left alone (the module's cases say
 * what that means).  -u unloads the module after, so that another suite
 * can load it again with other parameters.
 *
 * The modules are built against each kernel out of tree, so that the
 * pristine tree runs the same tests as ours.  While one loads, the
 * console shows only warnings and worse: the results come here, where
 * the harness reads them as a suite, and must not also be read from the
 * console as the kernel's built-in KUnit.  Oopses, WARNs and lockdep or
 * KASAN reports still reach the console, and fail the run there.
 *
 * Exits 1 if a case failed, as the guest's other suites do.  A case whose
 * check of a known defect fired ("DLK-DEFECT" on a line before it, see
 * tests/modules/dlk_defect.h) passes if nothing else failed: the harness
 * counts it as that known defect (harness/ktapsum.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "file.h"

#define PRINTK "/proc/sys/kernel/printk"
#define FILTER "/sys/module/kunit/parameters/filter_glob"

static int bail(const char *what, const char *arg)
{
	printf("TAP version 13\n1..1\nnot ok 1 %s\n# %s: %s\n", what, arg,
	       strerror(errno));
	return 1;
}

/* Whether @line is a case's result that counts as a failure. */
static int case_failed(const char *line)
{
	const char *s = line;

	while (*s == ' ')
		s++;
	/* cases are indented; the suite's own line is not */
	return s != line && !strncmp(s, "not ok ", 7);
}

/* The sysctl of -w: its path, the value to write, the value it had. */
struct knob {
	char path[200];
	const char *value;
	char old[64];
	int set;
};

/* -w FILE=VALUE: writes VALUE if FILE exists, keeping its value. */
static int knob_set(struct knob *k, const char *arg)
{
	const char *eq = strchr(arg, '=');
	FILE *f;

	if (!eq || (size_t)(eq - arg) >= sizeof(k->path)) {
		errno = EINVAL;
		return bail("-w FILE=VALUE", arg);
	}
	memcpy(k->path, arg, eq - arg);
	k->path[eq - arg] = '\0';
	k->value = eq + 1;
	f = fopen(k->path, "r");
	if (!f)
		return 0;
	if (!fgets(k->old, sizeof(k->old), f))
		k->old[0] = '\0';
	fclose(f);
	k->old[strcspn(k->old, "\n")] = '\0';
	if (file_put(k->path, "%s", k->value) < 0)
		return bail("-w written", k->path);
	k->set = 1;
	return 0;
}

static void knob_restore(struct knob *k)
{
	if (k->set && k->old[0])
		file_put(k->path, "%s", k->old);
	k->set = 0;
}

static int run(int argc, char **argv, const char *glob, int unload);

int main(int argc, char **argv)
{
	struct knob knob = { .value = NULL };
	const char *glob = NULL;
	int unload = 0, ret;

	for (;;) {
		if (argc > 2 && !strcmp(argv[1], "-f")) {
			glob = argv[2];
		} else if (argc > 2 && !strcmp(argv[1], "-w")) {
			/* One file: a second would not be put back. */
			if (knob.value) {
				errno = EINVAL;
				return bail("one -w", argv[2]);
			}
			if (knob_set(&knob, argv[2]))
				return 1;
		} else if (argc > 1 && !strcmp(argv[1], "-u")) {
			unload = 1;
			argc--;
			argv++;
			continue;
		} else {
			break;
		}
		argc -= 2;
		argv += 2;
	}
	ret = run(argc, argv, glob, unload);
	knob_restore(&knob);
	return ret;
}

static int run(int argc, char **argv, const char *glob, int unload)
{
	char path[256], saved[64] = "", buf[4096], params[1024] = "";
	int fd, ret, err, i, failed = 0;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: kunit [-f GLOB] [-w FILE=VALUE] [-u] "
			"MODULE SUITE [PARAM=VALUE...]\n");
		return 2;
	}
	for (i = 3; i < argc; i++) {
		size_t len = strlen(params);

		snprintf(params + len, sizeof(params) - len, "%s%s",
			 i > 3 ? " " : "", argv[i]);
	}
	snprintf(path, sizeof(path), "/lib/modules/dlk/%s.ko", argv[1]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bail("module present", path);

	f = fopen(PRINTK, "r");
	if (f) {
		if (!fgets(saved, sizeof(saved), f))
			saved[0] = '\0';
		fclose(f);
	}
	/* console_loglevel 5: KERN_WARNING (4) and worse are still shown */
	if (file_put(PRINTK, "5") < 0)
		return bail("console log level set", PRINTK);
	if (glob && file_put(FILTER, "%s", glob) < 0)
		return bail("KUnit's filter set", FILTER);
	ret = syscall(SYS_finit_module, fd, params, 0);
	err = errno;
	if (saved[0])
		file_put(PRINTK, "%s", saved);
	/* KUnit's default: an empty glob would keep nothing. */
	if (glob)
		file_put(FILTER, "*.*");
	close(fd);
	if (ret < 0) {
		errno = err;
		return bail("module loads", path);
	}

	snprintf(path, sizeof(path), "/sys/kernel/debug/kunit/%s/results",
		 argv[2]);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return bail("results readable", path);
	close(fd);
	f = fopen(path, "r");
	if (!f)
		return bail("results readable", path);
	while (fgets(buf, sizeof(buf), f)) {
		fputs(buf, stdout);
		failed |= case_failed(buf);
	}
	fclose(f);
	fflush(stdout);
	if (unload && syscall(SYS_delete_module, argv[1], O_NONBLOCK) < 0) {
		printf("# unloading %s: %s\n", argv[1], strerror(errno));
		failed = 1;
	}
	return failed;
}
