// SPDX-License-Identifier: GPL-2.0
/*
 * Root domains for dlctl.  Admission control sums bandwidth per root
 * domain, but the kernel shows neither the domains nor their spans.  They
 * follow from the cpuset hierarchy, as generate_sched_domains() in
 * kernel/cgroup/cpuset.c derives them: one domain of all housekeeping CPUs
 * unless cpusets split them (v2 partitions, v1 cpusets with load
 * balancing off above them); CPUs left outside every domain (isolated
 * partitions, isolcpus=) all share the default root domain.  The
 * bandwidth comes from the sched debug file, which prints each CPU's root
 * domain's dl_bw; CPUs of one domain showing different totals there mean
 * the spans found here are wrong, and the user is told so.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dlabi.h"
#include "dlbw.h"
#include "rd.h"

#define SYS_CPU "/sys/devices/system/cpu"

/* The first line of a file without its newline; 0, or -1 and errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return 0;
}

/* "0-3,5" to a set; 0, or -1 and errno EINVAL. */
static int cpulist_parse(const char *s, cpu_set_t *set)
{
	const char *p = s;

	CPU_ZERO(set);
	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			goto invalid;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p)
				goto invalid;
		}
		if (a < 0 || b < a || b >= CPU_SETSIZE)
			goto invalid;
		for (; a <= b; a++)
			CPU_SET(a, set);
		p = end;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			goto invalid;
	}
	return 0;
invalid:
	errno = EINVAL;
	return -1;
}

const char *dlctl_cpulist(const cpu_set_t *set, char *buf, size_t len)
{
	size_t used = 0;
	int i = 0, j;

	buf[0] = '\0';
	while (i < CPU_SETSIZE && used < len) {
		if (!CPU_ISSET(i, set)) {
			i++;
			continue;
		}
		for (j = i; j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, set); j++)
			;
		used += snprintf(buf + used, len - used, "%s%d", used ? "," : "",
				 i);
		if (j > i && used < len)
			used += snprintf(buf + used, len - used, "-%d", j);
		i = j + 1;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

static int read_cpus(const char *path, cpu_set_t *set)
{
	char line[1024];

	if (read_line(path, line, sizeof(line)))
		return -1;
	return cpulist_parse(line, set);
}

static void how_add(struct dlctl_rds *rds, const char *text)
{
	size_t used = strlen(rds->how);

	snprintf(rds->how + used, sizeof(rds->how) - used, "%s%s",
		 used ? "; " : "", text);
}

static void rd_remove(struct dlctl_rds *rds, int i)
{
	memmove(&rds->rd[i], &rds->rd[i + 1],
		(rds->n - i - 1) * sizeof(rds->rd[0]));
	rds->n--;
}

/*
 * Adds a domain.  One that overlaps others takes them in, as v1 merges
 * overlapping load-balanced cpusets into one sched domain; the domains
 * found so far are disjoint, so one pass finds all it overlaps.
 */
static void rd_add(struct dlctl_rds *rds, const cpu_set_t *cpus,
		   const char *why)
{
	cpu_set_t set = *cpus, both;
	struct dlctl_rd *rd;
	bool merged = false;
	int i;

	if (!CPU_COUNT(&set))
		return;
	for (i = rds->n - 1; i >= 0; i--) {
		CPU_AND(&both, &rds->rd[i].cpus, &set);
		if (!CPU_COUNT(&both))
			continue;
		CPU_OR(&set, &set, &rds->rd[i].cpus);
		rd_remove(rds, i);
		merged = true;
	}
	if (rds->n == DLCTL_MAX_RD)
		return;
	rd = &rds->rd[rds->n++];
	rd->cpus = set;
	snprintf(rd->why, sizeof(rd->why), "%s%s", why,
		 merged ? ", merged with the cpusets it overlaps" : "");
}

/* Each subdirectory of @dir, @fn called with its path. */
static void walk_children(const char *dir, void *arg,
			  void (*fn)(const char *path, void *arg))
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) <
		    (int)sizeof(path))
			fn(path, arg);
	}
	closedir(d);
}

struct walk {
	struct dlctl_rds *rds;
	const cpu_set_t *hk;	/* housekeeping CPUs: those with domains */
	const char *prefix;	/* "cpuset." or "" (v1 noprefix) */
};

