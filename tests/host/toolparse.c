// SPDX-License-Identifier: GPL-2.0
/*
 * toolparse: the toolkit's parsers and pure functions, on the host, linked
 * with the tools' modules and tools/lib: durations (lib/units.c), dlgen's
 * -t form (dlgen/conf.c), its JSON reader (dlgen/json.c) and rt-app file
 * mapping (dlgen/jconf.c), dlctl's figures and its EINVAL explanation
 * (dlctl/task.c, dlctl/rd.c, dlctl/explain.c), and what
 * tests/host/chart.c leaves out of dlchart: the trace and job log readers
 * on synthetic input, the time-to-x mapping at the window's edges, the
 * ticks, and the order of the lanes.
 *
 * Every expectation is a literal: the exact value, or the exact message
 * with its position.  What a library function prints goes to a temporary
 * file and is compared too, so nothing but TAP reaches stdout.
 *
 * DLCHART is the dlchart binary (default ./dlchart), for the lane order,
 * which dlchart.c decides.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "dlchart/jobs.h"
#include "dlchart/svg.h"
#include "dlchart/trace.h"
#include "dlctl/explain.h"
#include "dlctl/rd.h"
#include "dlctl/task.h"
#include "dlgen/conf.h"
#include "dlgen/json.h"
#include "units.h"

#define MS 1000000ULL
#define S 1000000000ULL
#define TWO63 9223372036854775808ULL

/* ---- helpers ---- */

