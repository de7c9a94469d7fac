// SPDX-License-Identifier: GPL-2.0
/*
 * The deadline bandwidth caps of cgroup v2's cpu controller, read from
 * cgroupfs: where it is mounted (/proc/self/mounts), each cgroup's
 * cpu.dl.max ("max 100000" or "RUNTIME PERIOD", microseconds) and
 * cpu.dl.stat (nr_tasks, bw_ppm, bw, nr_refused).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg.h"

static char cg_root[256];

/* The cgroup2 mount point, found once; NULL if there is none. */
static const char *cg_mount(void)
{
	char dev[256], dir[256], type[64];
	FILE *f;

	if (cg_root[0])
		return cg_root;
	f = fopen("/proc/self/mounts", "r");
	if (!f)
		return NULL;
	while (fscanf(f, "%255s %255s %63s %*[^\n]", dev, dir, type) == 3) {
		if (!strcmp(type, "cgroup2")) {
			snprintf(cg_root, sizeof(cg_root), "%s", dir);
			break;
		}
	}
	fclose(f);
	return cg_root[0] ? cg_root : NULL;
}

int dlctl_cg_read(const char *path, struct dlctl_cg *cg)
{
	const char *root = cg_mount();
	char file[1024], tok[32], key[32];
	long long v;
	FILE *f;
	int ok;

	if (!root)
		return -1;
	memset(cg, 0, sizeof(*cg));
	snprintf(cg->path, sizeof(cg->path), "%s", *path ? path : "/");
	snprintf(file, sizeof(file), "%s%s/cpu.dl.max", root, path);
	f = fopen(file, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%31s %lld", tok, &cg->period_us) == 2;
	fclose(f);
	if (!ok || cg->period_us <= 0)
		return -1;
	cg->runtime_us = strcmp(tok, "max") ? atoll(tok) : -1;
	cg->cap = cg->runtime_us < 0 ? -1 :
		  (long long)(((unsigned long long)cg->runtime_us << 20) /
			      (unsigned long long)cg->period_us);
	cg->bw = -1;
	snprintf(file, sizeof(file), "%s%s/cpu.dl.stat", root, path);
	f = fopen(file, "r");
	if (!f)
		return 0;
	while (fscanf(f, "%31s %lld", key, &v) == 2) {
		if (!strcmp(key, "bw"))
			cg->bw = v;
		else if (!strcmp(key, "nr_tasks"))
			cg->nr_tasks = v;
		else if (!strcmp(key, "nr_refused"))
			cg->nr_refused = v;
	}
	fclose(f);
	return 0;
}

static int cg_walk(const char *root, const char *path,
		   void (*fn)(const struct dlctl_cg *, void *), void *arg)
{
	char dir[1024], sub[600];
	struct dlctl_cg cg;
	struct dirent *e;
	int n = 0, r;
	DIR *d;

	if (!dlctl_cg_read(path, &cg) && cg.cap >= 0) {
		fn(&cg, arg);
		n++;
	}
	snprintf(dir, sizeof(dir), "%s%s", root, path);
	d = opendir(dir);
	if (!d)
		return n;
	while ((e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path,
				     e->d_name) >= sizeof(sub))
			continue;
		r = cg_walk(root, sub, fn, arg);
		if (r > 0)
			n += r;
	}
	closedir(d);
	return n;
}

int dlctl_cg_each_capped(void (*fn)(const struct dlctl_cg *cg, void *arg),
			 void *arg)
{
	const char *root = cg_mount();
	DIR *d;
	struct dirent *e;
	char probe[1024];
	bool any = false;
	int n = 0;

	if (!root)
		return -1;
	/* A kernel without the caps has no cpu.dl.max in any child. */
	d = opendir(root);
	if (!d)
		return -1;
	while ((e = readdir(d)) && !any) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		snprintf(probe, sizeof(probe), "%s/%s/cpu.dl.max", root,
			 e->d_name);
		any = !access(probe, F_OK);
	}
	closedir(d);
	if (!any)
		return -1;
	d = opendir(root);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char sub[300];

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "/%s", e->d_name);
		n += cg_walk(root, sub, fn, arg);
	}
	closedir(d);
	return n;
}

int dlctl_cg_of_task(pid_t tid, char *buf, size_t len)
{
	char file[64], line[600];
	int found = -1;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)tid);
	f = fopen(file, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(buf, len, "%s", line + 3);
			found = 0;
		}
	}
	fclose(f);
	return found;
}