static int cg_cpus(const struct walk *w, const char *dir, const char *file,
		   cpu_set_t *set)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s%s", dir, w->prefix, file);
	return read_cpus(path, set);
}

/* A cpuset's CPUs that can be in a sched domain. */
static int cg_domain_cpus(const struct walk *w, const char *dir,
			  const char *file, cpu_set_t *set)
{
	if (cg_cpus(w, dir, file, set))
		return -1;
	CPU_AND(set, set, w->hk);
	return 0;
}

static bool cg_flag(const struct walk *w, const char *dir, const char *file)
{
	char path[PATH_MAX + 64], line[16];

	snprintf(path, sizeof(path), "%s/%s%s", dir, w->prefix, file);
	return !read_line(path, line, sizeof(line)) && line[0] == '1';
}

/* v2: every valid, non-isolated partition root is a root domain. */
static void v2_visit(const char *dir, void *arg)
{
	struct walk *w = arg;
	char path[PATH_MAX + 32], state[64], why[160];
	cpu_set_t eff;

	snprintf(path, sizeof(path), "%s/cpuset.cpus.partition", dir);
	if (!read_line(path, state, sizeof(state)) &&
	    !strcmp(state, "root") &&
	    !cg_domain_cpus(w, dir, "cpus.effective", &eff)) {
		snprintf(why, sizeof(why), "cgroup v2 partition %s", dir);
		rd_add(w->rds, &eff, why);
	}
	walk_children(dir, w, v2_visit);
}

static void v2_domains(struct dlctl_rds *rds, const char *root,
		       const cpu_set_t *hk)
{
	struct walk w = { rds, hk, "cpuset." };
	char why[160];
	cpu_set_t top;

	snprintf(why, sizeof(why), "the root cgroup's cpuset.cpus.effective (%s)",
		 root);
	if (!cg_domain_cpus(&w, root, "cpus.effective", &top))
		rd_add(rds, &top, why);
	walk_children(root, &w, v2_visit);
	snprintf(why, sizeof(why),
		 "cgroup v2 at %s: its root and each partition root", root);
	how_add(rds, why);
}

/*
 * v1: a cpuset with CPUs that does not balance load over some of the
 * housekeeping ones is looked through; the first load-balanced one met
 * on each path down is a sched domain, and overlapping ones merge.
 */
static void v1_visit(const char *dir, void *arg)
{
	struct walk *w = arg;
	bool lb = cg_flag(w, dir, "sched_load_balance");
	cpu_set_t cpus, hk_cpus, eff;
	char why[160];

	if (cg_cpus(w, dir, "cpus", &cpus))
		return;
	CPU_AND(&hk_cpus, &cpus, w->hk);
	if (CPU_COUNT(&cpus) && !(lb && CPU_COUNT(&hk_cpus))) {
		walk_children(dir, w, v1_visit);
		return;
	}
	if (lb && !cg_domain_cpus(w, dir, "effective_cpus", &eff)) {
		snprintf(why, sizeof(why), "cgroup v1 cpuset %s", dir);
		rd_add(w->rds, &eff, why);
	}
}

static void v1_domains(struct dlctl_rds *rds, const char *root,
		       bool noprefix, const cpu_set_t *hk)
{
	struct walk w = { rds, hk, noprefix ? "" : "cpuset." };
	char why[160];

	if (cg_flag(&w, root, "sched_load_balance")) {
		rd_add(rds, hk, "all online CPUs: the top cpuset balances load");
		snprintf(why, sizeof(why), "cgroup v1 cpusets at %s", root);
	} else {
		walk_children(root, &w, v1_visit);
		snprintf(why, sizeof(why),
			 "cgroup v1 cpusets at %s: the top-most load-balanced cpusets",
			 root);
	}
	how_add(rds, why);
}

static bool has_option(const char *opts, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = opts; (p = strstr(p, name)); p += n)
		if ((p == opts || p[-1] == ',') && (!p[n] || p[n] == ','))
			return true;
	return false;
}