/* @s with newlines and tabs shown, for a one-line diagnostic. */
static const char *vis(const char *s)
{
	static char buf[4][512];
	static int k;
	char *o = buf[k++ % 4], *e = o + sizeof(buf[0]) - 3, *b = o;

	for (; *s && o < e; s++) {
		if (*s == '\n' || *s == '\t') {
			*o++ = '\\';
			*o++ = *s == '\n' ? 'n' : 't';
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return b;
}

/* JSON written with single quotes, which C strings spare escaping. */
static char *dq(const char *s)
{
	char *d = strdup(s), *p;

	REQUIRE(d, "out of memory");
	for (p = d; *p; p++)
		if (*p == '\'')
			*p = '"';
	return d;
}

/* What the code under test writes to stderr, caught in a file. */
struct capture {
	FILE *tmp;
	int saved;
};

static void capture_start(struct capture *c)
{
	fflush(stderr);
	c->tmp = tmpfile();
	c->saved = dup(2);
	REQUIRE(c->tmp && c->saved >= 0, "capture: %s", strerror(errno));
	REQUIRE(dup2(fileno(c->tmp), 2) == 2, "dup2: %s", strerror(errno));
}

/* The text written since capture_start(), malloc'd. */
static char *capture_end(struct capture *c)
{
	long n;
	char *s;

	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	n = ftell(c->tmp);
	s = calloc(1, n > 0 ? n + 1 : 1);
	REQUIRE(s && n >= 0, "capture: %s", strerror(errno));
	rewind(c->tmp);
	if (n > 0)
		REQUIRE(fread(s, 1, n, c->tmp) == (size_t)n, "capture read");
	fclose(c->tmp);
	return s;
}

/* ---- units.c (tools/lib) ---- */

static void dur_ok(const char *s, uint64_t bare, uint64_t want)
{
	uint64_t ns = 12345;
	int r;

	errno = 0;
	r = parse_duration(s, bare, &ns);
	CHECK(r == 0 && ns == want, "\"%s\" (bare %llu): r %d errno %d ns %llu, want %llu",
	      vis(s), (unsigned long long)bare, r, errno,
	      (unsigned long long)ns, (unsigned long long)want);
}

/* Refused with errno @e, *ns untouched. */
static void dur_bad(const char *s, uint64_t bare, int e)
{
	uint64_t ns = 12345;
	int r;

	errno = 0;
	r = parse_duration(s, bare, &ns);
	CHECK(r == -1 && errno == e && ns == 12345,
	      "\"%s\": r %d errno %s ns %llu, want -1 %s", vis(s), r,
	      strerrorname_np(errno) ? strerrorname_np(errno) : "0",
	      (unsigned long long)ns, strerrorname_np(e));
}

/* ns, us, ms, s; a bare number in the caller's unit. */
static void units_each_unit(void)
{
	dur_ok("7ns", UNIT_S, 7);
	dur_ok("7us", UNIT_NS, 7000);
	dur_ok("7ms", UNIT_NS, 7 * MS);
	dur_ok("7s", UNIT_NS, 7 * S);
	dur_ok("7", UNIT_NS, 7);
	dur_ok("7", UNIT_US, 7000);
	dur_ok("7", UNIT_MS, 7 * MS);
	dur_ok("7", UNIT_S, 7 * S);
	dur_ok("0", UNIT_S, 0);
	dur_ok("0ms", UNIT_NS, 0);
	dur_ok("007ms", UNIT_NS, 7 * MS);
	dur_ok("100000", UNIT_US, 100 * MS);
}

/* Fractions digit by digit: exact, below a nanosecond dropped. */
static void units_fractions(void)
{
	dur_ok("2.5ms", UNIT_NS, 2500000);
	dur_ok("0.1ms", UNIT_NS, 100000);
	dur_ok("0.3s", UNIT_NS, 300000000);
	dur_ok("1.10us", UNIT_NS, 1100);
	dur_ok("1.000000001s", UNIT_NS, 1000000001);
	dur_ok("1.9999999999s", UNIT_NS, 1999999999);
	dur_ok("0.0000000009s", UNIT_NS, 0);
	dur_ok("1.5ns", UNIT_US, 1);
	dur_ok("1.5", UNIT_US, 1500);
	dur_ok("2.5", UNIT_S, 2500000000ULL);
	dur_ok("0.000001ms", UNIT_NS, 1);
	dur_ok("0.0000001ms", UNIT_NS, 0);
}

/* Units are lower case, glued to the number; nothing else is taken. */
static void units_bad_spelling(void)
{
	static const char *const bad[] = {
		"", "ms", "10MS", "10Ms", "10NS", "10S", "10m", "10sec",
		"10 ms", " 10ms", "10ms ", "\t10", "10ms\n", "+10", "-10",
		"-0", ".5ms", "5.ms", "5.", "1e3", "0x10", "10msx", "10mss",
		"1,5ms", "1.5.0ms", "10\xc2\xb5s", "s10", "10h", "10min",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		dur_bad(bad[i], UNIT_NS, EINVAL);
}

/*
 * Up to 2^63 ns is taken, beyond is ERANGE; and something that is not a
 * duration is EINVAL however many digits it starts with.
 */
static void units_range(void)
{
	dur_ok("9223372036854775808", UNIT_NS, TWO63);
	dur_ok("9223372036854775808ns", UNIT_S, TWO63);
	dur_ok("9223372036854775808.5", UNIT_NS, TWO63);
	dur_ok("9223372036.854775808s", UNIT_NS, TWO63);
	dur_ok("9223372036854775us", UNIT_NS, 9223372036854775000ULL);
	dur_ok("9223372036s", UNIT_NS, 9223372036000000000ULL);
	dur_bad("9223372036854775809", UNIT_NS, ERANGE);
	dur_bad("18446744073709551615", UNIT_NS, ERANGE);
	dur_bad("18446744073709551616", UNIT_NS, ERANGE);
	dur_bad("99999999999999999999999999999", UNIT_NS, ERANGE);
	dur_bad("9223372036.854775809s", UNIT_NS, ERANGE);
	dur_bad("9223372037s", UNIT_NS, ERANGE);
	dur_bad("9223372037", UNIT_S, ERANGE);
	dur_bad("9223372036854776us", UNIT_NS, ERANGE);
	dur_ok("9223372036854.775808ms", UNIT_NS, TWO63);
	dur_bad("9223372036854.775809ms", UNIT_NS, ERANGE);
	/* garbage stays garbage, however long its number */
	dur_bad("99999999999999999999x", UNIT_NS, EINVAL);
	dur_bad("99999999999999999999 ms", UNIT_NS, EINVAL);
	dur_bad("99999999999999999999.", UNIT_NS, EINVAL);
	dur_bad("99999999999999999999.5mss", UNIT_NS, EINVAL);
}

static void fmt_is(uint64_t ns, const char *want)
{
	char buf[32];

	format_duration(ns, buf, sizeof(buf));
	CHECK(!strcmp(buf, want), "%llu: \"%s\", want \"%s\"",
	      (unsigned long long)ns, buf, want);
}

/* The largest unit that shows the value exactly; parses back. */
static void units_format(void)
{
	static const uint64_t back[] = {
		0, 1, 999, 1000, 1001, 1500, 999999, 1000000, 1500000,
		30 * MS, S, 90 * S, 1000000001, TWO63, TWO63 - 1,
	};
	char buf[32], small[4];
	uint64_t ns;
	size_t i;

	fmt_is(0, "0ns");
	fmt_is(1, "1ns");
	fmt_is(999, "999ns");
	fmt_is(1000, "1us");
	fmt_is(1500, "1500ns");
	fmt_is(1500000, "1500us");
	fmt_is(10 * MS, "10ms");
	fmt_is(1500 * MS, "1500ms");
	fmt_is(S, "1s");
	fmt_is(90 * S, "90s");
	fmt_is(1000000001, "1000000001ns");
	fmt_is(TWO63, "9223372036854775808ns");
	fmt_is(UINT64_MAX, "18446744073709551615ns");
	for (i = 0; i < ARRAY_SIZE(back); i++) {
		format_duration(back[i], buf, sizeof(buf));
		CHECK(!parse_duration(buf, UNIT_S, &ns) && ns == back[i],
		      "%llu -> %s -> %llu", (unsigned long long)back[i], buf,
		      (unsigned long long)ns);
	}
	/* a short buffer is cut, never overrun */
	CHECK(!strcmp(format_duration(123456, small, sizeof(small)), "123"),
	      "cut: \"%s\"", small);
}

/* ---- dlgen -t (dlgen/conf.c) ---- */

/* A -t spec that must parse; the task it added. */
static struct dlgen_task *spec_ok(struct dlgen_conf *c, const char *spec)
{
	char err[256] = "";

	REQUIRE(!dlgen_task_spec(c, spec, err, sizeof(err)),
		"-t %s refused: %s", spec, err);
	REQUIRE(c->ntasks > 0, "-t %s: no task", spec);
	return &c->tasks[c->ntasks - 1];
}

/* A -t spec refused with "-t SPEC: @want". */
static void spec_bad(const char *spec, const char *want)
{
	struct dlgen_conf c = { .duration = -1 };
	char err[512] = "", full[512];

	snprintf(full, sizeof(full), "-t %s: %s", spec, want);
	CHECK(dlgen_task_spec(&c, spec, err, sizeof(err)) == -1 &&
	      !strcmp(err, full), "-t %s:\n#   got  \"%s\"\n#   want \"%s\"",
	      spec, err, full);
	dlgen_conf_free(&c);
}

static const char *cpus_of(const struct dlgen_task *t)
{
	static char buf[256];

	return dlgen_cpus_format(&t->cpus, buf, sizeof(buf));
}

/* The task a -t spec makes: one phase, run then the period's timer. */
static void check_periodic(const struct dlgen_task *t, int policy, int prio,
			   uint64_t run, uint64_t dl, uint64_t period)
{
	const struct dlgen_phase *p = t->phases;

	CHECK(t->policy == policy, "policy %d, want %d", t->policy, policy);
	CHECK(t->priority == prio, "priority %d, want %d", t->priority, prio);
	CHECK(t->runtime == run && t->deadline == dl && t->period == period,
	      "runtime/deadline/period %llu/%llu/%llu, want %llu/%llu/%llu",
	      (unsigned long long)t->runtime, (unsigned long long)t->deadline,
	      (unsigned long long)t->period, (unsigned long long)run,
	      (unsigned long long)dl, (unsigned long long)period);
	CHECK(t->instances == 1 && t->loop == -1, "instances %d loop %ld",
	      t->instances, t->loop);
	REQUIRE(t->nphases == 1 && p->nevents == 2, "%d phases, %d events",
		t->nphases, t->nphases ? p->nevents : 0);
	CHECK(p->loop == 1, "phase loop %ld", p->loop);
	CHECK(p->events[0].type == DLGEN_RUN && p->events[0].ns == run,
	      "event 0: type %d ns %llu", p->events[0].type,
	      (unsigned long long)p->events[0].ns);
	CHECK(p->events[1].type == DLGEN_TIMER && p->events[1].ns == period &&
	      p->events[1].timer == 0, "event 1: type %d ns %llu timer %d",
	      p->events[1].type, (unsigned long long)p->events[1].ns,
	      p->events[1].timer);
	/* rt-app 0.x keeps releases on the grid: an absolute timer */
	REQUIRE(t->ntimers == 1, "%d timers", t->ntimers);
	CHECK(!strcmp(t->timers[0].ref, "period") && t->timers[0].absolute &&
	      t->timers[0].mode_given, "timer %s absolute %d",
	      t->timers[0].ref, t->timers[0].absolute);
	CHECK(p->run == run && p->period == period && p->deadline == dl,
	      "phase run/period/deadline %llu/%llu/%llu",
	      (unsigned long long)p->run, (unsigned long long)p->period,
	      (unsigned long long)p->deadline);
}

/* The documentation's "rt-app -t 100000:10000:d:0". */
static void spec_documentation_form(void)
{
	struct dlgen_conf c = { .duration = -1 };
	struct dlgen_task *t = spec_ok(&c, "100000:10000:d:0");

	CHECK(!strcmp(t->name, "t0"), "name %s", t->name);
	check_periodic(t, SCHED_DEADLINE, 0, 10 * MS, 100 * MS, 100 * MS);
	CHECK(t->has_cpus && !strcmp(cpus_of(t), "0"), "cpus %s",
	      cpus_of(t));
	CHECK(c.duration == -1, "duration changed to %lld",
	      (long long)c.duration);
	t = spec_ok(&c, "100ms:10ms:d");
	CHECK(!strcmp(t->name, "t1") && c.ntasks == 2, "name %s, %d tasks",
	      t->name, c.ntasks);
	check_periodic(t, SCHED_DEADLINE, 0, 10 * MS, 100 * MS, 100 * MS);
	CHECK(!t->has_cpus, "cpus without a cpus field");
	dlgen_conf_free(&c);
	CHECK(!c.tasks && !c.ntasks, "not emptied by dlgen_conf_free");
}

/* d, f, r, o; the default; a priority or nice value; the deadline. */
static void spec_each_policy(void)
{
	struct dlgen_conf c = { .duration = -1 };

	check_periodic(spec_ok(&c, "1000:100"), SCHED_OTHER, 0, 100000,
		       1 * MS, 1 * MS);
	check_periodic(spec_ok(&c, "1000:100:-"), SCHED_OTHER, 0, 100000,
		       1 * MS, 1 * MS);
	check_periodic(spec_ok(&c, "1000:100::"), SCHED_OTHER, 0, 100000,
		       1 * MS, 1 * MS);
	check_periodic(spec_ok(&c, "1000:100:o:-:-20"), SCHED_OTHER, -20,
		       100000, 1 * MS, 1 * MS);
	check_periodic(spec_ok(&c, "1000:100:o:-:19"), SCHED_OTHER, 19,
		       100000, 1 * MS, 1 * MS);
	check_periodic(spec_ok(&c, "1000:100:f"), SCHED_FIFO, DLGEN_RT_PRIO,
		       100000, 1 * MS, 1 * MS);
	check_periodic(spec_ok(&c, "1000:100:f:-:1"), SCHED_FIFO, 1, 100000,
		       1 * MS, 1 * MS);
	check_periodic(spec_ok(&c, "1000:100:f:-:99:500"), SCHED_FIFO, 99,
		       100000, 500000, 1 * MS);
	check_periodic(spec_ok(&c, "1000:100:r"), SCHED_RR, DLGEN_RT_PRIO,
		       100000, 1 * MS, 1 * MS);
	check_periodic(spec_ok(&c, "1000:100:r:-:50:-"), SCHED_RR, 50, 100000,
		       1 * MS, 1 * MS);
	check_periodic(spec_ok(&c, "1000:100:r:0:-:100"), SCHED_RR,
		       DLGEN_RT_PRIO, 100000, 100000, 1 * MS);
	/* d has no priority: its fifth field is the deadline, as the sixth */
	check_periodic(spec_ok(&c, "100000:10000:d:-:30000"), SCHED_DEADLINE,
		       0, 10 * MS, 30 * MS, 100 * MS);
	check_periodic(spec_ok(&c, "100000:10000:d:-:-:30ms"), SCHED_DEADLINE,
		       0, 10 * MS, 30 * MS, 100 * MS);
	check_periodic(spec_ok(&c, "100000:10000:d:-:30ms:-"), SCHED_DEADLINE,
		       0, 10 * MS, 30 * MS, 100 * MS);
	/* the edges of run <= deadline <= period */
	check_periodic(spec_ok(&c, "100000:100000:d"), SCHED_DEADLINE, 0,
		       100 * MS, 100 * MS, 100 * MS);
	check_periodic(spec_ok(&c, "100000:10000:d:-:10000"), SCHED_DEADLINE,
		       0, 10 * MS, 10 * MS, 100 * MS);
	check_periodic(spec_ok(&c, "100000:10000:d:-:100000"), SCHED_DEADLINE,
		       0, 10 * MS, 100 * MS, 100 * MS);
	check_periodic(spec_ok(&c, "1s:0.5s:d:-:0.75s"), SCHED_DEADLINE, 0,
		       500 * MS, 750 * MS, S);
	CHECK(c.ntasks == 18 && !strcmp(c.tasks[17].name, "t17"),
	      "%d tasks", c.ntasks);
	dlgen_conf_free(&c);
}

#define NOT_DUR "is not a duration (a number of us, or with a unit: 10ms)"
#define NOT_CPUS "is not a CPU list (0,2-3)"

/* CPU lists: syntax, and CPUs the machine does not have. */
static void spec_cpu_lists(void)
{
	static const char *const bad[] = {
		"zz", "0-", "-1", "1-0", "0,", ",0", "0,,1", "0 ", " 0",
		"1024", "0-1024", "0x1", "0--1", "0-+1", "+1", "0;1", "1-",
		"99999999999999999999",
	};
	long n = sysconf(_SC_NPROCESSORS_CONF);
	struct dlgen_conf c = { .duration = -1 };
	char spec[64], want[512], all[32];
	struct dlgen_task *t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(spec, sizeof(spec), "100000:10000:f:%s", bad[i]);
		snprintf(want, sizeof(want), "cpus: \"%s\" " NOT_CPUS, bad[i]);
		spec_bad(spec, want);
	}
	spec_bad("100000:10000:f:1023",
		 "cpus: there is no CPU 1023 (this field is the CPU affinity, as in rt-app 0.x; a priority is the next: f:-:10)");
	/* the documentation's "f:10" for a priority, on a small machine */
	if (n <= 10)
		spec_bad("100000:10000:f:10",
			 "cpus: there is no CPU 10 (this field is the CPU affinity, as in rt-app 0.x; a priority is the next: f:-:10)");
	t = spec_ok(&c, "1000:100:d:0-0");
	CHECK(!strcmp(cpus_of(t), "0"), "0-0: %s", cpus_of(t));
	t = spec_ok(&c, "1000:100:d:00,0");
	CHECK(!strcmp(cpus_of(t), "0"), "00,0: %s", cpus_of(t));
	REQUIRE(n >= 1, "sysconf: %ld CPUs", n);
	snprintf(spec, sizeof(spec), "1000:100:d:0-%ld", n - 1);
	snprintf(all, sizeof(all), n > 1 ? "0-%ld" : "0", n - 1);
	t = spec_ok(&c, spec);
	CHECK(!strcmp(cpus_of(t), all), "%s: %s", spec, cpus_of(t));
	snprintf(spec, sizeof(spec), "1000:100:d:0-%ld", n);
	snprintf(want, sizeof(want),
		 "cpus: there is no CPU %ld (this field is the CPU affinity, as in rt-app 0.x; a priority is the next: f:-:10)",
		 n);
	spec_bad(spec, want);
	if (n >= 4) {
		t = spec_ok(&c, "1000:100:d:3,0,2-3");
		CHECK(!strcmp(cpus_of(t), "0,2-3"), "3,0,2-3: %s", cpus_of(t));
	}
	dlgen_conf_free(&c);
}

/* Too few, too many, empty fields. */
static void spec_fields(void)
{
	spec_bad("", "run: missing (PERIOD:RUN[:POLICY...], in us)");
	spec_bad("100000", "run: missing (PERIOD:RUN[:POLICY...], in us)");
	spec_bad("100000:", "run: \"\" " NOT_DUR);
	spec_bad(":10000", "period: \"\" " NOT_DUR);
	spec_bad("::", "period: \"\" " NOT_DUR);
	spec_bad("1:1:o:-:-:1:1",
		 "more than 6 fields (PERIOD:RUN[:POLICY[:CPUS[:PRIO[:DEADLINE]]]])");
	spec_bad("1:1:::::",
		 "more than 6 fields (PERIOD:RUN[:POLICY[:CPUS[:PRIO[:DEADLINE]]]])");
	spec_bad("100000:10000:q",
		 "policy: \"q\" is none of d (SCHED_DEADLINE), f (SCHED_FIFO), r (SCHED_RR), o (SCHED_OTHER)");
	spec_bad("100000:10000:D",
		 "policy: \"D\" is none of d (SCHED_DEADLINE), f (SCHED_FIFO), r (SCHED_RR), o (SCHED_OTHER)");
	spec_bad("100000:10000:deadline",
		 "policy: \"deadline\" is none of d (SCHED_DEADLINE), f (SCHED_FIFO), r (SCHED_RR), o (SCHED_OTHER)");
	spec_bad("100000 :10000", "period: \"100000 \" " NOT_DUR);
	spec_bad("100000:10000:f:-:x", "priority: \"x\": a priority from 1 to 99");
}

/* 0 and negative values; units in the fields. */
static void spec_zero_negative(void)
{
	spec_bad("0:0", "period: must not be 0");
	spec_bad("100000:0", "run: must not be 0");
	spec_bad("0ms:10", "period: must not be 0");
	spec_bad("-100000:10000", "period: \"-100000\" " NOT_DUR);
	spec_bad("100000:-1", "run: \"-1\" " NOT_DUR);
	spec_bad("100000:1y", "run: \"1y\" " NOT_DUR);
	spec_bad("100000:10000:d:-:0", "deadline: must not be 0");
	spec_bad("100000:10000:d:-:-5", "deadline: \"-5\" " NOT_DUR);
	spec_bad("100000:10000:f:-:-:0", "deadline: must not be 0");
	spec_bad("100000:10000:f:-:0", "priority: \"0\": a priority from 1 to 99");
	spec_bad("100000:10000:f:-:100",
		 "priority: \"100\": a priority from 1 to 99");
	spec_bad("100000:10000:r:-:-1",
		 "priority: \"-1\": a priority from 1 to 99");
	spec_bad("100000:10000:o:-:-21",
		 "priority: \"-21\": SCHED_OTHER takes a nice value from -20 to 19");
	spec_bad("100000:10000:o:-:20",
		 "priority: \"20\": SCHED_OTHER takes a nice value from -20 to 19");
	spec_bad("100000:10000:o:-:5x",
		 "priority: \"5x\": SCHED_OTHER takes a nice value from -20 to 19");
	spec_bad("99999999999999999999:1", "period: \"99999999999999999999\" " NOT_DUR);
}

/* runtime <= deadline <= period, each broken, named by its field. */
static void spec_order_rules(void)
{
	spec_bad("100000:200000", "run: 200ms is longer than the period (100ms)");
	spec_bad("100000:100001", "run: 100001us is longer than the period (100ms)");
	spec_bad("100000:10000:d:-:5000",
		 "deadline: 5ms is not between the run (10ms) and the period (100ms)");
	spec_bad("100000:10000:d:-:100001",
		 "deadline: 100001us is not between the run (10ms) and the period (100ms)");
	spec_bad("100000:10000:d:-:-:9999",
		 "deadline: 9999us is not between the run (10ms) and the period (100ms)");
	spec_bad("100000:10000:f:-:10:200ms",
		 "deadline: 200ms is not between the run (10ms) and the period (100ms)");
	spec_bad("100000:10000:d:-:50000:60000",
		 "deadline: given twice: for d, the fifth field is the deadline too");
	spec_bad("100000:10000:d:-:x", "deadline: \"x\" " NOT_DUR);
	/* the first broken rule is the one named */
	spec_bad("0:200000:q", "period: must not be 0");
	spec_bad("100000:200000:q", "run: 200ms is longer than the period (100ms)");
}

/* A message longer than the buffer is cut and terminated. */
static void spec_short_error_buffer(void)
{
	struct dlgen_conf c = { .duration = -1 };
	char err[16];

	memset(err, 'x', sizeof(err));
	CHECK(dlgen_task_spec(&c, "100000:200000", err, 12) == -1, "accepted");
	CHECK(!strcmp(err, "-t 100000:2") && err[12] == 'x', "err \"%.16s\"",
	      err);
	dlgen_conf_free(&c);
}

/* ---- the JSON reader (dlgen/json.c) ---- */

static struct dlgen_json *jparse(const char *text, char *err, size_t len)
{
	char *t = dq(text);
	struct dlgen_json *v = dlgen_json_parse(t, strlen(t), err, len);

	free(t);
	return v;
}

/* Refused with exactly @want ("LINE:COL: what"); @text as written. */
static void json_bad_raw(const char *text, size_t len, const char *want)
{
	char err[256] = "";
	struct dlgen_json *v = dlgen_json_parse(text, len, err, sizeof(err));

	CHECK(!v && !strcmp(err, want), "'%s': got \"%s\", want \"%s\"",
	      vis(text), v ? "(parsed)" : err, want);
	dlgen_json_free(v);
}

static void json_bad(const char *text, const char *want)
{
	char *t = dq(text);

	json_bad_raw(t, strlen(t), want);
	free(t);
}

/* The @i-th child of @v, which must be there. */
static const struct dlgen_json *nth(const struct dlgen_json *v, int i)
{
	const struct dlgen_json *c = v->child;
	int k;

	for (k = 0; c && k < i; k++)
		c = c->next;
	REQUIRE(c, "no child %d", i);
	return c;
}

static void node_is(const struct dlgen_json *v, enum dlgen_json_type type,
		    const char *key, const char *str, int line, int col)
{
	CHECK(v->type == type, "%s: type %d, want %d", key ? key : "-",
	      v->type, type);
	CHECK(key ? v->key && !strcmp(v->key, key) : !v->key,
	      "key \"%s\", want \"%s\"", v->key ? v->key : "(none)",
	      key ? key : "(none)");
	CHECK(str ? v->str && !strcmp(v->str, str) : !v->str,
	      "%s: str \"%s\", want \"%s\"", key ? key : "-",
	      v->str ? vis(v->str) : "(none)", str ? vis(str) : "(none)");
	CHECK(v->line == line && v->col == col, "%s: at %d:%d, want %d:%d",
	      key ? key : "-", v->line, v->col, line, col);
}

/* Objects, arrays, repeated keys in order, numbers as written, positions. */
static void json_values(void)
{
	static const char doc[] =
		"{\n"
		"  'a': {'b': [1, -2.5e+3, 'x'], 'b': null},\n"
		"\t't': true, 'f': false, 'z': -0, 'E': 1E400,\n"
		"  'big': 123456789012345678901234567890,\n"
		"  'e': [], 'o': {}, '': 0.5e-2\n"
		"}\n";
	char err[256] = "";
	struct dlgen_json *v = jparse(doc, err, sizeof(err));
	const struct dlgen_json *a, *arr;

	REQUIRE(v, "refused: %s", err);
	node_is(v, DLGEN_JSON_OBJECT, NULL, NULL, 1, 1);
	a = nth(v, 0);
	node_is(a, DLGEN_JSON_OBJECT, "a", NULL, 2, 8);
	arr = nth(a, 0);
	node_is(arr, DLGEN_JSON_ARRAY, "b", NULL, 2, 14);
	node_is(nth(arr, 0), DLGEN_JSON_NUMBER, NULL, "1", 2, 15);
	node_is(nth(arr, 1), DLGEN_JSON_NUMBER, NULL, "-2.5e+3", 2, 18);
	node_is(nth(arr, 2), DLGEN_JSON_STRING, NULL, "x", 2, 27);
	CHECK(!nth(arr, 2)->next, "a fourth element");
	node_is(nth(a, 1), DLGEN_JSON_NULL, "b", NULL, 2, 38);
	node_is(nth(v, 1), DLGEN_JSON_BOOL, "t", NULL, 3, 7);
	CHECK(nth(v, 1)->boolean, "true is false");
	node_is(nth(v, 2), DLGEN_JSON_BOOL, "f", NULL, 3, 18);
	CHECK(!nth(v, 2)->boolean, "false is true");
	node_is(nth(v, 3), DLGEN_JSON_NUMBER, "z", "-0", 3, 30);
	node_is(nth(v, 4), DLGEN_JSON_NUMBER, "E", "1E400", 3, 39);
	node_is(nth(v, 5), DLGEN_JSON_NUMBER, "big",
		"123456789012345678901234567890", 4, 10);
	node_is(nth(v, 6), DLGEN_JSON_ARRAY, "e", NULL, 5, 8);
	CHECK(!nth(v, 6)->child, "[] has a child");
	node_is(nth(v, 7), DLGEN_JSON_OBJECT, "o", NULL, 5, 17);
	CHECK(!nth(v, 7)->child, "{} has a child");
	node_is(nth(v, 8), DLGEN_JSON_NUMBER, "", "0.5e-2", 5, 25);
	CHECK(!nth(v, 8)->next, "a tenth member");
	dlgen_json_free(v);
	/* scalars at the top, in space */
	v = jparse(" \r\n\t 42 \n", err, sizeof(err));
	REQUIRE(v, "42 refused: %s", err);
	node_is(v, DLGEN_JSON_NUMBER, NULL, "42", 2, 3);
	dlgen_json_free(v);
	v = jparse("null", err, sizeof(err));
	REQUIRE(v, "null refused: %s", err);
	node_is(v, DLGEN_JSON_NULL, NULL, NULL, 1, 1);
	dlgen_json_free(v);
}

static void string_is(const char *json, const char *want)
{
	char err[256] = "";
	struct dlgen_json *v = dlgen_json_parse(json, strlen(json), err,
						sizeof(err));

	CHECK(v && v->type == DLGEN_JSON_STRING && !strcmp(v->str, want),
	      "%s: \"%s\" (%s)", json, v && v->str ? vis(v->str) : "-", err);
	dlgen_json_free(v);
}

/* Every escape, \u in both cases, surrogate pairs, UTF-8 as is. */
static void json_string_escapes(void)
{
	string_is("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t");
	string_is("\"\\u0041\\u00e9\\u00E9\"", "A\xc3\xa9\xc3\xa9");
	string_is("\"\\u007f\\u0080\\u07ff\\u0800\"",
		  "\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80");
	string_is("\"\\u20AC\\uffff\"", "\xe2\x82\xac\xef\xbf\xbf");
	string_is("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80");
	string_is("\"\\uDBFF\\uDFFF\"", "\xf4\x8f\xbf\xbf");
	string_is("\"caf\xc3\xa9 \xe2\x82\xac\"", "caf\xc3\xa9 \xe2\x82\xac");
	string_is("\"a//b/*c*/\"", "a//b/*c*/");
	string_is("\"\"", "");
	string_is("\"\x7f\"", "\x7f");
}

/* json-c's leniencies, which rt-app's own files rely on. */
static void json_comments_trailing_commas(void)
{
	static const char doc[] =
		"// rt-app example\n"
		"{ /* global\n"
		"     keys */ 'a': [1, 2, ], // two\n"
		"  'b': {'c': 1,},\n"
		"}\n"
		"/* end */ // really\n";
	char err[256] = "";
	struct dlgen_json *v = jparse(doc, err, sizeof(err));

	REQUIRE(v, "refused: %s", err);
	node_is(nth(v, 0), DLGEN_JSON_ARRAY, "a", NULL, 3, 19);
	node_is(nth(nth(v, 0), 1), DLGEN_JSON_NUMBER, NULL, "2", 3, 23);
	CHECK(!nth(nth(v, 0), 1)->next, "trailing comma made an element");
	node_is(nth(v, 1), DLGEN_JSON_OBJECT, "b", NULL, 4, 8);
	node_is(nth(nth(v, 1), 0), DLGEN_JSON_NUMBER, "c", "1", 4, 14);
	dlgen_json_free(v);
}

/* Each syntax error, named where it is. */
static void json_syntax_errors(void)
{
	json_bad("", "1:1: unexpected end of input, value expected");
	json_bad("  \n  ", "2:3: unexpected end of input, value expected");
	json_bad("{", "1:2: unexpected end of input, member name (a string) expected");
	json_bad("[", "1:2: unexpected end of input, value expected");
	json_bad("[1", "1:3: unexpected end of input, ',' or ']' expected");
	json_bad("{'a'", "1:5: unexpected end of input, ':' expected");
	json_bad("{'a':", "1:6: unexpected end of input, value expected");
	json_bad("{'a':1", "1:7: unexpected end of input, ',' or '}' expected");
	json_bad("[,]", "1:2: value expected");
	json_bad("[1,,2]", "1:4: value expected");
	json_bad("[1 2]", "1:4: ',' or ']' expected");
	json_bad("[1}", "1:3: ',' or ']' expected");
	json_bad("{'a':1]", "1:7: ',' or '}' expected");
	json_bad("{\n  'a' 1}", "2:7: ':' expected");
	json_bad("{a:1}", "1:2: member name (a string) expected");
	json_bad("{1:1}", "1:2: member name (a string) expected");
	json_bad("{'a':1,,}", "1:8: member name (a string) expected");
	json_bad("{,}", "1:2: member name (a string) expected");
	json_bad("'abc", "1:1: string does not end");
	json_bad("{'a': 'b\\'}", "1:7: string does not end");
	json_bad("{'a':\n  'x\\qy'}", "2:5: bad escape '\\q'");
	json_bad("'\\x41'", "1:2: bad escape '\\x'");
	json_bad("'\\U0041'", "1:2: bad escape '\\U'");
	json_bad("'\\u12'", "1:2: bad \\u escape");
	json_bad("'\\u12G4'", "1:2: bad \\u escape");
	json_bad("'ab\\u'", "1:4: bad \\u escape");
	json_bad("'\\udc00'", "1:2: lone low surrogate in \\u escape");
	json_bad("'\\ud800'", "1:2: high surrogate without its pair");
	json_bad("'\\ud800x'", "1:2: high surrogate without its pair");
	json_bad("'\\ud800\\u0041'", "1:2: high surrogate without its pair");
	json_bad("'\\ud800\\ud800'", "1:2: high surrogate without its pair");
	json_bad("'a\\u0000b'", "1:3: \\u0000 is not supported (a string cannot hold NUL)");
	json_bad("'a\tb'", "1:3: control character in a string");
	json_bad("[\n'a\nb']", "2:3: control character in a string");
	json_bad("01", "1:2: text after the end of the value");
	json_bad("{} {}", "1:4: text after the end of the value");
	json_bad("[1]]", "1:4: text after the end of the value");
	json_bad("truex", "1:5: text after the end of the value");
	json_bad("-", "1:1: bad number");
	json_bad("[-a]", "1:2: bad number");
	json_bad("1.", "1:3: digits expected after '.'");
	json_bad("1.e5", "1:3: digits expected after '.'");
	json_bad("1e", "1:3: digits expected in the exponent");
	json_bad("[1e+]", "1:5: digits expected in the exponent");
	json_bad(".5", "1:1: value expected");
	json_bad("+1", "1:1: value expected");
	json_bad("tru", "1:1: value expected");
	json_bad("True", "1:1: value expected");
	json_bad("nul", "1:1: value expected");
	json_bad("NaN", "1:1: value expected");
	json_bad("[Infinity]", "1:2: value expected");
	json_bad("/", "1:1: unexpected '/'");
	json_bad("1 /x", "1:3: unexpected '/'");
	json_bad("/* x", "1:1: comment does not end");
	json_bad("[1, /* x *", "1:5: comment does not end");
	/* where the comment starts, however many lines it runs over */
	json_bad("{\n  /* a\nb\nccc", "2:3: comment does not end");
	json_bad("{\n\n /*\n\n*", "3:2: comment does not end");
	json_bad_raw("[1,\0 2]", 7, "1:4: value expected");
	json_bad_raw("\"a\0b\"", 5, "1:3: control character in a string");
}

/* 64 levels are read; the 65th bracket is refused, the stack spared. */
static void json_depth_limit(void)
{
	char err[256] = "", want[64], *s = malloc(200001);
	struct dlgen_json *v;
	int i;

	REQUIRE(s, "out of memory");
	for (i = 0; i < 64; i++) {
		s[i] = '[';
		s[128 - 1 - i] = ']';
	}
	v = dlgen_json_parse(s, 128, err, sizeof(err));
	CHECK(v, "64 levels refused: %s", err);
	for (i = 0; v && i < 63; i++)
		v = v->child;
	CHECK(v && v->type == DLGEN_JSON_ARRAY && !v->child,
	      "the 64th level is not an empty array");
	memset(s, '[', 200000);
	s[200000] = '\0';
	v = dlgen_json_parse(s, 200000, err, sizeof(err));
	snprintf(want, sizeof(want), "1:65: nested too deeply");
	CHECK(!v && !strcmp(err, want), "200000 '[': %s", err);
	/* objects alike: the 65th '{' of {"a": {"a": ... */
	for (i = 0; i < 65; i++)
		memcpy(s + i * 6, "{\"a\": ", 6);
	v = dlgen_json_parse(s, 65 * 6, err, sizeof(err));
	CHECK(!v && !strcmp(err, "1:385: nested too deeply"),
	      "65 objects: %s", err);
	free(s);
}

static void json_type_names(void)
{
	CHECK(!strcmp(dlgen_json_type_name(DLGEN_JSON_NULL), "null") &&
	      !strcmp(dlgen_json_type_name(DLGEN_JSON_BOOL), "a boolean") &&
	      !strcmp(dlgen_json_type_name(DLGEN_JSON_NUMBER), "a number") &&
	      !strcmp(dlgen_json_type_name(DLGEN_JSON_STRING), "a string") &&
	      !strcmp(dlgen_json_type_name(DLGEN_JSON_ARRAY), "an array") &&
	      !strcmp(dlgen_json_type_name(DLGEN_JSON_OBJECT), "an object"),
	      "type names");
}

/* ---- rt-app files (dlgen/jconf.c) ---- */

/*
 * Reads @text (single quotes for double) into @c; 0 or -1 with the
 * message in @err.  What it notes on stderr is returned in *@notes.
 */
static int jconf(struct dlgen_conf *c, const char *text, char *err,
		 size_t len, char **notes)
{
	char *t = dq(text), *n;
	struct capture cap;
	int r;

	err[0] = '\0';
	capture_start(&cap);
	r = dlgen_conf_json(c, t, strlen(t), err, len);
	n = capture_end(&cap);
	free(t);
	if (notes)
		*notes = n;
	else
		free(n);
	return r;
}

/* Refused with exactly @want, and nothing noted. */
static void jconf_bad(const char *text, const char *want)
{
	struct dlgen_conf c = { .duration = -1 };
	char err[512], *notes;
	int r = jconf(&c, text, err, sizeof(err), &notes);

	CHECK(r == -1 && !strcmp(err, want),
	      "%s:\n#   got  \"%s\"\n#   want \"%s\"", vis(text),
	      r ? err : "(accepted)", want);
	CHECK(!*notes, "%s: noted \"%s\"", vis(text), vis(notes));
	free(notes);
	dlgen_conf_free(&c);
}

/* A task of one run and one timer: the tasks: {'t1': {...}} of @body. */
#define TASK(body) "{'tasks': {'t1': {" body "}}}"
#define JOB "'run': 1000, 'timer': {'ref': 'r', 'period': 10000}"

static void event_is(const struct dlgen_event *e, enum dlgen_event_type type,
		     uint64_t ns, int timer)
{
	CHECK(e->type == type && e->ns == ns &&
	      (type != DLGEN_TIMER || e->timer == timer),
	      "event type %d ns %llu timer %d, want %d %llu %d", e->type,
	      (unsigned long long)e->ns, e->timer, type,
	      (unsigned long long)ns, timer);
}

/* The least file: a run, a timer; rt-app's defaults. */
static void jconf_minimal_task(void)
{
	struct dlgen_conf c = { .duration = -1 };
	const struct dlgen_task *t;
	const struct dlgen_phase *p;
	char err[512];

	REQUIRE(!jconf(&c, TASK(JOB), err, sizeof(err), NULL), "%s", err);
	REQUIRE(c.ntasks == 1, "%d tasks", c.ntasks);
	t = c.tasks;
	CHECK(!strcmp(t->name, "t1"), "name %s", t->name);
	CHECK(t->policy == SCHED_OTHER && t->priority == 0 &&
	      t->instances == 1 && t->loop == -1 && !t->has_cpus,
	      "policy %d priority %d instances %d loop %ld cpus %d",
	      t->policy, t->priority, t->instances, t->loop, t->has_cpus);
	CHECK(!t->runtime && !t->deadline && !t->period, "dl parameters set");
	REQUIRE(t->nphases == 1 && t->phases->nevents == 2, "%d phases",
		t->nphases);
	p = t->phases;
	event_is(&p->events[0], DLGEN_RUN, 1 * MS, 0);
	event_is(&p->events[1], DLGEN_TIMER, 10 * MS, 0);
	CHECK(p->loop == 1 && p->run == 1 * MS && p->period == 10 * MS &&
	      p->deadline == 10 * MS, "phase loop %ld run %llu period %llu deadline %llu",
	      p->loop, (unsigned long long)p->run,
	      (unsigned long long)p->period, (unsigned long long)p->deadline);
	REQUIRE(t->ntimers == 1, "%d timers", t->ntimers);
	/* rt-app's timers are relative unless a use says absolute */
	CHECK(!strcmp(t->timers[0].ref, "r") && !t->timers[0].absolute &&
	      !t->timers[0].mode_given, "timer %s absolute %d given %d",
	      t->timers[0].ref, t->timers[0].absolute,
	      t->timers[0].mode_given);
	CHECK(c.duration == -1, "duration %lld", (long long)c.duration);
	dlgen_conf_free(&c);
}

/* dl-runtime, dl-deadline, dl-period, and rt-app's defaults for them. */
static void jconf_deadline_params(void)
{
	static const struct {
		const char *keys;
		uint64_t r, d, p;
	} v[] = {
		{ "'dl-runtime': 10000, 'dl-deadline': '30ms', 'dl-period': 100000",
		  10 * MS, 30 * MS, 100 * MS },
		{ "'dl-period': '0.1s', 'dl-runtime': 10000",
		  10 * MS, 100 * MS, 100 * MS },
		{ "'dl-runtime': 10000", 10 * MS, 10 * MS, 10 * MS },
		{ "'dl-runtime': 10000, 'dl-deadline': 20000",
		  10 * MS, 20 * MS, 10 * MS },
		{ "'dl-runtime': 1.5, 'dl-period': 2", 1500, 2000, 2000 },
	};
	char text[512], err[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		struct dlgen_conf c = { .duration = -1 };
		const struct dlgen_task *t;
		int r;

		snprintf(text, sizeof(text),
			 TASK("'policy': 'SCHED_DEADLINE', %s, " JOB), v[i].keys);
		r = jconf(&c, text, err, sizeof(err), NULL);
		if (i == 3) {
			/* the deadline past the defaulted period */
			CHECK(r == -1 && !strcmp(err, "tasks.t1: 0 < dl-runtime <= dl-deadline <= dl-period does not hold"),
			      "%s: %s", v[i].keys, r ? err : "accepted");
			dlgen_conf_free(&c);
			continue;
		}
		REQUIRE(!r, "%s: %s", v[i].keys, err);
		t = c.tasks;
		CHECK(t->policy == SCHED_DEADLINE && t->runtime == v[i].r &&
		      t->deadline == v[i].d && t->period == v[i].p &&
		      t->priority == 0,
		      "%s: %llu/%llu/%llu", v[i].keys,
		      (unsigned long long)t->runtime,
		      (unsigned long long)t->deadline,
		      (unsigned long long)t->period);
		/* a deadline task's jobs are due at its relative deadline */
		CHECK(t->phases->deadline == v[i].d && t->phases->period == 10 * MS,
		      "%s: phase deadline %llu period %llu", v[i].keys,
		      (unsigned long long)t->phases->deadline,
		      (unsigned long long)t->phases->period);
		dlgen_conf_free(&c);
	}
}

/* Phases with their loops, events in the file's order, timers' modes. */
static void jconf_phases_loops(void)
{
	static const char doc[] =
		"{'tasks': {'w': {\n"
		"  'loop': 5, 'instance': 2, 'priority': 3,\n"
		"  'phases': {\n"
		"    'p1': {'loop': 3, 'run': 1000, 'sleep': 2000, 'run': '1ms'},\n"
		"    'p2': {'run0': 500, 'timer': {'ref': 'unique1', 'period': '10ms', 'mode': 'absolute'},\n"
		"           'sleep1': 0, 'timer1': {'period': 5000, 'ref': 'unique2'},\n"
		"           'run1': 250, 'timer2': {'ref': 'unique1', 'period': 20000}}\n"
		"  }}}}\n";
	struct dlgen_conf c = { .duration = -1 };
	const struct dlgen_phase *p;
	const struct dlgen_task *t;
	char err[512];

	REQUIRE(!jconf(&c, doc, err, sizeof(err), NULL), "%s", err);
	t = c.tasks;
	CHECK(c.ntasks == 1 && t->loop == 5 && t->instances == 2 &&
	      t->policy == SCHED_OTHER && t->priority == 3,
	      "%d tasks loop %ld instances %d policy %d priority %d", c.ntasks,
	      t->loop, t->instances, t->policy, t->priority);
	REQUIRE(t->nphases == 2, "%d phases", t->nphases);
	p = &t->phases[0];
	REQUIRE(p->nevents == 3, "p1: %d events", p->nevents);
	CHECK(p->loop == 3 && p->run == 2 * MS && p->period == 0 &&
	      p->deadline == 0, "p1: loop %ld run %llu period %llu deadline %llu",
	      p->loop, (unsigned long long)p->run,
	      (unsigned long long)p->period, (unsigned long long)p->deadline);
	event_is(&p->events[0], DLGEN_RUN, 1 * MS, 0);
	event_is(&p->events[1], DLGEN_SLEEP, 2 * MS, 0);
	event_is(&p->events[2], DLGEN_RUN, 1 * MS, 0);
	p = &t->phases[1];
	REQUIRE(p->nevents == 6, "p2: %d events", p->nevents);
	event_is(&p->events[0], DLGEN_RUN, 500000, 0);
	event_is(&p->events[1], DLGEN_TIMER, 10 * MS, 0);
	event_is(&p->events[2], DLGEN_SLEEP, 0, 0);
	event_is(&p->events[3], DLGEN_TIMER, 5 * MS, 1);
	event_is(&p->events[4], DLGEN_RUN, 250000, 0);
	event_is(&p->events[5], DLGEN_TIMER, 20 * MS, 0);
	/* a job waits 30 ms on unique1, 5 ms on unique2: it takes 30 */
	CHECK(p->loop == 1 && p->run == 750000 && p->period == 30 * MS &&
	      p->deadline == 30 * MS, "p2: loop %ld run %llu period %llu deadline %llu",
	      p->loop, (unsigned long long)p->run,
	      (unsigned long long)p->period, (unsigned long long)p->deadline);
	REQUIRE(t->ntimers == 2, "%d timers", t->ntimers);
	CHECK(t->timers[0].absolute && t->timers[0].mode_given &&
	      !t->timers[1].absolute && !t->timers[1].mode_given,
	      "modes %d/%d %d/%d", t->timers[0].absolute,
	      t->timers[0].mode_given, t->timers[1].absolute,
	      t->timers[1].mode_given);
	dlgen_conf_free(&c);
}

/* Several tasks, in the file's order; cpus; the demonstration's file. */
static void jconf_tasks_cpus(void)
{
	static const char doc[] =
		"{'global': {'duration': 1},\n"
		" 'tasks': {\n"
		"  'steady': {'policy': 'SCHED_DEADLINE', 'dl-runtime': 10000,\n"
		"    'dl-deadline': 50000, 'dl-period': 50000, 'run': 6000,\n"
		"    'timer': {'ref': 'steady', 'period': 50000}, 'cpus': [0]},\n"
		"  'fifo.2_x-Y': {'policy': 'SCHED_RR', 'cpus': [0, 0], " JOB "}}}";
	struct dlgen_conf c = { .duration = -1 };
	char err[512];

	REQUIRE(!jconf(&c, doc, err, sizeof(err), NULL), "%s", err);
	REQUIRE(c.ntasks == 2, "%d tasks", c.ntasks);
	CHECK(c.duration == (int64_t)S, "duration %lld",
	      (long long)c.duration);
	CHECK(!strcmp(c.tasks[0].name, "steady") &&
	      c.tasks[0].runtime == 10 * MS && c.tasks[0].deadline == 50 * MS &&
	      c.tasks[0].period == 50 * MS && c.tasks[0].has_cpus &&
	      !strcmp(cpus_of(&c.tasks[0]), "0"), "steady: %s %s",
	      c.tasks[0].name, cpus_of(&c.tasks[0]));
	CHECK(!strcmp(c.tasks[1].name, "fifo.2_x-Y") &&
	      c.tasks[1].policy == SCHED_RR &&
	      c.tasks[1].priority == DLGEN_RT_PRIO &&
	      !strcmp(cpus_of(&c.tasks[1]), "0"), "second: %s %d %d %s",
	      c.tasks[1].name, c.tasks[1].policy, c.tasks[1].priority,
	      cpus_of(&c.tasks[1]));
	dlgen_conf_free(&c);
}

/* global: duration, default_policy, the keys noted as ignored. */
static void jconf_global(void)
{
	struct dlgen_conf c = { .duration = -1 };
	char err[512], *notes;

	REQUIRE(!jconf(&c, "{'global': {'default_policy': 'SCHED_FIFO', 'duration': '2.5s',"
		       " 'calibration': 'CPU0', 'logdir': './', 'ftrace': false},"
		       " 'tasks': {'a': {" JOB "}, 'b': {'policy': 'SCHED_OTHER', 'run': 1}}}",
		       err, sizeof(err), &notes), "%s", err);
	CHECK(c.duration == 2500000000LL, "duration %lld",
	      (long long)c.duration);
	CHECK(c.tasks[0].policy == SCHED_FIFO &&
	      c.tasks[0].priority == DLGEN_RT_PRIO &&
	      c.tasks[1].policy == SCHED_OTHER && c.tasks[1].priority == 0,
	      "policies %d %d", c.tasks[0].policy, c.tasks[1].policy);
	CHECK(!strcmp(notes,
		      "dlgen: note: global.calibration ignored: run events burn thread CPU time: nothing to calibrate\n"
		      "dlgen: note: global.logdir ignored: dlgen writes one job log: see --log\n"
		      "dlgen: note: global.ftrace ignored: dlgen writes no trace marks\n"),
	      "notes: %s", vis(notes));
	free(notes);
	dlgen_conf_free(&c);
	/* -1: until the tasks end; seconds when bare */
	c.duration = 7;
	REQUIRE(!jconf(&c, "{'tasks': {'a': {" JOB "}}, 'global': {'duration': -1}}",
		       err, sizeof(err), NULL), "%s", err);
	CHECK(c.duration == -1, "duration -1: %lld", (long long)c.duration);
	dlgen_conf_free(&c);
	REQUIRE(!jconf(&c, "{'global': {'duration': 3}, 'tasks': {'a': {" JOB "}}}",
		       err, sizeof(err), NULL), "%s", err);
	CHECK(c.duration == 3 * (int64_t)S, "duration 3: %lld",
	      (long long)c.duration);
	dlgen_conf_free(&c);
	REQUIRE(!jconf(&c, "{'global': {'duration': '9223372036s'}, 'tasks': {'a': {" JOB "}}}",
		       err, sizeof(err), NULL), "%s", err);
	CHECK(c.duration == 9223372036000000000LL, "duration: %lld",
	      (long long)c.duration);
	dlgen_conf_free(&c);
	jconf_bad("{'global': {'duration': 0}, 'tasks': {'a': {" JOB "}}}",
		  "global.duration: must be -1 or more than 0");
	jconf_bad("{'global': {'duration': -2}, 'tasks': {'a': {" JOB "}}}",
		  "global.duration: \"-2\" is not a duration");
	jconf_bad("{'global': {'duration': '9223372037s'}, 'tasks': {'a': {" JOB "}}}",
		  "global.duration: \"9223372037s\" is not a duration");
	jconf_bad("{'global': {'duration': true}, 'tasks': {'a': {" JOB "}}}",
		  "global.duration: a duration expected (a number, or a string with a unit: \"10ms\"), not a boolean");
	jconf_bad("{'global': {'duration': 1, 'duration': 2}, 'tasks': {'a': {" JOB "}}}",
		  "global.duration: duplicate key");
	jconf_bad("{'global': {'default_policy': 'SCHED_BATCH'}, 'tasks': {'a': {" JOB "}}}",
		  "global.default_policy: \"SCHED_BATCH\": unsupported policy (SCHED_OTHER, SCHED_FIFO, SCHED_RR or SCHED_DEADLINE)");
	jconf_bad("{'global': {'default_policy': 'SCHED_DEADLINE'}, 'tasks': {'a': {" JOB "}}}",
		  "tasks.a: SCHED_DEADLINE needs dl-runtime");
	jconf_bad("{'global': [], 'tasks': {'a': {" JOB "}}}",
		  "global: an object expected, not an array");
}

/* What dlgen does not run is an error that names the key. */
static void jconf_unsupported_keys(void)
{
	jconf_bad("{'tasks': {'a': {" JOB "}}, 'resources': {}}",
		  "resources: unsupported key");
	jconf_bad("{'global': {'frobnicate': 1}, 'tasks': {'a': {" JOB "}}}",
		  "global.frobnicate: unsupported key");
	jconf_bad(TASK(JOB ", 'runtime': 5"), "tasks.t1.runtime: unsupported key");
	jconf_bad(TASK(JOB ", 'lock': 'm'"), "tasks.t1.lock: unsupported key");
	jconf_bad(TASK(JOB ", 'runx': 1"), "tasks.t1.runx: unsupported key");
	jconf_bad(TASK(JOB ", 'run-1': 1"), "tasks.t1.run-1: unsupported key");
	jconf_bad(TASK(JOB ", 'delay': 1"), "tasks.t1.delay: unsupported key");
	jconf_bad(TASK(JOB ", 'util_min': 1"), "tasks.t1.util_min: unsupported key");
	jconf_bad(TASK("'phases': {'p1': {" JOB ", 'cpus': [0]}}"),
		  "tasks.t1.phases.p1.cpus: unsupported key");
	jconf_bad(TASK("'phases': {'p1': {'run': 1, 'barrier': 'b'}}"),
		  "tasks.t1.phases.p1.barrier: unsupported key");
	jconf_bad(TASK("'run': 1, 'timer': {'ref': 'r', 'period': 1, 'jitter': 1}"),
		  "tasks.t1.timer.jitter: unsupported key");
}

/* Values of the wrong type or out of range, each named. */
static void jconf_value_errors(void)
{
	jconf_bad(TASK("'policy': 'SCHED_IDLE', " JOB),
		  "tasks.t1.policy: \"SCHED_IDLE\": unsupported policy (SCHED_OTHER, SCHED_FIFO, SCHED_RR or SCHED_DEADLINE)");
	jconf_bad(TASK("'policy': 6, " JOB),
		  "tasks.t1.policy: a string expected, not a number");
	jconf_bad(TASK("'policy': 'SCHED_DEADLINE', 'dl-runtime': 1, 'priority': 1, " JOB),
		  "tasks.t1.priority: SCHED_DEADLINE has no priority");
	jconf_bad(TASK("'policy': 'SCHED_FIFO', 'priority': 100, " JOB),
		  "tasks.t1.priority: 100 is not from 1 to 99");
	jconf_bad(TASK("'policy': 'SCHED_RR', 'priority': 0, " JOB),
		  "tasks.t1.priority: 0 is not from 1 to 99");
	jconf_bad(TASK("'priority': -21, " JOB),
		  "tasks.t1.priority: -21 is not from -20 to 19");
	jconf_bad(TASK("'priority': '5', " JOB),
		  "tasks.t1.priority: a number expected, not a string");
	jconf_bad(TASK("'loop': 0, " JOB),
		  "tasks.t1.loop: 0 is neither -1 (until the end) nor a count");
	jconf_bad(TASK("'loop': -2, " JOB),
		  "tasks.t1.loop: -2 is not from -1 to 9223372036854775807");
	jconf_bad(TASK("'loop': 1.5, " JOB),
		  "tasks.t1.loop: an integer expected, not 1.5");
	jconf_bad(TASK("'loop': 1e3, " JOB),
		  "tasks.t1.loop: an integer expected, not 1e3");
	jconf_bad(TASK("'loop': 99999999999999999999, " JOB),
		  "tasks.t1.loop: an integer expected, not 99999999999999999999");
	jconf_bad(TASK("'instance': 257, " JOB),
		  "tasks.t1.instance: 257 is not from 0 to 256");
	jconf_bad(TASK("'loop': 1, 'loop': 2, " JOB),
		  "tasks.t1.loop: duplicate key");
	jconf_bad(TASK("'run': 0, 'timer': {'ref': 'r', 'period': 1}"),
		  "tasks.t1.run: must not be 0");
	jconf_bad(TASK("'run': -1"), "tasks.t1.run: \"-1\" is not a duration");
	jconf_bad(TASK("'run': 1e3"), "tasks.t1.run: \"1e3\" is not a duration");
	jconf_bad(TASK("'run': '10 ms'"),
		  "tasks.t1.run: \"10 ms\" is not a duration");
	jconf_bad(TASK("'run': 99999999999999999999"),
		  "tasks.t1.run: \"99999999999999999999\" is not a duration");
	jconf_bad(TASK("'run': [1]"),
		  "tasks.t1.run: a duration expected (a number, or a string with a unit: \"10ms\"), not an array");
	jconf_bad(TASK("'sleep': null, 'run': 1"),
		  "tasks.t1.sleep: a duration expected (a number, or a string with a unit: \"10ms\"), not null");
	jconf_bad(TASK("'sleep': 1000"), "tasks.t1: no run event: a job must run");
	jconf_bad(TASK("'run': 1, 'timer': 10000"),
		  "tasks.t1.timer: an object expected, not a number");
	jconf_bad(TASK("'run': 1, 'timer': {'ref': 'r'}"),
		  "tasks.t1.timer: a timer needs a \"ref\" and a \"period\"");
	jconf_bad(TASK("'run': 1, 'timer': {'period': 1}"),
		  "tasks.t1.timer: a timer needs a \"ref\" and a \"period\"");
	jconf_bad(TASK("'run': 1, 'timer': {'ref': 'r', 'period': 0}"),
		  "tasks.t1.timer.period: must not be 0");
	jconf_bad(TASK("'run': 1, 'timer': {'ref': 1, 'period': 1}"),
		  "tasks.t1.timer.ref: a string expected, not a number");
	jconf_bad(TASK("'run': 1, 'timer': {'ref': 'r', 'ref': 'q', 'period': 1}"),
		  "tasks.t1.timer.ref: duplicate key");
	jconf_bad(TASK("'run': 1, 'timer': {'ref': 'r', 'period': 1, 'mode': 'sometimes'}"),
		  "tasks.t1.timer.mode: \"sometimes\" is neither \"relative\" nor \"absolute\"");
	jconf_bad(TASK("'run': 1, 'timer': {'ref': 'r', 'period': 1, 'mode': 'absolute'},"
		       " 'timer1': {'ref': 'r', 'period': 1, 'mode': 'relative'}"),
		  "tasks.t1.timer1.mode: timer \"r\" is used with another mode elsewhere");
	jconf_bad(TASK("'cpus': [], " JOB), "tasks.t1.cpus: no CPU");
	jconf_bad(TASK("'cpus': 0, " JOB),
		  "tasks.t1.cpus: an array expected, not a number");
	jconf_bad(TASK("'cpus': ['0'], " JOB), "tasks.t1.cpus: CPU numbers expected");
	jconf_bad(TASK("'cpus': [-1], " JOB), "tasks.t1.cpus: CPU numbers expected");
	jconf_bad(TASK("'cpus': [1024], " JOB), "tasks.t1.cpus: CPU numbers expected");
	jconf_bad(TASK("'cpus': [0.5], " JOB), "tasks.t1.cpus: CPU numbers expected");
	jconf_bad(TASK("'cpus': [0, 1023], " JOB), "tasks.t1.cpus: there is no CPU 1023");
}

/* The deadline rules, and what belongs to SCHED_DEADLINE only. */
static void jconf_deadline_errors(void)
{
	static const char *const bad[] = {
		"'dl-runtime': 20000, 'dl-deadline': 10000, 'dl-period': 30000",
		"'dl-runtime': 10000, 'dl-deadline': 40000, 'dl-period': 30000",
		"'dl-runtime': 40000, 'dl-period': 30000",
		"'dl-runtime': 0, 'dl-period': 30000",
		"'dl-runtime': '0.0001ns', 'dl-period': 30000",
	};
	char text[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(text, sizeof(text),
			 TASK("'policy': 'SCHED_DEADLINE', %s, " JOB), bad[i]);
		jconf_bad(text, "tasks.t1: 0 < dl-runtime <= dl-deadline <= dl-period does not hold");
	}
	jconf_bad(TASK("'policy': 'SCHED_DEADLINE', " JOB),
		  "tasks.t1: SCHED_DEADLINE needs dl-runtime");
	jconf_bad(TASK("'policy': 'SCHED_DEADLINE', 'dl-period': 1000, " JOB),
		  "tasks.t1: SCHED_DEADLINE needs dl-runtime");
	jconf_bad(TASK("'policy': 'SCHED_DEADLINE', 'dl-runtime': 'x', " JOB),
		  "tasks.t1.dl-runtime: \"x\" is not a duration");
	jconf_bad(TASK("'policy': 'SCHED_DEADLINE', 'dl-runtime': 1, 'dl-period': {}, " JOB),
		  "tasks.t1.dl-period: a duration expected (a number, or a string with a unit: \"10ms\"), not an object");
	jconf_bad(TASK("'dl-runtime': 1000, " JOB),
		  "tasks.t1.dl-runtime: only for SCHED_DEADLINE");
	jconf_bad(TASK("'policy': 'SCHED_FIFO', 'dl-deadline': 1000, " JOB),
		  "tasks.t1.dl-deadline: only for SCHED_DEADLINE");
	jconf_bad(TASK("'dl-period': 1000, " JOB),
		  "tasks.t1.dl-period: only for SCHED_DEADLINE");
}

/* The file's shape: the root, tasks, phases, names, shared timers. */
static void jconf_structure_errors(void)
{
	jconf_bad("[]", "the file is an array, not an object");
	jconf_bad("'tasks'", "the file is a string, not an object");
	jconf_bad("{}", "tasks: missing");
	jconf_bad("{'global': {'duration': 1}}", "tasks: missing");
	jconf_bad("{'tasks': {}}", "tasks: no task");
	jconf_bad("{'tasks': []}", "tasks: an object expected, not an array");
	jconf_bad("{'tasks': {'a': {" JOB "}}, 'tasks': {}}",
		  "tasks: duplicate key");
	jconf_bad("{'tasks': {'a': 1}}", "tasks.a: an object expected, not a number");
	jconf_bad("{'tasks': {'a': {}}}", "tasks.a: no run event: a job must run");
	jconf_bad("{'tasks': {'a': {" JOB "}, 'a': {" JOB "}}}",
		  "tasks.a: a second task of that name");
	jconf_bad("{'tasks': {'a b': {" JOB "}}}",
		  "tasks.a b: a task name is 1 to 48 letters, digits, '_', '.' or '-'");
	jconf_bad("{'tasks': {'': {" JOB "}}}",
		  "tasks: a task name is 1 to 48 letters, digits, '_', '.' or '-'");
	jconf_bad("{'tasks': {'a,b': {" JOB "}}}",
		  "tasks.a,b: a task name is 1 to 48 letters, digits, '_', '.' or '-'");
	jconf_bad("{'tasks': {'0123456789012345678901234567890123456789012345678': {" JOB "}}}",
		  "tasks.0123456789012345678901234567890123456789012345678: a task name is 1 to 48 letters, digits, '_', '.' or '-'");
	jconf_bad(TASK("'phases': {}"), "tasks.t1.phases: no phase");
	jconf_bad(TASK("'phases': []"), "tasks.t1.phases: an object expected, not an array");
	jconf_bad(TASK("'phases': {'p1': 1}"),
		  "tasks.t1.phases.p1: an object expected, not a number");
	jconf_bad(TASK("'phases': {'p1': {'sleep': 1}}"),
		  "tasks.t1.phases.p1: no run event: a job must run");
	jconf_bad(TASK("'phases': {'p1': {'run': 1, 'loop': 0}}"),
		  "tasks.t1.phases.p1.loop: 0 is not from 1 to 9223372036854775807");
	jconf_bad(TASK("'phases': {'p1': {'run': 1, 'loop': 2, 'loop': 2}}"),
		  "tasks.t1.phases.p1.loop: duplicate key");
	jconf_bad(TASK("'run': 1, 'phases': {'p1': {'run': 1}}"),
		  "tasks.t1: events beside \"phases\": put them in a phase");
	jconf_bad("{'tasks': {'a': {" JOB "}, 'b': {" JOB "}}}",
		  "tasks.a: timer \"r\" is also tasks.b's: shared timers are not supported");
	jconf_bad(TASK("'instance': 2, " JOB),
		  "tasks.t1: timer \"r\" would be shared by the instances: name it \"unique...\"");
	jconf_bad("{'tasks': {'a': {" JOB "}}", "1:71: unexpected end of input, ',' or '}' expected");
}

/* Timers named unique... are each thread's own: no sharing to refuse. */
static void jconf_unique_timers(void)
{
	struct dlgen_conf c = { .duration = -1 };
	char err[512];

	REQUIRE(!jconf(&c, "{'tasks': {"
		       "'a': {'instance': 3, 'run': 1, 'timer': {'ref': 'unique', 'period': 10}},"
		       "'b': {'run': 1, 'timer': {'ref': 'unique', 'period': 10}},"
		       "'c': {'instance': 0, 'run': 1, 'timer': {'ref': 'uniquely', 'period': 10}}}}",
		       err, sizeof(err), NULL), "%s", err);
	CHECK(c.ntasks == 3 && c.tasks[0].instances == 3 &&
	      c.tasks[2].instances == 0, "%d tasks", c.ntasks);
	dlgen_conf_free(&c);
}

/* ---- dlgen's small helpers ---- */

static void dlgen_helpers(void)
{
	cpu_set_t set;
	char buf[64];
	long v = 7;

	CPU_ZERO(&set);
	CHECK(!strcmp(dlgen_cpus_format(&set, buf, sizeof(buf)), ""),
	      "empty: \"%s\"", buf);
	CPU_SET(0, &set);
	CPU_SET(2, &set);
	CPU_SET(3, &set);
	CPU_SET(1023, &set);
	CHECK(!strcmp(dlgen_cpus_format(&set, buf, sizeof(buf)),
		      "0,2-3,1023"), "\"%s\"", buf);
	CHECK(!strcmp(dlgen_cpus_format(&set, buf, 4), "0,2"), "cut: \"%s\"",
	      buf);
	CHECK(!strcmp(dlgen_policy_name(SCHED_DEADLINE), "deadline") &&
	      !strcmp(dlgen_policy_name(SCHED_FIFO), "fifo") &&
	      !strcmp(dlgen_policy_name(SCHED_RR), "rr") &&
	      !strcmp(dlgen_policy_name(SCHED_OTHER), "other"),
	      "policy names");
	CHECK(!dlgen_parse_long("-12", &v) && v == -12, "-12: %ld", v);
	CHECK(!dlgen_parse_long("9223372036854775807", &v) && v == LONG_MAX,
	      "LONG_MAX: %ld", v);
	CHECK(dlgen_parse_long("", &v) && dlgen_parse_long("1 ", &v) &&
	      dlgen_parse_long("0x1", &v) && dlgen_parse_long("1.0", &v) &&
	      dlgen_parse_long("9223372036854775808", &v),
	      "accepted a bad integer");
}

/* ---- dlctl's figures (dlctl/task.c, dlctl/rd.c) ---- */

static void dlctl_bandwidth_figures(void)
{
	struct dlctl_rd rd = { .bw = 996147, .cap = 2048 };
	char buf[32];

	CHECK(dlctl_to_ratio(100 * MS, 10 * MS) == 104857, "10/100: %llu",
	      (unsigned long long)dlctl_to_ratio(100 * MS, 10 * MS));
	CHECK(dlctl_to_ratio(S, S) == 1048576 && dlctl_to_ratio(3, 1) == 349525 &&
	      dlctl_to_ratio(0, 5) == 0 && dlctl_to_ratio(5, 0) == 0,
	      "to_ratio");
	/* the kernel's shift overflows, and so does this one */
	CHECK(dlctl_to_ratio(1ULL << 45, 1ULL << 44) == 0,
	      "2^44 << 20 wraps: %llu",
	      (unsigned long long)dlctl_to_ratio(1ULL << 45, 1ULL << 44));
	CHECK(dlctl_rd_limit(&rd) == 1992294, "2 CPUs: %lld",
	      dlctl_rd_limit(&rd));
	rd.cap = 1024;
	CHECK(dlctl_rd_limit(&rd) == 996147, "1 CPU: %lld",
	      dlctl_rd_limit(&rd));
	rd.cap = 1536;
	CHECK(dlctl_rd_limit(&rd) == 1494220, "1.5 CPUs: %lld",
	      dlctl_rd_limit(&rd));
	rd.bw = 0;
	CHECK(dlctl_rd_limit(&rd) == 0, "limit 0: %lld", dlctl_rd_limit(&rd));
	rd.bw = -1;
	CHECK(dlctl_rd_limit(&rd) == -1, "no limit: %lld",
	      dlctl_rd_limit(&rd));
	CHECK(!strcmp(dlctl_bw_str(104857, buf, sizeof(buf)), "0.1000"),
	      "%s", buf);
	CHECK(!strcmp(dlctl_bw_str(996147, buf, sizeof(buf)), "0.9500"),
	      "%s", buf);
	CHECK(!strcmp(dlctl_bw_str(1048576, buf, sizeof(buf)), "1.0000"),
	      "%s", buf);
	CHECK(!strcmp(dlctl_bw_str(0, buf, sizeof(buf)), "0.0000"), "%s",
	      buf);
	CHECK(!strcmp(dlctl_bw_str(-52429, buf, sizeof(buf)), "-0.0500"),
	      "%s", buf);
}

static void dlctl_strings(void)
{
	static const struct {
		uint32_t policy;
		uint64_t flags;
		int nice;
		uint32_t prio;
		const char *want;
	} v[] = {
		{ SCHED_DEADLINE, DL_FLAG_RECLAIM | DL_FLAG_KEEP_POLICY, 0, 0,
		  "SCHED_DEADLINE runtime 10ms deadline 30ms period 100ms flags reclaim" },
		{ SCHED_FIFO, 0, 0, 10, "SCHED_FIFO priority 10 flags none" },
		{ SCHED_RR, DL_FLAG_RESET_ON_FORK, 0, 99,
		  "SCHED_RR priority 99 flags reset-on-fork" },
		{ SCHED_OTHER, 0, -5, 0, "SCHED_OTHER nice -5 flags none" },
		{ 3, 0, 19, 0, "SCHED_BATCH nice 19 flags none" },
		{ 5, 0, 0, 0, "SCHED_IDLE flags none" },
		{ 4, 0, 0, 0, "policy 4 flags none" },
		{ 7, 0, 0, 0, "SCHED_EXT flags none" },
		{ 99, 0, 0, 0, "policy 99 flags none" },
	};
	char buf[128];
	cpu_set_t set;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		struct dl_attr a = dl_attr_make(10 * MS, 30 * MS, 100 * MS,
						v[i].flags);

		a.sched_policy = v[i].policy;
		a.sched_nice = v[i].nice;
		a.sched_priority = v[i].prio;
		dlctl_sched_str(&a, buf, sizeof(buf));
		CHECK(!strcmp(buf, v[i].want), "\"%s\", want \"%s\"", buf,
		      v[i].want);
	}
	CHECK(!strcmp(dlctl_flags_str(0, buf, sizeof(buf)), "none"), "%s", buf);
	CHECK(!strcmp(dlctl_flags_str(7, buf, sizeof(buf)),
		      "reset-on-fork,reclaim,overrun"), "%s", buf);
	CHECK(!strcmp(dlctl_flags_str(6, buf, sizeof(buf)), "reclaim,overrun"),
	      "%s", buf);
	CHECK(!strcmp(dlctl_flags_str(DL_FLAG_KEEP_PARAMS, buf, sizeof(buf)),
		      "none"), "%s", buf);
	CHECK(!strcmp(dlctl_flags_str(7, buf, 8), "reset-o"), "cut: %s", buf);
	CPU_ZERO(&set);
	CHECK(!strcmp(dlctl_cpulist(&set, buf, sizeof(buf)), "none"), "%s",
	      buf);
	for (i = 0; i < 4; i++)
		CPU_SET(i, &set);
	CPU_SET(5, &set);
	CHECK(!strcmp(dlctl_cpulist(&set, buf, sizeof(buf)), "0-3,5"), "%s",
	      buf);
	CHECK(!strcmp(dlctl_cpulist(&set, buf, 4), "0-3"), "cut: %s", buf);
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	CPU_SET(3, &set);
	CPU_SET(1023, &set);
	CHECK(!strcmp(dlctl_cpulist(&set, buf, sizeof(buf)), "1,3,1023"),
	      "%s", buf);
}

/* What the deadline tasks of a root domain hold; the domain of a CPU. */
static void dlctl_root_domains(void)
{
	struct dlctl_dl_task t[4] = {
		{ .home = 0, .attr = dl_attr_make(10 * MS, 100 * MS, 100 * MS, 0) },
		{ .home = 1, .attr = dl_attr_make(5 * MS, 50 * MS, 50 * MS, 0) },
		{ .home = -1, .attr = dl_attr_make(MS, MS, MS, 0) },
		{ .home = 2, .attr = dl_attr_make(MS, MS, MS, 0) },
	};
	struct dlctl_rds *rds = calloc(1, sizeof(*rds));
	int count = -1;

	REQUIRE(rds, "out of memory");
	CPU_SET(0, &rds->rd[0].cpus);
	CPU_SET(1, &rds->rd[0].cpus);
	CPU_SET(2, &rds->rd[1].cpus);
	rds->n = 2;
	CHECK(dlctl_held_in(&rds->rd[0].cpus, t, 4, &count) == 209714 &&
	      count == 2, "held %lld by %d",
	      dlctl_held_in(&rds->rd[0].cpus, t, 4, &count), count);
	CHECK(dlctl_held_in(&rds->rd[1].cpus, t, 4, &count) == 1048576 &&
	      count == 1, "held by %d", count);
	CHECK(dlctl_held_in(&rds->rd[1].cpus, t, 0, &count) == 0 && !count,
	      "no tasks: %d", count);
	CHECK(dlctl_rd_of_cpu(rds, 1) == &rds->rd[0] &&
	      dlctl_rd_of_cpu(rds, 2) == &rds->rd[1] &&
	      !dlctl_rd_of_cpu(rds, 3) && !dlctl_rd_of_cpu(rds, -1),
	      "rd_of_cpu");
	free(rds);
}

/* ---- dlctl's explanation of EINVAL (dlctl/explain.c) ---- */

/* The line about the period sysctls @p breaks, "" if none, as dlctl reads them. */
static const char *period_rule(uint64_t p)
{
	long min = sysctl_get("sched_deadline_period_min_us");
	long max = sysctl_get("sched_deadline_period_max_us");
	static char line[256];
	char a[32], b[32], c[32];

	line[0] = '\0';
	if (min >= 0 && max >= 0 &&
	    (p < (uint64_t)min * 1000 || p > (uint64_t)max * 1000))
		snprintf(line, sizeof(line),
			 "dlctl:   rule broken: period %s is outside %s..%s (kernel.sched_deadline_period_min_us, _max_us)\n",
			 format_duration(p, a, sizeof(a)),
			 format_duration(min * 1000, b, sizeof(b)),
			 format_duration(max * 1000, c, sizeof(c)));
	return line;
}

static void explain_is(int err, uint64_t r, uint64_t d, uint64_t p,
		       uint64_t flags, const char *want)
{
	struct dl_attr a = dl_attr_make(r, d, p, flags);
	struct capture cap;
	char *got;

	capture_start(&cap);
	dlctl_explain(err, 42, "pid 42", &a);
	got = capture_end(&cap);
	CHECK(!strcmp(got, want), "%d %llu/%llu/%llu:\n#   got  \"%s\"\n#   want \"%s\"",
	      err, (unsigned long long)r, (unsigned long long)d,
	      (unsigned long long)p, vis(got), vis(want));
	free(got);
}

#define EINVAL_HEAD "dlctl: pid 42: SCHED_DEADLINE refused: Invalid argument (EINVAL)\n"
#define RULE "dlctl:   rule broken: "
#define ORDER " (runtime <= deadline <= period)\n"

/* Each rule of __checkparam_dl, alone and together, in the kernel's order. */
static void dlctl_explain_einval(void)
{
	char want[1024];

	snprintf(want, sizeof(want), EINVAL_HEAD RULE "deadline is 0\n"
		 RULE "runtime 0ns is below the minimum 1024ns (the kernel keeps runtimes in units of 1024ns)\n%s",
		 period_rule(0));
	explain_is(EINVAL, 0, 0, 0, 0, want);
	snprintf(want, sizeof(want), EINVAL_HEAD
		 RULE "runtime 1023ns is below the minimum 1024ns (the kernel keeps runtimes in units of 1024ns)\n");
	explain_is(EINVAL, 1023, 30 * MS, 100 * MS, 0, want);
	explain_is(EINVAL, 10 * MS, 5 * MS, 100 * MS, 0,
		   EINVAL_HEAD RULE "runtime 10ms > deadline 5ms" ORDER);
	explain_is(EINVAL, 10 * MS, 200 * MS, 100 * MS, 0,
		   EINVAL_HEAD RULE "deadline 200ms > period 100ms" ORDER);
	explain_is(EINVAL, 10 * MS, 200 * MS, 100 * MS, 0,
		   EINVAL_HEAD RULE "deadline 200ms > period 100ms" ORDER);
	snprintf(want, sizeof(want), EINVAL_HEAD
		 RULE "deadline 9223372036854775808ns or period 0ns is 2^63ns or more\n%s",
		 period_rule(TWO63));
	explain_is(EINVAL, 10 * MS, TWO63, 0, 0, want);
	snprintf(want, sizeof(want), EINVAL_HEAD
		 RULE "deadline 1s or period 9223372036854775808ns is 2^63ns or more\n%s",
		 period_rule(TWO63));
	explain_is(EINVAL, 10 * MS, S, TWO63, 0, want);
	snprintf(want, sizeof(want), EINVAL_HEAD "%s", period_rule(50000));
	if (!*period_rule(50000))
		tap_diag("kernel.sched_deadline_period_min_us is not above 50us here");
	else
		explain_is(EINVAL, 10000, 50000, 50000, 0, want);
	explain_is(EINVAL, 10 * MS, 30 * MS, 100 * MS, DL_FLAG_RECLAIM,
		   EINVAL_HEAD "dlctl:   no parameter rule is broken: this kernel may not know the flags asked for (reclaim is from Linux 4.13, overrun from 4.16)\n");
	explain_is(EINVAL, 10 * MS, 30 * MS, 0, 0,
		   EINVAL_HEAD "dlctl:   no rule dlctl knows of is broken\n");
	explain_is(ESRCH, 10 * MS, 30 * MS, 0, 0,
		   "dlctl: pid 42: no such process (ESRCH)\n");
	explain_is(E2BIG, 10 * MS, 30 * MS, 0, 0,
		   "dlctl: pid 42: SCHED_DEADLINE refused: Argument list too long (errno 7)\n");
}

/* ---- dlchart's readers (dlchart/trace.c, dlchart/jobs.c) ---- */

/* A sched_switch line, in tracefs' text form. */
static void sw(FILE *f, int cpu, const char *ts, const char *pc, int pp,
	       int ppr, const char *st, const char *nc, int np, int npr)
{
	fprintf(f, "%16s-%-7d [%03d] d..2. %s: sched_switch: prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s next_pid=%d next_prio=%d\n",
		pc, pp, cpu, ts, pc, pp, ppr, st, nc, np, npr);
}

#define IDLE(n) "swapper/" #n, 0, 120

/* Reads the trace @text into @tr. */
static void trace_of(const char *text, struct dlchart_trace *tr)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	REQUIRE(f, "fmemopen: %s", strerror(errno));
	REQUIRE(!dlchart_trace_read(f, tr), "read: %s", strerror(errno));
	fclose(f);
}

