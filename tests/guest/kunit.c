// SPDX-License-Identifier: GPL-2.0
/*
 * kunit [-f GLOB] MODULE SUITE [PARAM=VALUE...]: loads
 * /lib/modules/dlk/MODULE.ko with those module parameters, whose KUnit
 * suite SUITE runs as it loads, and prints the suite's KTAP results from
 * /sys/kernel/debug/kunit/SUITE/results.  -f runs only the cases that
 * KUnit's filter GLOB ("suite.case") keeps.
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

int main(int argc, char **argv)
{
	char path[256], saved[64] = "", buf[4096], params[1024] = "";
	const char *glob = NULL;
	int fd, ret, err, i, failed = 0;
	FILE *f;

	if (argc > 2 && !strcmp(argv[1], "-f")) {
		glob = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: kunit [-f GLOB] MODULE SUITE "
			"[PARAM=VALUE...]\n");
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
	return failed;
}