/* The v1 cpuset mount and the cgroup2 mount, "" when there is none. */
static void find_mounts(char *v1, char *v2, size_t len, bool *noprefix)
{
	char dev[256], dir[PATH_MAX], type[64], opts[512];
	FILE *f = fopen("/proc/self/mounts", "r");

	v1[0] = '\0';
	v2[0] = '\0';
	*noprefix = false;
	if (!f)
		return;
	while (fscanf(f, "%255s %4095s %63s %511s %*[^\n]", dev, dir, type,
		      opts) == 4) {
		if (!strcmp(type, "cgroup2") && !v2[0])
			snprintf(v2, len, "%s", dir);
		if (!strcmp(type, "cgroup") && !v1[0] &&
		    has_option(opts, "cpuset")) {
			snprintf(v1, len, "%s", dir);
			*noprefix = has_option(opts, "noprefix");
		}
	}
	fclose(f);
}

static long long capacity_of(int cpu)
{
	char path[96], line[32];

	snprintf(path, sizeof(path), SYS_CPU "/cpu%d/cpu_capacity", cpu);
	if (read_line(path, line, sizeof(line)) || !line[0])
		return 1024;
	return atoll(line);
}

/*
 * The bandwidth of @rd from the sched debug file, never from the
 * sched_rt sysctls: in 6.12 reading those rebuilds the root domains,
 * which loses the fair servers' share and, with a departed task's
 * bandwidth still held, makes the allocated total underflow.
 */
static void rd_bandwidth(struct dlctl_rds *rds, struct dlctl_rd *rd)
{
	static long long bws[DL_MAX_CPUS], totals[DL_MAX_CPUS];
	int cpu, n = 0;
	bool read;

	for (cpu = 0; cpu < CPU_SETSIZE && cpu < DL_MAX_CPUS; cpu++)
		if (CPU_ISSET(cpu, &rd->cpus))
			n = cpu + 1;
	/* One read of the file for the whole domain (see dl_debug_open()). */
	read = n && !dl_bw_of_cpus(n, bws, totals);
	for (cpu = 0; cpu < n; cpu++) {
		long long bw = bws[cpu], total = totals[cpu];

		if (!CPU_ISSET(cpu, &rd->cpus))
			continue;
		rd->ncpus++;
		rd->cap += capacity_of(cpu);
		if (!read || bw == DL_BW_NONE || total == DL_BW_NONE)
			continue;
		if (!rd->bw_known) {
			rd->bw = bw;
			rd->total_bw = total;
			rd->bw_known = true;
		} else if (bw != rd->bw || total != rd->total_bw) {
			char text[96];

			snprintf(text, sizeof(text),
				 "but debugfs shows CPU %d in another root domain",
				 cpu);
			how_add(rds, text);
		}
	}
}

int dlctl_rd_scan(struct dlctl_rds *rds)
{
	char v1[PATH_MAX], v2[PATH_MAX], path[PATH_MAX + 32];
	cpu_set_t hk, isolated, rest;
	bool noprefix;
	int i;

	memset(rds, 0, sizeof(*rds));
	if (read_cpus(SYS_CPU "/online", &rds->online))
		return -1;
	if (read_cpus(SYS_CPU "/isolated", &isolated))
		CPU_ZERO(&isolated);
	CPU_XOR(&hk, &rds->online, &isolated);
	CPU_AND(&hk, &hk, &rds->online);
	find_mounts(v1, v2, sizeof(v1), &noprefix);
	snprintf(path, sizeof(path), "%s/cpuset.cpus.effective", v2);
	if (v1[0]) {
		v1_domains(rds, v1, noprefix, &hk);
	} else if (v2[0] && !access(path, R_OK)) {
		v2_domains(rds, v2, &hk);
	} else {
		rd_add(rds, &hk, "all online CPUs");
		how_add(rds, "no cpuset hierarchy mounted: one root domain of all online CPUs");
	}
	rest = rds->online;
	for (i = 0; i < rds->n; i++)
		CPU_XOR(&rest, &rest, &rds->rd[i].cpus);
	rd_add(rds, &rest,
	       "CPUs outside every sched domain: the default root domain");
	for (i = 0; i < rds->n; i++)
		rd_bandwidth(rds, &rds->rd[i]);
	return 0;
}

const struct dlctl_rd *dlctl_rd_of_cpu(const struct dlctl_rds *rds, int cpu)
{
	int i;

	for (i = 0; cpu >= 0 && i < rds->n; i++)
		if (CPU_ISSET(cpu, &rds->rd[i].cpus))
			return &rds->rd[i];
	return NULL;
}

long long dlctl_rd_limit(const struct dlctl_rd *rd)
{
	if (rd->bw < 0)
		return -1;
	return (rd->bw * rd->cap) >> 10;
}