/* Builds a trace's text with the helpers above; free it. */
static FILE *text_open(char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	REQUIRE(f, "open_memstream: %s", strerror(errno));
	return f;
}

static int task_of(struct dlchart_trace *tr, pid_t pid)
{
	int i = dlchart_task_index(tr, pid, false);

	REQUIRE(i >= 0, "no task %d", pid);
	return i;
}

static void span_is(const struct dlchart_trace *tr,
		    const struct dlchart_span *s, int64_t t0, int64_t t1,
		    int cpu, pid_t pid)
{
	CHECK(s->t0 == t0 && s->t1 == t1 && s->cpu == cpu &&
	      tr->tasks[s->task].pid == pid,
	      "span %lld-%lld cpu %d pid %d, want %lld-%lld cpu %d pid %d",
	      (long long)s->t0, (long long)s->t1, s->cpu,
	      tr->tasks[s->task].pid, (long long)t0, (long long)t1, cpu, pid);
}

/* Comms with spaces and brackets, both head forms, what is skipped. */
static void chart_trace_reader(void)
{
	struct dlchart_trace tr;
	size_t len;
	char *text;
	FILE *f = text_open(&text, &len);

	fputs("# tracer: nop\n#\n\n", f);
	sw(f, 1, "100.000000", IDLE(1), "R", "my [w] task-1", 77, -1);
	fputs("  cat-88 [000] 100.001000: sched_wakeup: comm=cat pid=88 prio=120 target_cpu=000\n", f);
	fputs("CPU:1 [LOST 42 EVENTS]\n", f);
	sw(f, 1, "100.002500", "my [w] task-1", 77, -1, "S", IDLE(1));
	sw(f, 0, "100.003000123", "cat", 88, 120, "R+", IDLE(0));
	fputs("  x-5 [000] d..2. 100.0040000019: sched_migrate_task: comm=x y pid=5 prio=120 orig_cpu=0 dest_cpu=1\n", f);
	fputs("  a-1 [4096] d..2. 100.005000: sched_wakeup: comm=a pid=1 prio=120 target_cpu=000\n", f);
	fputs("  a-1 [000] d..2. 10000000000.005000: sched_wakeup: comm=a pid=1 prio=120 target_cpu=000\n", f);
	fputs("  a-1 [000] d..2. 100.005500: sched_wakeup: comm=a pid=x prio=120 target_cpu=000\n", f);
	fputs("  a-1 [000] d..2. 100.006000: sched_wakeup_new: comm=a pid=1 prio=120 target_cpu=001\n", f);
	REQUIRE(!fclose(f), "memstream");
	trace_of(text, &tr);
	free(text);
	CHECK(tr.events == 6 && tr.switches == 3 && tr.skipped == 4,
	      "events %ld switches %ld skipped %ld", tr.events, tr.switches,
	      tr.skipped);
	CHECK(tr.ncpus == 2 && tr.first == 100000000000LL &&
	      tr.last == 100006000000LL, "cpus %d first %lld last %lld",
	      tr.ncpus, (long long)tr.first, (long long)tr.last);
	CHECK(!strcmp(tr.tasks[task_of(&tr, 77)].name, "my [w] task-1") &&
	      tr.tasks[task_of(&tr, 77)].deadline, "pid 77: \"%s\"",
	      tr.tasks[task_of(&tr, 77)].name);
	CHECK(!strcmp(tr.tasks[task_of(&tr, 88)].name, "cat") &&
	      !tr.tasks[task_of(&tr, 88)].deadline, "pid 88");
	CHECK(!strcmp(tr.tasks[task_of(&tr, 5)].name, "x y"), "pid 5: \"%s\"",
	      tr.tasks[task_of(&tr, 5)].name);
	CHECK(!strcmp(tr.tasks[task_of(&tr, 1)].name, "a"), "pid 1");
	REQUIRE(tr.nruns == 2, "%zu runs", tr.nruns);
	span_is(&tr, &tr.runs[0], 100000000000LL, 100002500000LL, 1, 77);
	/* before a CPU's first switch its task ran since the trace began */
	span_is(&tr, &tr.runs[1], 100000000000LL, 100003000123LL, 0, 88);
	CHECK(!tr.nthrottles, "%zu throttles of a fair task", tr.nthrottles);
	dlchart_trace_free(&tr);
}

