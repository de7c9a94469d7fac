// SPDX-License-Identifier: GPL-2.0
/*
 * dlctl's explanations of a refused sched_setattr.  Each errno has
 * several possible causes; each is checked again here, from what the
 * kernel shows (/proc, sysfs, the sched debug file), and the messages say
 * which ones hold.  The kernel reports only the first rule it found
 * broken: the causes are listed in the order it checks them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg.h"
#include "explain.h"
#include "rd.h"
#include "task.h"
#include "units.h"

#define CAP_SYS_NICE_BIT 23
#define DL_MIN_RUNTIME 1024	/* 1 << DL_SCALE: the kernel's resolution */

/* One line of an explanation, on stderr below the error it explains. */
#define msg_info(fmt, ...)						\
	fprintf(stderr, "dlctl:   " fmt "\n", ##__VA_ARGS__)

/* @ns in the largest unit it reaches, with all its digits: "19.999999ms". */
static const char *exact(uint64_t ns, char *buf, size_t len)
{
	static const struct {
		uint64_t ns;
		int digits;
		const char *name;
	} units[] = {
		{ UNIT_S, 9, "s" }, { UNIT_MS, 6, "ms" }, { UNIT_US, 3, "us" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(units); i++) {
		uint64_t frac = ns % units[i].ns;
		int digits = units[i].digits;

		if (ns < units[i].ns)
			continue;
		if (!frac) {
			snprintf(buf, len, "%llu%s",
				 (unsigned long long)(ns / units[i].ns),
				 units[i].name);
			return buf;
		}
		while (frac % 10 == 0) {
			frac /= 10;
			digits--;
		}
		snprintf(buf, len, "%llu.%0*llu%s",
			 (unsigned long long)(ns / units[i].ns), digits,
			 (unsigned long long)frac, units[i].name);
		return buf;
	}
	snprintf(buf, len, "%lluns", (unsigned long long)ns);
	return buf;
}

static const char *dur(uint64_t ns, char *buf)
{
	return format_duration(ns, buf, 32);
}

/* The period the kernel uses: 0 stands for the deadline. */
static uint64_t period_of(const struct dl_attr *a)
{
	return a->sched_period ? a->sched_period : a->sched_deadline;
}

/* __checkparam_dl(), rule by rule, in its order. */
static void explain_einval(const struct dl_attr *a)
{
	uint64_t r = a->sched_runtime, d = a->sched_deadline, p = period_of(a);
	long min_us = sysctl_get("sched_deadline_period_min_us");
	long max_us = sysctl_get("sched_deadline_period_max_us");
	char b1[32], b2[32], b3[32];
	int broken = 0;

	if (!d) {
		msg_info("rule broken: deadline is 0");
		broken++;
	}
	if (r < DL_MIN_RUNTIME) {
		msg_info("rule broken: runtime %s is below the minimum 1024ns (the kernel keeps runtimes in units of 1024ns)",
			 dur(r, b1));
		broken++;
	}
	if (d >> 63 || a->sched_period >> 63) {
		msg_info("rule broken: deadline %s or period %s is 2^63ns or more",
			 dur(d, b1), dur(a->sched_period, b2));
		broken++;
	}
	if (p < d) {
		msg_info("rule broken: deadline %s > period %s (runtime <= deadline <= period)",
			 dur(d, b1), dur(p, b2));
		broken++;
	}
	if (d < r) {
		msg_info("rule broken: runtime %s > deadline %s (runtime <= deadline <= period)",
			 dur(r, b1), dur(d, b2));
		broken++;
	}
	if (min_us >= 0 && max_us >= 0 &&
	    (p < (uint64_t)min_us * UNIT_US || p > (uint64_t)max_us * UNIT_US)) {
		msg_info("rule broken: period %s is outside %s..%s (kernel.sched_deadline_period_min_us, _max_us)",
			 dur(p, b1), dur(min_us * UNIT_US, b2),
			 dur(max_us * UNIT_US, b3));
		broken++;
	}
	if (broken)
		return;
	if (a->sched_flags & (DL_FLAG_RECLAIM | DL_FLAG_DL_OVERRUN))
		msg_info("no parameter rule is broken: this kernel may not know the flags asked for (reclaim is from Linux 4.13, overrun from 4.16)");
	else
		msg_info("no rule dlctl knows of is broken");
}

static bool has_cap_sys_nice(void)
{
	char line[256];
	bool cap = false;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			cap = strtoull(line + 7, NULL, 16) >> CAP_SYS_NICE_BIT & 1;
	fclose(f);
	return cap;
}

/* The root domain of @tid, told to the user; NULL if not known. */
static const struct dlctl_rd *target_rd(struct dlctl_rds *rds, pid_t tid)
{
	const struct dlctl_rd *rd;
	int cpu = dlctl_task_cpu(tid);
	char cpus[256];

	if (dlctl_rd_scan(rds)) {
		msg_info("root domain: unknown (%s)", strerror(errno));
		return NULL;
	}
	rd = dlctl_rd_of_cpu(rds, cpu);
	if (!rd) {
		msg_info("root domain: unknown (the task last ran on CPU %d)", cpu);
		return NULL;
	}
	msg_info("root domain: CPUs %s (%d CPU%s; the task last ran on CPU %d): %s",
		 dlctl_cpulist(&rd->cpus, cpus, sizeof(cpus)), rd->ncpus,
		 rd->ncpus == 1 ? "" : "s", cpu, rd->why);
	msg_info("assumed: %s", rds->how);
	return rd;
}

/* Is the task's affinity narrower than its root domain's span? */
static bool eperm_affinity(pid_t tid, int cpu, const struct dlctl_rd *rd)
{
	char aff[256], span[256];
	cpu_set_t set, both;

	dlctl_cpulist(&rd->cpus, span, sizeof(span));
	if (sched_getaffinity(tid, sizeof(set), &set)) {
		msg_info("not checked: affinity (%s)", strerror(errno));
		return false;
	}
	dlctl_cpulist(&set, aff, sizeof(aff));
	CPU_AND(&both, &set, &rd->cpus);
	if (CPU_EQUAL(&both, &rd->cpus)) {
		msg_info("not the cause: affinity: CPUs %s cover the root domain's CPUs %s",
			 aff, span);
		return false;
	}
	msg_info("cause: affinity: the task may run on CPUs %s only, narrower than its root domain's CPUs %s; admission counts on it running on all of them: widen its affinity (taskset -p) or give those CPUs a root domain of their own (a cpuset partition)",
		 aff, span);
	if (cpu >= 0 && !CPU_ISSET(cpu, &set))
		msg_info("note: the kernel takes the root domain of CPU %d, where the task last ran, outside its affinity: it has not run since it was moved; wake it once and retry",
			 cpu);
	return true;
}

/* Step 9 of __sched_setscheduler(): the affinity and the limit. */
static bool eperm_rd_causes(pid_t tid, int cpu, const struct dlctl_rd *rd)
{
	bool cause;
	char b[32];

	if (rd->bw_known && rd->bw < 0) {
		msg_info("not the cause: affinity, limit: admission control is off (sched_rt_runtime_us = -1)");
		return false;
	}
	cause = eperm_affinity(tid, cpu, rd);
	if (!rd->bw_known) {
		msg_info("not checked: limit (as root, mount debugfs on /sys/kernel/debug)");
	} else if (rd->bw == 0) {
		msg_info("cause: limit: the root domain's deadline bandwidth is 0, so kernel.sched_rt_runtime_us is 0 (or below sched_rt_period_us / 2^20): raise it, e.g. to 950000");
		cause = true;
	} else {
		msg_info("not the cause: limit: the root domain admits %s of each CPU",
			 dlctl_bw_str(rd->bw, b, sizeof(b)));
	}
	return cause;
}

/* The causes of EPERM in __sched_setscheduler(), each checked. */
static void explain_eperm(pid_t tid)
{
	struct dlctl_rds *rds = malloc(sizeof(*rds));
	const struct dlctl_rd *rd;
	bool cause = !has_cap_sys_nice();

	if (cause)
		msg_info("cause: privilege: dlctl runs without CAP_SYS_NICE (euid %d); Linux 6.12 refuses SCHED_DEADLINE to every unprivileged task, whatever RLIMIT_RTPRIO allows: run it as root",
			 (int)geteuid());
	else
		msg_info("not the cause: privilege: dlctl has CAP_SYS_NICE");
	rd = rds ? target_rd(rds, tid) : NULL;
	if (rd)
		cause |= eperm_rd_causes(tid, dlctl_task_cpu(tid), rd);
	else
		msg_info("not checked: affinity, limit (root domain unknown)");
	if (!cause)
		msg_info("none of these applies: a security module may have refused");
	free(rds);
}

/* What would fit in @room: the largest runtime, the smallest period. */
static void explain_fit(long long room, const struct dl_attr *a)
{
	uint64_t p = period_of(a), r = a->sched_runtime, rmax, pmin;
	long max_us = sysctl_get("sched_deadline_period_max_us");
	char b1[32], b2[32];

	if (room < 0) {
		msg_info("nothing fits: more is allocated than the limit");
		return;
	}
	/* The largest r with (r << 20) / p <= room, as to_ratio() rounds. */
	rmax = (uint64_t)((((__uint128_t)room + 1) * p - 1) >> 20);
	if (rmax > a->sched_deadline)
		rmax = a->sched_deadline;
	if (rmax < DL_MIN_RUNTIME) {
		msg_info("nothing fits with period %s: the root domain is full",
			 dur(p, b1));
	} else {
		msg_info("fits: runtime up to %s with period %s",
			 exact(rmax, b1, sizeof(b1)), dur(p, b2));
	}
	/* The smallest p with (r << 20) / p <= room. */
	pmin = (uint64_t)(((__uint128_t)r << 20) / (room + 1)) + 1;
	if (max_us > 0 && pmin <= (uint64_t)max_us * UNIT_US)
		msg_info("fits: period at least %s with runtime %s",
			 exact(pmin, b1, sizeof(b1)), dur(r, b2));
}

/* What the visible deadline tasks of @rd hold, against what is allocated. */
static void explain_holders(const struct dlctl_rd *rd)
{
	struct dlctl_dl_task *t;
	long long held;
	int n, in;
	char b1[32], b2[32];

	n = dlctl_dl_tasks(&t);
	if (n < 0)
		return;
	held = dlctl_held_in(&rd->cpus, t, n, &in);
	free(t);
	msg_info("%d deadline task%s in the root domain hold%s %lld (%s); the other %lld (%s) is the fair servers' (50ms every 1s per CPU by default) and that of tasks gone but not yet returned",
		 in, in == 1 ? "" : "s", in == 1 ? "s" : "", held,
		 dlctl_bw_str(held, b1, sizeof(b1)), rd->total_bw - held,
		 dlctl_bw_str(rd->total_bw - held, b2, sizeof(b2)));
}

/* The limit and the allocated total, as __dl_overflow() compares them. */
static void explain_totals(const struct dlctl_rd *rd, long long limit)
{
	char b1[32], b2[32], cpus[32];

	snprintf(cpus, sizeof(cpus),
		 rd->cap == rd->ncpus * 1024LL ? "%.0f" : "%.3f",
		 rd->cap / 1024.0);
	msg_info("limit %lld = %s per CPU x %s CPU%s (bandwidth in units of 2^-20 of a CPU)",
		 limit, dlctl_bw_str(rd->bw, b1, sizeof(b1)), cpus,
		 rd->cap == 1024 ? "" : "s");
	msg_info("allocated %lld (%s), available %lld (%s)", rd->total_bw,
		 dlctl_bw_str(rd->total_bw, b1, sizeof(b1)), limit - rd->total_bw,
		 dlctl_bw_str(limit - rd->total_bw, b2, sizeof(b2)));
}

/*
 * The caps of the task's cgroups (cpu.dl.max), checked before the root
 * domain: the lowest one that @want more than the task's @old would take
 * over its cap, explained.  Returns whether one did.
 */
static bool explain_cg_cap(pid_t tid, const struct dl_attr *a,
			   long long old, long long want)
{
	char path[512], b1[32], b2[32], b3[32];
	struct dlctl_cg cg;
	char *slash;

	if (dlctl_cg_of_task(tid, path, sizeof(path)))
		return false;
	for (;;) {
		if (!dlctl_cg_read(path, &cg) && cg.cap >= 0 && cg.bw >= 0 &&
		    cg.bw - old + want > cg.cap) {
			msg_info("refused by the cap of cgroup %s: cpu.dl.max %lldus/%lldus = %lld (%s), held there %lld (%s) by %lld task%s",
				 cg.path, cg.runtime_us, cg.period_us, cg.cap,
				 dlctl_bw_str(cg.cap, b1, sizeof(b1)), cg.bw,
				 dlctl_bw_str(cg.bw, b2, sizeof(b2)),
				 cg.nr_tasks, cg.nr_tasks == 1 ? "" : "s");
			if (old)
				msg_info("the task holds %lld of it now, which it would give back",
					 old);
			msg_info("requested %lld (%s)", want,
				 dlctl_bw_str(want, b3, sizeof(b3)));
			explain_fit(cg.cap - cg.bw + old, a);
			msg_info("note: what tasks that left the cgroup's deadline tasks held comes back at their 0-lag times: a retry may succeed then");
			return true;
		}
		slash = strrchr(path, '/');
		if (!slash || slash == path)
			return false;
		*slash = 0;
	}
}

/*
 * The largest density x (2^-20 units) a task may have in a root domain
 * of @m CPUs whose other tasks sum to @u with the largest @umax, by the
 * test u + x <= m - (m - 1) * max(umax, x); -1 if none.
 */
static long long density_room(int m, long long u, long long umax)
{
	long long one = 1LL << 20, low = m * one - (m - 1) * umax - u;
	long long high = (m * one - u) / m;

	if (high > umax)
		return high;
	return low < umax ? low : umax;
}

/*
 * kernel.sched_dl_admission = 1: the density test (Goossens, Funk and
 * Baruah) after the limit, from the visible deadline tasks of @rd (each
 * counts Q/D - Q/P more than the total does) and what @a asks for.
 * Returns whether it refuses.
 */
static bool explain_density(pid_t tid, const struct dlctl_rd *rd,
			    const struct dl_attr *a, long long old)
{
	long long u = rd->total_bw - old, umax = 0, x, room;
	struct dlctl_dl_task *t;
	char b1[32], b2[32], b3[32];
	uint64_t rmax;
	int i, n, m = rd->ncpus;

	if (sysctl_get("sched_dl_admission") != 1 || m < 1)
		return false;
	n = dlctl_dl_tasks(&t);
	if (n < 0)
		return false;
	for (i = 0; i < n; i++) {
		long long d;

		if (t[i].tid == tid || t[i].home < 0 ||
		    !CPU_ISSET(t[i].home, &rd->cpus))
			continue;
		d = dlctl_to_ratio(t[i].attr.sched_deadline,
				   t[i].attr.sched_runtime);
		u += d - dlctl_to_ratio(t[i].attr.sched_period,
					t[i].attr.sched_runtime);
		if (d > umax)
			umax = d;
	}
	free(t);
	x = dlctl_to_ratio(a->sched_deadline, a->sched_runtime);
	if (u + x <= m * (1LL << 20) - (m - 1) * (x > umax ? x : umax))
		return false;
	msg_info("refused by the density test (kernel.sched_dl_admission = 1): the sum U of runtime/deadline over the root domain's tasks must stay within M - (M - 1) * Umax, the largest of them (Goossens, Funk and Baruah)");
	msg_info("M = %d CPU%s; without the task, U = %lld (%s) and Umax = %lld (%s); it asks for runtime/deadline %lld (%s)",
		 m, m == 1 ? "" : "s", u, dlctl_bw_str(u, b1, sizeof(b1)), umax,
		 dlctl_bw_str(umax, b2, sizeof(b2)), x,
		 dlctl_bw_str(x, b3, sizeof(b3)));
	room = density_room(m, u, umax);
	/* The largest r with (r << 20) / d <= room, as to_ratio() rounds. */
	rmax = room < 0 ? 0 : (uint64_t)((((__uint128_t)room + 1) *
					  a->sched_deadline - 1) >> 20);
	if (rmax > a->sched_deadline)
		rmax = a->sched_deadline;
	if (rmax < DL_MIN_RUNTIME)
		msg_info("nothing fits with deadline %s", dur(a->sched_deadline, b1));
	else
		msg_info("fits: runtime up to %s with deadline %s",
			 exact(rmax, b1, sizeof(b1)), dur(a->sched_deadline, b2));
	return true;
}

/* sched_dl_overflow(): the root domain's sum against its limit. */
static void explain_ebusy(pid_t tid, const struct dl_attr *a)
{
	struct dlctl_rds *rds = malloc(sizeof(*rds));
	struct dl_attr now = { .size = DL_ATTR_SIZE_VER1 };
	const struct dlctl_rd *rd;
	long long limit, old = 0, want;
	char b1[32], b2[32], b3[32];

	if (!dl_getattr(tid, &now, sizeof(now), 0) &&
	    now.sched_policy == SCHED_DEADLINE)
		old = dlctl_to_ratio(now.sched_period, now.sched_runtime);
	want = dlctl_to_ratio(period_of(a), a->sched_runtime);
	if (explain_cg_cap(tid, a, old, want))
		goto out;
	rd = rds ? target_rd(rds, tid) : NULL;
	if (!rd)
		goto out;
	if (!rd->bw_known) {
		msg_info("allocated: unknown (as root, mount debugfs on /sys/kernel/debug)");
		goto out;
	}
	limit = dlctl_rd_limit(rd);
	if (limit < 0) {
		msg_info("admission control is off (sched_rt_runtime_us = -1), yet the kernel said EBUSY");
		goto out;
	}
	explain_totals(rd, limit);
	if (old)
		msg_info("the task holds %lld now, which it would give back", old);
	msg_info("requested %lld (%s: runtime %s / period %s)", want,
		 dlctl_bw_str(want, b1, sizeof(b1)), dur(a->sched_runtime, b2),
		 dur(period_of(a), b3));
	if (rd->total_bw < 0) {
		msg_info("cause: the allocated total is below zero: the kernel's accounting underflowed (in 6.12, when the root domains are rebuilt, by any access to the sched_rt sysctls or a cpuset change, while a departed task's bandwidth is still held); compared unsigned, it admits nothing until the next rebuild: rewrite kernel.sched_rt_runtime_us with its value");
		goto out;
	}
	if (rd->total_bw - old + want <= limit && explain_density(tid, rd, a, old))
		goto out;
	explain_fit(limit - rd->total_bw + old, a);
	explain_holders(rd);
	msg_info("note: a task that left SCHED_DEADLINE gives its bandwidth back at its 0-lag time, up to a period later: a retry may succeed then");
out:
	free(rds);
}

static const char *errno_name(int err, char *buf, size_t len)
{
	static const struct {
		int err;
		const char *name;
	} names[] = {
		{ EINVAL, "EINVAL" }, { EBUSY, "EBUSY" }, { EPERM, "EPERM" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].err == err)
			return names[i].name;
	snprintf(buf, len, "errno %d", err);
	return buf;
}

void dlctl_explain(int err, pid_t tid, const char *label,
		   const struct dl_attr *a)
{
	char name[32];

	if (err == ESRCH) {
		fprintf(stderr, "dlctl: %s: no such process (ESRCH)\n", label);
		return;
	}
	fprintf(stderr, "dlctl: %s: SCHED_DEADLINE refused: %s (%s)\n",
		label, strerror(err), errno_name(err, name, sizeof(name)));
	switch (err) {
	case EINVAL:
		explain_einval(a);
		break;
	case EPERM:
		explain_eperm(tid);
		break;
	case EBUSY:
		msg_info("not enough deadline bandwidth left in the task's cgroup or root domain");
		explain_ebusy(tid, a);
		break;
	}
}