/*
 * A deadline task switched out runnable for a lower class is throttled
 * until it runs again; preempted by a deadline task, or by the stopper,
 * or asleep, it is not.
 */
static void chart_throttle_inference(void)
{
	struct dlchart_trace tr;
	size_t len;
	char *text;
	FILE *f = text_open(&text, &len);

	sw(f, 0, "10.000000", IDLE(0), "R", "dl", 10, -1);
	sw(f, 0, "10.001000", "dl", 10, -1, "R", IDLE(0));
	sw(f, 0, "10.002000", IDLE(0), "R", "dl", 10, -1);
	sw(f, 0, "10.003000", "dl", 10, -1, "R+", "cfs", 20, 120);
	sw(f, 0, "10.004000", "cfs", 20, 120, "R", "dl", 10, -1);
	sw(f, 0, "10.005000", "dl", 10, -1, "R", "dl2", 30, -1);
	sw(f, 0, "10.006000", "dl2", 30, -1, "R", "migration/0", 15, 0);
	sw(f, 0, "10.007000", "migration/0", 15, 0, "S", "dl2", 30, -1);
	sw(f, 0, "10.008000", "dl2", 30, -1, "S", IDLE(0));
	sw(f, 0, "10.009000", IDLE(0), "R", "dl", 10, -1);
	sw(f, 0, "10.010000", "dl", 10, -1, "R", "fifo", 40, 89);
	fputs("  x-9 [001] d..2. 10.011000: sched_wakeup: comm=x pid=9 prio=120 target_cpu=001\n", f);
	REQUIRE(!fclose(f), "memstream");
	trace_of(text, &tr);
	free(text);
	REQUIRE(tr.nthrottles == 3, "%zu throttles", tr.nthrottles);
	span_is(&tr, &tr.throttles[0], 10001000000LL, 10002000000LL, 0, 10);
	span_is(&tr, &tr.throttles[1], 10003000000LL, 10004000000LL, 0, 10);
	/* still throttled when the trace ends: up to its last event */
	span_is(&tr, &tr.throttles[2], 10010000000LL, 10011000000LL, 0, 10);
	/* and the run still going then ends there too */
	REQUIRE(tr.nruns == 9, "%zu runs", tr.nruns);
	span_is(&tr, &tr.runs[8], 10010000000LL, 10011000000LL, 0, 40);
	dlchart_trace_free(&tr);
}

/* Reads the job log @text; its return, the messages in *@msg. */
static int jobs_of(const char *text, struct dlchart_trace *tr,
		   struct dlchart_jobs *js, char **msg)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct capture cap;
	int r;

	REQUIRE(f || !*text, "fmemopen: %s", strerror(errno));
	if (!f)
		f = fopen("/dev/null", "r");
	memset(tr, 0, sizeof(*tr));
	capture_start(&cap);
	r = dlchart_jobs_read(f, "log", tr, js);
	*msg = capture_end(&cap);
	fclose(f);
	return r;
}

static void jobs_bad(const char *rows, const char *want)
{
	struct dlchart_trace tr;
	struct dlchart_jobs js;
	char text[512], *msg;

	int r;

	snprintf(text, sizeof(text), DLCHART_JOBS_HEADER "\n%s", rows);
	r = jobs_of(text, &tr, &js, &msg);
	CHECK(r == -1 && !strcmp(msg, want),
	      "%s: \"%s\"", vis(rows), vis(msg));
	free(msg);
	dlchart_jobs_free(&js);
	dlchart_trace_free(&tr);
}

#define NOT_A_JOB ": not a job: want a name, ten integers, miss 0 or 1\n"

/* The job log: names with commas, CRLF, and every reason to refuse it. */
static void chart_jobs_reader(void)
{
	struct dlchart_trace tr;
	struct dlchart_jobs js;
	const struct dlchart_job *j;
	char *msg;
	int r;

	REQUIRE(!jobs_of(DLCHART_JOBS_HEADER "\r\n"
			 "a,b,7,1,100,110,120,200,15,20,80,0\n\n"
			 "c,8,2,200,210,230,300,20,30,-70,1\r\n",
			 &tr, &js, &msg), "refused: %s", msg);
	CHECK(!*msg, "messages: %s", msg);
	free(msg);
	REQUIRE(js.n == 2 && tr.ntasks == 2, "%zu jobs, %zu tasks", js.n,
		tr.ntasks);
	j = &js.v[0];
	CHECK(!strcmp(tr.tasks[j->task].name, "a,b") &&
	      tr.tasks[j->task].pid == 7 && tr.tasks[j->task].in_jobs &&
	      j->job == 1 && j->release == 100 && j->start == 110 &&
	      j->end == 120 && j->deadline == 200 && j->runtime == 15 &&
	      j->response == 20 && j->slack == 80 && !j->miss, "job a,b");
	j = &js.v[1];
	CHECK(!strcmp(tr.tasks[j->task].name, "c") && j->slack == -70 &&
	      j->miss, "job c: %s slack %lld", tr.tasks[j->task].name,
	      (long long)j->slack);
	dlchart_jobs_free(&js);
	dlchart_trace_free(&tr);
	r = jobs_of(DLCHART_JOBS_HEADER "\n", &tr, &js, &msg);
	CHECK(!r && !js.n, "header alone: %s", msg);
	free(msg);
	r = jobs_of("", &tr, &js, &msg);
	CHECK(r == -1 && !strcmp(msg, "dlchart: log: empty job log\n"),
	      "empty: %s", msg);
	free(msg);
	r = jobs_of("task,pid\n1,2\n", &tr, &js, &msg);
	CHECK(r == -1 && !strcmp(msg, "dlchart: log:1: not a job log: the header must be\n  "
		      DLCHART_JOBS_HEADER "\n"), "bad header: %s", vis(msg));
	free(msg);
	jobs_bad("a,7,1,100,110,120,200,15,20,80,2\n", "dlchart: log:2" NOT_A_JOB);
	jobs_bad("a,0,1,100,110,120,200,15,20,80,0\n", "dlchart: log:2" NOT_A_JOB);
	jobs_bad("a,-7,1,100,110,120,200,15,20,80,0\n", "dlchart: log:2" NOT_A_JOB);
	jobs_bad("a,2147483648,1,100,110,120,200,15,20,80,0\n",
		 "dlchart: log:2" NOT_A_JOB);
	jobs_bad("7,1,100,110,120,200,15,20,80,0\n", "dlchart: log:2" NOT_A_JOB);
	jobs_bad(",7,1,100,110,120,200,15,20,80,0\n", "dlchart: log:2" NOT_A_JOB);
	jobs_bad("a,7,1,100, 110,120,200,15,20,80,0\n",
		 "dlchart: log:2" NOT_A_JOB);
	jobs_bad("a,7,1,100,110,120,200,15,20,8.5,0\n",
		 "dlchart: log:2" NOT_A_JOB);
	jobs_bad("a,7,1,100,110,120,200,15,20,80,0\n"
		 "a,7,2,99999999999999999999,110,120,200,15,20,80,0\n",
		 "dlchart: log:3" NOT_A_JOB);
}

/* ---- dlchart's geometry (dlchart/svg.c) ---- */

#define FROM 100000000000LL
#define TO 100850000000LL

/*
 * A trace of two CPUs around the window [100 s, 100.85 s], which a chart
 * 1030 px wide draws at 1 px per ms from x = 150 to 1000.
 */
static void window_trace(struct dlchart_trace *tr)
{
	size_t len;
	char *text;
	FILE *f = text_open(&text, &len);

	sw(f, 0, "99.990000", IDLE(0), "R", "A", 300, -1);
	sw(f, 0, "100.010000", "A", 300, -1, "S", IDLE(0));
	sw(f, 0, "100.200000", IDLE(0), "R", "B", 400, 120);
	sw(f, 0, "100.300000", "B", 400, 120, "S", IDLE(0));
	sw(f, 0, "100.500000", IDLE(0), "R", "B", 400, 120);
	sw(f, 1, "100.849999999", IDLE(1), "R", "A", 300, -1);
	sw(f, 1, "100.850000000", "A", 300, -1, "S", IDLE(1));
	sw(f, 0, "100.860000", "B", 400, 120, "S", IDLE(0));
	sw(f, 0, "100.900000", IDLE(0), "R", "C", 500, 120);
	sw(f, 0, "100.950000", "C", 500, 120, "S", IDLE(0));
	REQUIRE(!fclose(f), "memstream");
	trace_of(text, tr);
	free(text);
}

static char *svg_of(const struct dlchart_chart *c)
{
	size_t len;
	char *svg;
	FILE *f = text_open(&svg, &len);

	REQUIRE(!dlchart_svg_write(f, c), "svg_write: %s", strerror(errno));
	REQUIRE(!fclose(f), "memstream");
	return svg;
}

static void has(const char *svg, const char *s, bool want)
{
	CHECK(!!strstr(svg, s) == want, "%s: %s", want ? "missing" : "there",
	      s);
}

static int occurrences(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

#define RUN(pid, cpu) "<rect class=\"run\" data-pid=\"" #pid "\" data-cpu=\"" #cpu "\""

/* Spans cut at the window's edges, a sliver at its end kept inside. */
static void chart_x_at_window_edges(void)
{
	struct dlchart_trace tr;
	struct dlchart_chart c = {
		.tr = &tr, .from = FROM, .to = TO, .origin = FROM,
		.title = "edges", .width = 1030,
	};
	char *svg;

	window_trace(&tr);
	svg = svg_of(&c);
	has(svg, "data-from-ns=\"100000000000\" data-to-ns=\"100850000000\"",
	    true);
	has(svg, "data-plot-x0=\"150.00\" data-plot-x1=\"1000.00\"", true);
	has(svg, RUN(300, 0) " x=\"150.00\" y=\"64.00\" width=\"10.00\" height=\"24.00\"",
	    true);
	has(svg, RUN(400, 0) " x=\"350.00\" y=\"64.00\" width=\"100.00\" height=\"24.00\"",
	    true);
	has(svg, RUN(400, 0) " x=\"650.00\" y=\"64.00\" width=\"350.00\" height=\"24.00\"",
	    true);
	/* 1 ns before the end: a pixel wide, its right edge the plot's */
	has(svg, RUN(300, 1) " x=\"999.00\" y=\"94.00\" width=\"1.00\" height=\"24.00\"",
	    true);
	CHECK(occurrences(svg, "<rect class=\"run\"") == 4, "%d runs drawn",
	      occurrences(svg, "<rect class=\"run\""));
	has(svg, RUN(500, 0), false);
	/* ticks every 100 ms from the origin, labelled in ms */
	has(svg, "<text x=\"150.00\" y=\"145.00\" font-size=\"11\" text-anchor=\"middle\">0</text>",
	    true);
	has(svg, "<text x=\"950.00\" y=\"145.00\" font-size=\"11\" text-anchor=\"middle\">800</text>",
	    true);
	has(svg, ">900</text>", false);
	has(svg, "; 0 to 850 ms; 2 CPUs", true);
	free(svg);
	dlchart_trace_free(&tr);
}

/* Ticks and labels before the origin: negative, never "-0". */
static void chart_ticks_around_origin(void)
{
	struct dlchart_trace tr;
	struct dlchart_chart c = {
		.tr = &tr, .from = FROM, .to = TO, .origin = FROM + 250 * MS,
		.title = "origin", .width = 1030,
	};
	static const char *const at[] = {
		"200.00\" y=\"145.00\" font-size=\"11\" text-anchor=\"middle\">-200<",
		"300.00\" y=\"145.00\" font-size=\"11\" text-anchor=\"middle\">-100<",
		"400.00\" y=\"145.00\" font-size=\"11\" text-anchor=\"middle\">0<",
		"1000.00\" y=\"145.00\" font-size=\"11\" text-anchor=\"middle\">600<",
	};
	size_t i;
	char *svg;

	window_trace(&tr);
	svg = svg_of(&c);
	for (i = 0; i < ARRAY_SIZE(at); i++)
		has(svg, at[i], true);
	has(svg, ">-300<", false);
	has(svg, ">-0<", false);
	has(svg, ">700<", false);
	has(svg, "t = 0 at 100.250000000 s (CLOCK_MONOTONIC); -250 to 600 ms; 2 CPUs",
	    true);
	free(svg);
	/* 400 ns before t = 0 rounds to 0 ms: "0", not "-0" */
	c.origin = FROM + 400;
	svg = svg_of(&c);
	has(svg, "t = 0 at 100.000000400 s (CLOCK_MONOTONIC); 0 to 850 ms; 2 CPUs",
	    true);
	has(svg, "<title>A (pid 300) on CPU 0: -10.000 to 10.000 ms</title>",
	    true);
	free(svg);
	dlchart_trace_free(&tr);
}

/* A task lane with jobs: its bars, arrows at both edges, its count. */
static void chart_task_lane(void)
{
	static const char log[] = DLCHART_JOBS_HEADER "\n"
		"A,300,1,100000000000,100000000000,100010000000,100850000000,1,1,1,0\n"
		"A,300,2,100850000001,100850000001,100860000000,100950000000,1,1,1,0\n"
		"A,300,3,99000000000,99000000000,99001000000,99999999999,1,1,1,1\n";
	struct dlchart_trace tr;
	struct dlchart_jobs js;
	int lane;
	struct dlchart_chart c = {
		.tr = &tr, .jobs = &js, .lanes = &lane, .nlanes = 1,
		.from = FROM, .to = TO, .origin = FROM, .title = "lane",
		.width = 1030,
	};
	struct capture cap;
	char *svg, *msg;
	FILE *f;
	int r;

	window_trace(&tr);
	f = fmemopen((void *)log, strlen(log), "r");
	REQUIRE(f, "fmemopen");
	capture_start(&cap);
	r = dlchart_jobs_read(f, "log", &tr, &js);
	msg = capture_end(&cap);
	fclose(f);
	REQUIRE(!r, "job log refused: %s", msg);
	free(msg);
	lane = task_of(&tr, 300);
	tr.tasks[lane].colour = 0;
	CHECK(dlchart_job_shown(&c, &js.v[0]) && !dlchart_job_shown(&c, &js.v[1]) &&
	      !dlchart_job_shown(&c, &js.v[2]), "jobs shown");
	svg = svg_of(&c);
	/* the lane starts 16 px below the CPU lanes; its bar 18 px down */
	has(svg, RUN(300, 0) " x=\"150.00\" y=\"152.00\" width=\"10.00\" height=\"18.00\"",
	    true);
	has(svg, "<rect class=\"job\" data-pid=\"300\" data-job=\"1\" x=\"150.00\" y=\"173.00\" width=\"9.00\" height=\"5.00\"",
	    true);
	has(svg, "<path class=\"release\" data-pid=\"300\" data-job=\"1\" d=\"M150.00 151V143 M146.00 144 L150.00 137 L154.00 144Z\"",
	    true);
	has(svg, "<path class=\"deadline\" data-pid=\"300\" data-job=\"1\" d=\"M1000.00 172V185 M996.00 184 L1000.00 191 L1004.00 184Z\"",
	    true);
	CHECK(occurrences(svg, "class=\"release\"") == 1 &&
	      occurrences(svg, "class=\"deadline") == 1 &&
	      occurrences(svg, "<rect class=\"job") == 1,
	      "%d releases, %d deadlines, %d job bars",
	      occurrences(svg, "class=\"release\""),
	      occurrences(svg, "class=\"deadline"),
	      occurrences(svg, "<rect class=\"job"));
	has(svg, ">1 jobs, 0 missed</text>", true);
	has(svg, "; 1 jobs, 0 missed</text>", true);
	free(svg);
	dlchart_jobs_free(&js);
	dlchart_trace_free(&tr);
}

/* A job shows if it overlaps the window, edges included. */
static void chart_job_shown_edges(void)
{
	struct dlchart_chart c = { .from = 1000, .to = 2000 };
	static const struct {
		int64_t release, end, deadline;
		bool shown;
	} v[] = {
		{ 2000, 2001, 2100, true },
		{ 2001, 2002, 2100, false },
		{ 500, 1000, 900, true },
		{ 500, 900, 1000, true },
		{ 500, 999, 998, false },
		{ 500, 600, 3000, true },
		{ 1500, 1600, 0, true },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		struct dlchart_job j = {
			.release = v[i].release, .end = v[i].end,
			.deadline = v[i].deadline,
		};

		CHECK(dlchart_job_shown(&c, &j) == v[i].shown,
		      "release %lld end %lld deadline %lld: shown %d",
		      (long long)v[i].release, (long long)v[i].end,
		      (long long)v[i].deadline, !v[i].shown);
	}
}

/* ---- dlchart's lanes (dlchart/dlchart.c, run as a program) ---- */

static char *temp_write(const char *text)
{
	char *path;
	int fd;

	REQUIRE(asprintf(&path, "%s/toolparse-XXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp") > 0,
		"out of memory");
	fd = mkstemp(path);
	REQUIRE(fd >= 0, "mkstemp: %s", strerror(errno));
	REQUIRE(write(fd, text, strlen(text)) == (ssize_t)strlen(text),
		"write %s", path);
	close(fd);
	return path;
}

/* dlchart's chart of @trace with @a1, @a2 before it; exits 0. */
static char *dlchart(const char *trace, const char *a1, const char *a2)
{
	const char *bin = getenv("DLCHART") ? getenv("DLCHART") : "./dlchart";
	char *out = temp_write(""), *err = temp_write(""), *svg, *msg;
	const char *argv[] = { bin, a1 ? a1 : trace, a1 ? a2 : NULL,
			       a1 ? trace : NULL, NULL };
	struct capture cap;
	int status;
	pid_t pid;
	FILE *f;

	pid = fork();
	REQUIRE(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		freopen(out, "w", stdout);
		freopen(err, "w", stderr);
		execv(bin, (char *const *)argv);
		fprintf(stderr, "exec %s: %s\n", bin, strerror(errno));
		_exit(127);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid, "waitpid");
	f = fopen(err, "r");
	cap.tmp = f;
	cap.saved = dup(2);
	fseek(f, 0, SEEK_END);
	msg = capture_end(&cap);
	f = fopen(out, "r");
	cap.tmp = f;
	cap.saved = dup(2);
	fseek(f, 0, SEEK_END);
	svg = capture_end(&cap);
	unlink(out);
	unlink(err);
	REQUIRE(WIFEXITED(status) && !WEXITSTATUS(status),
		"%s: status %d: %s", bin, status, msg);
	free(msg);
	return svg;
}

/* The pids of the task lanes of @svg, top down, as "200,300". */
static const char *lane_pids(const char *svg)
{
	static char buf[128];
	const char *p = svg;
	size_t n = 0;

	buf[0] = '\0';
	while ((p = strstr(p, "<g class=\"lane task\" id=\"task-")) &&
	       n < sizeof(buf) - 16) {
		p += strlen("<g class=\"lane task\" id=\"task-");
		n += snprintf(buf + n, sizeof(buf) - n, "%s%d", n ? "," : "",
			      atoi(p));
	}
	return buf;
}

/*
 * The job log's tasks in its order, then the other deadline tasks by
 * pid; without a log, the other tasks after them, the busiest first.
 */
static void chart_lane_order(void)
{
	static const char log[] = DLCHART_JOBS_HEADER "\n"
		"dl-b,300,1,1000000000,1000000000,1001000000,1010000000,1,1,1,0\n"
		"dl-a,200,1,1001000000,1001000000,1002000000,1010000000,1,1,1,0\n"
		"dl-b,300,2,1010000000,1010000000,1011000000,1020000000,1,1,1,0\n";
	size_t len;
	char *text, *trace, *jobs, *svg;
	FILE *f = text_open(&text, &len);

	sw(f, 0, "1.000000", IDLE(0), "R", "dl-b", 300, -1);
	sw(f, 0, "1.001000", "dl-b", 300, -1, "S", "dl-a", 200, -1);
	sw(f, 0, "1.002000", "dl-a", 200, -1, "S", "light", 100, 120);
	sw(f, 0, "1.007000", "light", 100, 120, "S", "heavy", 50, 120);
	sw(f, 0, "1.017000", "heavy", 50, 120, "S", "dl-c", 400, -1);
	sw(f, 0, "1.018000", "dl-c", 400, -1, "S", IDLE(0));
	REQUIRE(!fclose(f), "memstream");
	trace = temp_write(text);
	jobs = temp_write(log);
	free(text);
	svg = dlchart(trace, NULL, NULL);
	CHECK(!strcmp(lane_pids(svg), "200,300,400,50,100"),
	      "without a log: %s", lane_pids(svg));
	free(svg);
	svg = dlchart(trace, "--jobs", jobs);
	CHECK(!strcmp(lane_pids(svg), "300,200,400"), "with the log: %s",
	      lane_pids(svg));
	free(svg);
	svg = dlchart(trace, "--tasks", "light,dl-?");
	CHECK(!strcmp(lane_pids(svg), "200,300,400,100"), "--tasks: %s",
	      lane_pids(svg));
	free(svg);
	unlink(trace);
	unlink(jobs);
}

static const struct tap_test tests[] = {
	TAP_TEST(units_each_unit),
	TAP_TEST(units_fractions),
	TAP_TEST(units_bad_spelling),
	TAP_TEST(units_range),
	TAP_TEST(units_format),
	TAP_TEST(spec_documentation_form),
	TAP_TEST(spec_each_policy),
	TAP_TEST(spec_cpu_lists),
	TAP_TEST(spec_fields),
	TAP_TEST(spec_zero_negative),
	TAP_TEST(spec_order_rules),
	TAP_TEST(spec_short_error_buffer),
	TAP_TEST(json_values),
	TAP_TEST(json_string_escapes),
	TAP_TEST(json_comments_trailing_commas),
	TAP_TEST(json_syntax_errors),
	TAP_TEST(json_depth_limit),
	TAP_TEST(json_type_names),
	TAP_TEST(jconf_minimal_task),
	TAP_TEST(jconf_deadline_params),
	TAP_TEST(jconf_phases_loops),
	TAP_TEST(jconf_tasks_cpus),
	TAP_TEST(jconf_global),
	TAP_TEST(jconf_unsupported_keys),
	TAP_TEST(jconf_value_errors),
	TAP_TEST(jconf_deadline_errors),
	TAP_TEST(jconf_structure_errors),
	TAP_TEST(jconf_unique_timers),
	TAP_TEST(dlgen_helpers),
	TAP_TEST(dlctl_bandwidth_figures),
	TAP_TEST(dlctl_strings),
	TAP_TEST(dlctl_root_domains),
	TAP_TEST(dlctl_explain_einval),
	TAP_TEST(chart_trace_reader),
	TAP_TEST(chart_throttle_inference),
	TAP_TEST(chart_jobs_reader),
	TAP_TEST(chart_x_at_window_edges),
	TAP_TEST(chart_ticks_around_origin),
	TAP_TEST(chart_task_lane),
	TAP_TEST(chart_job_shown_edges),
	TAP_TEST(chart_lane_order),
	{ NULL, NULL },
};

int main(void)
{
	return tap_run(tests);
}
