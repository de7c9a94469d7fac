// SPDX-License-Identifier: GPL-2.0
/*
 * ktapsum: turn the logs of a boot into test results, and results into the
 * verdict of a run.
 *
 *   ktapsum parse -k KERNEL -o RESULTS [-p BOOT] [-c CONSOLE] [-K|-N]
 *                 [-g GUEST] [-D] [-T SECONDS] [-t TAPFILE -s SUITE]
 *	Appends one record per test to RESULTS.  CONSOLE is the kernel's log
 *	(ttyS0): it is scanned for oops, BUG, WARNING, lockdep, KASAN, UBSAN
 *	and kmemleak reports and for KUnit's KTAP (-K: KUnit is built in, so
 *	its output must be there; -N: it is not read, as another boot of the
 *	same kernel counts it).  GUEST is the test output (ttyS1), where
 *	each suite is framed by "@@DLK suite NAME" and "@@DLK end NAME RC"
 *	(-D: the guest must have printed "@@DLK done").  -T says the guest
 *	was killed after SECONDS.  -t parses a plain TAP file from the host
 *	as suite SUITE.  -p names the boot: its suites are BOOT/NAME.  -e
 *	lists the suites the boot had to run (a,b,c): one that never began
 *	is a failure.  -B says the boot itself failed, and how.
 *
 *   ktapsum summary [-m SKIPS] RESULTS...
 *	Prints the counts per kernel and suite, every failure by name, and
 *	last "N passed, N failed" (", N skipped" when any were).  Exits 1 if
 *	anything failed.  -m: the skips expected (see read_manifest()); any
 *	other skip of a kernel it names fails, and so does one it lists
 *	that did not happen.
 *
 * A record is one line: KERNEL TAB SUITE TAB PASS|FAIL|SKIP|XFAIL TAB NAME TAB
 * DETAIL.  Problems that are not a test's own verdict (a missing plan,
 * fewer results than planned, a suite that crashed, a kernel report, a
 * hung guest) are recorded as failed tests too, so that nothing that went
 * wrong can be lost on the way to the last line.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LEVEL 8
#define NDIAG 4
#define TEXT 256

struct ctx {
	bool open;
	int plan;		/* -1: none seen */
	int count;		/* results at this level */
	int leaves;		/* leaf results recorded below and at this level */
	int fails;		/* failed leaves among them */
	int xfails;		/* known defects among them */
	char name[TEXT];
};

struct doc {
	const char *kernel;
	const char *suite;	/* fixed suite name; NULL: from level 1 */
	FILE *out;
	struct ctx lv[MAX_LEVEL + 1];
	char diag[NDIAG][TEXT];
	int ndiag;
	char mark[TEXT];	/* a known-defect mark for the next result */
	int failures;		/* records of FAIL written for this document */
	int records;
	bool seen;		/* a version line or a plan was seen */
};

/* -p: the boot's name, put before the names of its suites */
static const char *prefix;

static void clean(char *s)
{
	for (; *s; s++)
		if (*s == '\t' || *s == '\r' || *s == '\n')
			*s = ' ';
}

static void record(struct doc *d, const char *suite, const char *status,
		   const char *name, const char *detail)
{
	char n[TEXT * 2], det[TEXT * NDIAG + 16];

	char s[TEXT + 72];

	if (prefix && strncmp(suite, "kunit", 5))
		snprintf(s, sizeof(s), "%s/%s", prefix, suite);
	else
		snprintf(s, sizeof(s), "%s", suite);
	snprintf(n, sizeof(n), "%s", name);
	snprintf(det, sizeof(det), "%s", detail ? detail : "");
	clean(n);
	clean(det);
	clean(s);
	fprintf(d->out, "%s\t%s\t%s\t%s\t%s\n", d->kernel, s, status, n,
		det);
	d->records++;
	if (!strcmp(status, "FAIL"))
		d->failures++;
}

static void problem(struct doc *d, const char *suite, const char *fmt, ...)
{
	char msg[TEXT * 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	record(d, suite, "FAIL", msg, "");
}

/* The suite a result at @level belongs to. */
static const char *suite_of(struct doc *d, int level)
{
	static char buf[TEXT + 8];

	if (d->suite)
		return d->suite;
	if (level >= 1 && d->lv[1].name[0]) {
		snprintf(buf, sizeof(buf), "kunit:%s", d->lv[1].name);
		return buf;
	}
	return "kunit";
}

static void doc_init(struct doc *d, const char *kernel, const char *suite,
		     FILE *out)
{
	memset(d, 0, sizeof(*d));
	d->kernel = kernel;
	d->suite = suite;
	d->out = out;
}

static void ctx_open(struct doc *d, int level)
{
	int i;

	for (i = level; i <= MAX_LEVEL; i++) {
		memset(&d->lv[i], 0, sizeof(d->lv[i]));
		d->lv[i].plan = -1;
	}
	d->lv[level].open = true;
	d->seen = true;
}

/* Checks a finished (sub)test's plan against what it printed. */
static void ctx_close(struct doc *d, int level, const char *what)
{
	struct ctx *c = &d->lv[level];
	const char *suite = suite_of(d, level);

	if (!c->open)
		return;
	c->open = false;
	/* KUnit prints no plan for the cases of a parameterised test. */
	if (c->plan < 0 && !d->suite && level >= 2)
		return;
	if (c->plan < 0)
		problem(d, suite, "%s printed no plan (%d results)", what,
			c->count);
	else if (c->count != c->plan)
		problem(d, suite, "%s planned %d tests but reported %d", what,
			c->plan, c->count);
}

static void detail_of(struct doc *d, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < d->ndiag && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s",
				 i ? " | " : "", d->diag[i]);
	d->ndiag = 0;
}

/*
 * A test that cannot print "# XFAIL" itself (a KUnit case) says that its
 * check of a known defect fired with a diagnostic line "... DLK-DEFECT
 * impl VAR: reason" before its result, printed only on the implementation
 * the defect is about, where that check does not fail the case
 * (tests/modules/dlk_defect.h).  The case is that known defect if it
 * passed otherwise; if it failed, another check failed as well, and it is
 * a failure.  A defect check that passed there failed the case itself.
 */
#define MARK "DLK-DEFECT "

static void add_diag(struct doc *d, const char *s)
{
	const char *m = strstr(s, MARK);

	if (m)
		snprintf(d->mark, TEXT, "%s", m + strlen(MARK));
	if (d->ndiag == NDIAG) {
		memmove(d->diag[0], d->diag[1], sizeof(d->diag[0]) * (NDIAG - 1));
		d->ndiag--;
	}
	snprintf(d->diag[d->ndiag++], TEXT, "%s", s);
}

struct result {
	bool ok, skip, xfail;
	long num;		/* -1: no number */
	char name[TEXT];
	char reason[TEXT];	/* of a SKIP or an XFAIL */
};

/* "ok 3 name # SKIP why" or "not ok 3 name": returns false if not one. */
static bool parse_result(const char *s, struct result *r)
{
	const char *p = s, *hash;
	size_t n;

	memset(r, 0, sizeof(*r));
	r->ok = true;
	if (!strncmp(p, "not ok", 6)) {
		r->ok = false;
		p += 6;
	} else if (!strncmp(p, "ok", 2)) {
		p += 2;
	} else {
		return false;
	}
	if (*p != ' ' && *p != '\0')
		return false;
	while (*p == ' ')
		p++;
	r->num = isdigit((unsigned char)*p) ? strtol(p, NULL, 10) : -1;
	while (isdigit((unsigned char)*p))
		p++;
	while (*p == ' ' || *p == '-')
		p++;
	hash = strstr(p, " # ");
	if (!hash && !strncmp(p, "# ", 2))
		hash = p - 1;
	n = hash ? (size_t)(hash - p) : strlen(p);
	if (n >= sizeof(r->name))
		n = sizeof(r->name) - 1;
	memcpy(r->name, p, n);
	if (!hash)
		return true;
	/* A skip is a passing line that says so; SKIP on "not ok" fails. */
	r->skip = r->ok && !strncasecmp(hash + 3, "SKIP", 4);
	r->xfail = !strncasecmp(hash + 3, "XFAIL", 5);
	if (r->skip || r->xfail) {
		p = hash + 3 + (r->skip ? 4 : 5);
		while (*p == ' ')
			p++;
		snprintf(r->reason, sizeof(r->reason), "%s", p);
	}
	return true;
}

/* The name of a leaf: its parents' names (from level 2 down) and its own. */
static void leaf_name(struct doc *d, int level, const char *desc, char *buf,
		      size_t len)
{
	int first = d->suite ? 1 : 2, i;
	size_t used = 0;

	buf[0] = '\0';
	for (i = first; i <= level && i <= MAX_LEVEL && used < len; i++)
		if (d->lv[i].name[0])
			used += snprintf(buf + used, len - used, "%s/",
					 d->lv[i].name);
	if (used < len)
		snprintf(buf + used, len - used, "%s", desc);
}

static void on_result(struct doc *d, int level, const char *s)
{
	char name[TEXT * 2], det[TEXT * NDIAG + 8];
	const char *status;
	int i, sub_fails = 0, sub_xfails = 0;
	struct result r;
	bool leaf = true;

	if (!parse_result(s, &r))
		return;
	if (!d->lv[level].open)
		ctx_open(d, level);
	if (level < MAX_LEVEL && d->lv[level + 1].open) {
		struct ctx *sub = &d->lv[level + 1];

		if (!sub->name[0])
			snprintf(sub->name, sizeof(sub->name), "%s", r.name);
		leaf = sub->leaves == 0;
		sub_fails = sub->fails;
		sub_xfails = sub->xfails;
		ctx_close(d, level + 1, sub->name);
	}
	d->lv[level].count++;
	/* Numbers run 1, 2, 3...: a repeated or missing one is a lost test. */
	if (r.num != d->lv[level].count)
		problem(d, suite_of(d, level), "result %d is numbered %ld (%s)",
			d->lv[level].count, r.num, r.name);
	if (!leaf) {
		d->mark[0] = '\0';
		if (!r.ok && !sub_fails && !sub_xfails)
			problem(d, suite_of(d, level + 1),
				"%s failed without a failing test", r.name);
		d->ndiag = 0;
		return;
	}
	/*
	 * A case whose defect check fired is that known defect if nothing
	 * else failed; "# XFAIL" itself is for a TAP producer's own verdict.
	 */
	if (d->mark[0] && !r.skip) {
		if (r.ok)
			snprintf(r.reason, sizeof(r.reason), "%s", d->mark);
		else
			add_diag(d, "# its known defect showed, but another check failed: not that known defect");
		r.xfail = r.ok;
		r.ok = false;
	}
	d->mark[0] = '\0';
	/* XFAIL: a known defect, failing as expected; never a pass. */
	status = r.skip ? "SKIP" : r.xfail && !r.ok ? "XFAIL" :
		 r.ok ? "PASS" : "FAIL";
	for (i = 0; i <= level; i++) {
		d->lv[i].leaves++;
		d->lv[i].fails += !strcmp(status, "FAIL");
		d->lv[i].xfails += !strcmp(status, "XFAIL");
	}
	leaf_name(d, level, r.name, name, sizeof(name));
	detail_of(d, det, sizeof(det));
	/* A skip's and a known defect's detail is their reason. */
	if (r.skip || (r.xfail && !r.ok))
		snprintf(det, sizeof(det), "%s", r.reason);
	record(d, suite_of(d, level), status, name,
	       r.ok && !r.skip ? "" : det);
}

/* Feeds one line of a KTAP/TAP document (prefixes already removed). */
static void ktap_line(struct doc *d, const char *line)
{
	int indent = 0, level, i;
	const char *s;

	while (line[indent] == ' ')
		indent++;
	s = line + indent;
	level = indent / 4;
	if (level > MAX_LEVEL)
		return;
	if (!strncmp(s, "KTAP version ", 13) || !strncmp(s, "TAP version ", 12)) {
		/* A new document at this level ends whatever was open there. */
		for (i = MAX_LEVEL; i >= level; i--)
			if (d->lv[i].open)
				ctx_close(d, i, d->lv[i].name[0] ? d->lv[i].name :
					  d->suite ? d->suite : "KUnit");
		ctx_open(d, level);
	} else if (!strncmp(s, "# Subtest: ", 11)) {
		if (!d->lv[level].open)
			ctx_open(d, level);
		snprintf(d->lv[level].name, TEXT, "%s", s + 11);
	} else if (!strncmp(s, "1..", 3) && isdigit((unsigned char)s[3])) {
		if (!d->lv[level].open)
			ctx_open(d, level);
		d->lv[level].plan = atoi(s + 3);
	} else if (!strncmp(s, "ok", 2) || !strncmp(s, "not ok", 6)) {
		on_result(d, level, s);
	} else if (!strncmp(s, "Bail out!", 9)) {
		problem(d, suite_of(d, level), "bailed out: %s", s + 9);
	} else if (s[0] == '#') {
		add_diag(d, s);
	}
}

/* Closes every open level of a document, innermost first. */
static void doc_finish(struct doc *d, const char *what)
{
	int i;

	for (i = MAX_LEVEL; i >= 1; i--)
		if (d->lv[i].open)
			ctx_close(d, i, d->lv[i].name[0] ? d->lv[i].name : what);
	if (d->lv[0].open)
		ctx_close(d, 0, what);
}

/* Strips the printk timestamp "[    1.234567] " and the line ending. */
static char *kernel_msg(char *line)
{
	char *p;

	line[strcspn(line, "\r\n")] = '\0';
	if (line[0] == '[') {
		p = strchr(line, ']');
		if (p && p[1] == ' ')
			return p + 2;
		if (p && p[1] == '\0')
			return p + 1;
	}
	return line;
}

static const char *const report_prefix[] = {
	"BUG:", "WARNING:", "Oops:", "Kernel panic", "kernel BUG at",
	"general protection fault", "UBSAN:", "INFO: task",
	"INFO: possible", "INFO: trying to register non-static key",
	"Unable to handle kernel", "watchdog: BUG:", "rcu: INFO:", NULL
};

static const char *const report_substr[] = {
	"suspected memory leak", "detected stall", "DEBUG_LOCKS_WARN_ON",
	"detected hard LOCKUP", NULL
};

static bool is_report(const char *m)
{
	int i;

	while (*m == ' ')
		m++;
	for (i = 0; report_prefix[i]; i++)
		if (!strncmp(m, report_prefix[i], strlen(report_prefix[i])))
			return true;
	for (i = 0; report_substr[i]; i++)
		if (strstr(m, report_substr[i]))
			return true;
	return false;
}

static FILE *open_log(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f)
		fprintf(stderr, "ktapsum: %s: %s\n", path, strerror(errno));
	return f;
}

/*
 * A known defect that panics the kernel (tests/lib/tap.h,
 * tap_expect_panic()): before it, the console says which report is
 * coming, "DLK-PANIC test: 'text' in function: reason" (function "any":
 * wherever).  The first report after that line that holds the text, with
 * its RIP in that function (or a part of it the compiler split off, as
 * "function.cold"), is that known defect: its test is recorded as
 * such in the guest's suite that the panic cut short, and the reports
 * after it, the panic's own, and the unfinished boot are no failures.
 * Any other report is one, as always.
 */
static struct {
	bool seen, matched;
	char test[TEXT], text[TEXT], func[TEXT], reason[TEXT];
} expected;

#define PANIC_MARK "DLK-PANIC "

/* Reads a mark "test: 'text' in func: reason"; false if it is not one. */
static bool panic_mark(const char *m)
{
	const char *p = strstr(m, PANIC_MARK), *q, *r, *t;

	if (!p || expected.seen)
		return false;
	p += strlen(PANIC_MARK);
	q = strstr(p, ": '");
	r = q ? strstr(q + 3, "' in ") : NULL;
	t = r ? strstr(r + 5, ": ") : NULL;
	if (!t)
		return false;
	snprintf(expected.test, TEXT, "%.*s", (int)(q - p), p);
	snprintf(expected.text, TEXT, "%.*s", (int)(r - q - 3), q + 3);
	snprintf(expected.func, TEXT, "%.*s", (int)(t - r - 5), r + 5);
	snprintf(expected.reason, TEXT, "%s", t + 2);
	expected.seen = true;
	return true;
}

/*
 * A kernel report waits for the lines after it: its RIP's function is
 * read there.  If it is pick_task_fair(), it is most likely the tree's
 * sched/debug race (tests/lib/dl.h), and the failure says so.
 */
struct report {
	char msg[TEXT];
	char rip[TEXT];		/* the function of its first RIP line */
	char where[TEXT + 16];
	bool pending, eevdf;
	bool after_mark;	/* came after a DLK-PANIC mark */
};

/* Whether @rip is the expected function, or a part of it ("f.cold"). */
static bool same_function(const char *rip)
{
	size_t n = strlen(expected.func);

	return !strncmp(rip, expected.func, n) &&
	       (rip[n] == '\0' || rip[n] == '.');
}

static void report_flush(struct doc *d, struct report *r)
{
	if (!r->pending)
		return;
	r->pending = false;
	/* The kernel's end, after the panic that was expected. */
	if (expected.matched)
		return;
	if (r->after_mark && strstr(r->msg, expected.text) &&
	    (!strcmp(expected.func, "any") || same_function(r->rip))) {
		expected.matched = true;
		return;
	}
	snprintf(r->where, sizeof(r->where), r->rip[0] ? "RIP in %s()" : "%s",
		 r->rip);
	record(d, "kernel-log", "FAIL", r->msg, r->eevdf ?
	       "RIP in pick_task_fair(): likely the 6.12.118 tree's race "
	       "between sched/debug readers and the fair class "
	       "(see tests/lib/dl.h)" : r->where);
}

static void report_line(struct doc *d, struct report *r, const char *m,
			unsigned long n, int *reports)
{
	const char *rip;

	if (panic_mark(m))
		return;
	/* "BUG: ..." and then "Oops: ...": one report, read to its RIP. */
	if (r->pending && !r->rip[0] && !strncmp(m, "Oops: ", 6))
		return;
	if (is_report(m) && (*reports)++ < 20) {
		report_flush(d, r);
		snprintf(r->msg, sizeof(r->msg), "console line %lu: %.200s",
			 n, m);
		r->pending = true;
		r->eevdf = false;
		r->rip[0] = '\0';
		r->after_mark = expected.seen;
	} else if (r->pending && !r->rip[0] && (rip = strstr(m, "RIP: "))) {
		/* "RIP: 0010:inactive_task_timer+0x51/0x1e0" */
		rip += 5;
		if (strchr(rip, ':') && strchr(rip, '+'))
			rip = strchr(rip, ':') + 1;
		snprintf(r->rip, sizeof(r->rip), "%.*s",
			 (int)strcspn(rip, "+ "), rip);
		r->eevdf = !strcmp(r->rip, "pick_task_fair");
	}
}

static int parse_console(const char *kernel, const char *path, bool kunit,
			 bool ktap, FILE *out)
{
	char line[4096];
	struct report r = { .pending = false };
	int reports = 0;
	unsigned long n = 0;
	struct doc d;
	FILE *f;

	doc_init(&d, kernel, NULL, out);
	f = open_log(path);
	if (!f) {
		problem(&d, "boot", "no console log %s", path);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *m = kernel_msg(line);

		n++;
		report_line(&d, &r, m, n, &reports);
		if (ktap)
			ktap_line(&d, m);
	}
	fclose(f);
	report_flush(&d, &r);
	doc_finish(&d, "KUnit");
	if (kunit && !d.seen)
		problem(&d, "kunit", "KUnit is built in but printed no KTAP");
	return 0;
}

/* A guest suite's end: its document, its exit status, its time limit. */
static void guest_suite_end(struct doc *d, int rc, const char *timeout)
{
	if (!d->seen)
		problem(d, d->suite, "printed no TAP plan (exit status %d)", rc);
	doc_finish(d, d->suite);
	if (timeout)
		problem(d, d->suite, "killed after its time limit of %ss",
			timeout);
	else if (rc != 0 && d->failures == 0)
		problem(d, d->suite, "exited with status %d and no failed test",
			rc);
	else if (rc == 0 && d->failures)
		problem(d, d->suite, "exited with status 0 despite failures");
}

struct guest_state {
	struct doc d;
	char suite[TEXT];
	char timeout[32];
	bool in_suite;
	bool done;
	char started[4096];	/* ",a,b," : the suites that began */
};

static void guest_marker(struct guest_state *g, const char *m, FILE *out,
			 const char *kernel)
{
	char name[TEXT];
	int rc;

	if (sscanf(m, "suite %255s", name) == 1) {
		if (g->in_suite)
			guest_suite_end(&g->d, -1, NULL);
		snprintf(g->suite, sizeof(g->suite), "%s", name);
		if (strlen(g->started) + strlen(name) + 2 < sizeof(g->started)) {
			strcat(g->started, name);
			strcat(g->started, ",");
		}
		doc_init(&g->d, kernel, g->suite, out);
		g->in_suite = true;
		g->timeout[0] = '\0';
	} else if (sscanf(m, "timeout %255s %31s", name, g->timeout) == 2) {
		/* the end marker follows */
	} else if (sscanf(m, "end %255s %d", name, &rc) == 2 && g->in_suite) {
		guest_suite_end(&g->d, rc, g->timeout[0] ? g->timeout : NULL);
		g->in_suite = false;
	} else if (!strcmp(m, "done")) {
		g->done = true;
	}
}

/* Every suite of the comma-separated @expect must have begun. */
static void check_expected(struct guest_state *g, const char *expect,
			   const char *kernel, FILE *out)
{
	char list[4096], *tok, *save = NULL, key[TEXT + 2];

	snprintf(list, sizeof(list), "%s", expect);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		snprintf(key, sizeof(key), ",%s,", tok);
		if (!strstr(g->started, key)) {
			doc_init(&g->d, kernel, tok, out);
			problem(&g->d, tok, "never started");
		}
	}
}

/*
 * The suite that the expected panic cut short: its test is that known
 * defect, one more result after those it printed (if it printed a plan:
 * a KUnit suite's results come only after its module loaded).
 */
static void expected_panic_result(struct doc *d)
{
	char line[TEXT * 4];

	if (!d->seen) {
		record(d, d->suite, "XFAIL", expected.test, expected.reason);
		return;
	}
	snprintf(line, sizeof(line), "not ok %d %s # XFAIL %s",
		 d->lv[0].count + 1, expected.test, expected.reason);
	ktap_line(d, line);
	doc_finish(d, d->suite);
}

static int parse_guest(const char *kernel, const char *path, bool need_done,
		       const char *expect, FILE *out)
{
	struct guest_state g = { .started = "," };
	char line[4096], *mark;
	FILE *f;

	doc_init(&g.d, kernel, "boot", out);
	f = open_log(path);
	if (!f) {
		problem(&g.d, "boot", "no guest log %s", path);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		/*
		 * A marker can follow a line a killed program left unended:
		 * the text before it still belongs to the suite.
		 */
		mark = strstr(line, "@@DLK ");
		if (mark)
			*mark = '\0';
		if (g.in_suite && (!mark || mark != line))
			ktap_line(&g.d, line);
		if (mark)
			guest_marker(&g, mark + 6, out, kernel);
	}
	fclose(f);
	if (g.in_suite && expected.matched) {
		expected_panic_result(&g.d);
	} else if (g.in_suite) {
		doc_finish(&g.d, g.suite);
		problem(&g.d, g.suite, "did not finish (the guest stopped in it)");
	}
	if (need_done && !g.done && !expected.matched) {
		doc_init(&g.d, kernel, "boot", out);
		problem(&g.d, "boot", "the guest did not finish its suites");
	}
	if (expect)
		check_expected(&g, expect, kernel, out);
	return 0;
}

static int parse_tap(const char *kernel, const char *suite, const char *path,
		     FILE *out)
{
	char line[4096];
	struct doc d;
	FILE *f;

	doc_init(&d, kernel, suite, out);
	f = open_log(path);
	if (!f) {
		problem(&d, suite, "no output file %s", path);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		ktap_line(&d, line);
	}
	fclose(f);
	if (!d.seen)
		problem(&d, suite, "printed no TAP plan");
	doc_finish(&d, suite);
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: ktapsum parse -k KERNEL -o RESULTS [-p BOOT] [-c CONSOLE [-K|-N]]\n"
		"                     [-g GUEST [-D] [-e SUITES]] [-T SECONDS] [-B WHY]\n"
		"                     [-t TAP -s SUITE]\n"
		"       ktapsum summary [-m SKIPS] RESULTS...\n");
	return 2;
}

struct parse_args {
	const char *kernel, *out, *console, *guest, *tap, *suite, *timeout;
	const char *expect, *boot_error;
	bool kunit, need_done, no_ktap;
};

static int cmd_parse(int argc, char **argv)
{
	struct parse_args a = { 0 };
	struct doc d;
	FILE *out;
	int c;

	while ((c = getopt(argc, argv, "k:o:p:c:KNg:DT:t:s:e:B:")) != -1) {
		switch (c) {
		case 'k': a.kernel = optarg; break;
		case 'o': a.out = optarg; break;
		case 'c': a.console = optarg; break;
		case 'K': a.kunit = true; break;
		case 'N': a.no_ktap = true; break;
		case 'p': prefix = optarg; break;
		case 'e': a.expect = optarg; break;
		case 'B': a.boot_error = optarg; break;
		case 'g': a.guest = optarg; break;
		case 'D': a.need_done = true; break;
		case 'T': a.timeout = optarg; break;
		case 't': a.tap = optarg; break;
		case 's': a.suite = optarg; break;
		default: return usage();
		}
	}
	if (!a.kernel || !a.out || (a.tap && !a.suite))
		return usage();
	out = fopen(a.out, "a");
	if (!out) {
		fprintf(stderr, "ktapsum: %s: %s\n", a.out, strerror(errno));
		return 2;
	}
	doc_init(&d, a.kernel, "boot", out);
	if (a.timeout)
		problem(&d, "boot", "the guest hung: killed after %ss",
			a.timeout);
	if (a.boot_error)
		problem(&d, "boot", "the boot failed: %s", a.boot_error);
	if (a.console)
		parse_console(a.kernel, a.console, a.kunit, !a.no_ktap, out);
	if (a.guest)
		parse_guest(a.kernel, a.guest, a.need_done && !a.timeout,
			    a.expect, out);
	if (a.tap)
		parse_tap(a.kernel, a.suite, a.tap, out);
	return fclose(out) ? 2 : 0;
}

/* summary */

struct tally {
	char kernel[64], suite[TEXT];
	int pass, fail, skip, xfail;
};

static struct tally *tallies;
static int ntallies;

static struct tally *tally_of(const char *kernel, const char *suite)
{
	struct tally *t;
	int i;

	for (i = 0; i < ntallies; i++)
		if (!strcmp(tallies[i].kernel, kernel) &&
		    !strcmp(tallies[i].suite, suite))
			return &tallies[i];
	t = realloc(tallies, sizeof(*t) * (ntallies + 1));
	if (!t) {
		perror("ktapsum");
		exit(2);
	}
	tallies = t;
	t = &tallies[ntallies++];
	memset(t, 0, sizeof(*t));
	snprintf(t->kernel, sizeof(t->kernel), "%s", kernel);
	snprintf(t->suite, sizeof(t->suite), "%s", suite);
	return t;
}

/* Splits a record into its five fields; false if it is not one. */
static bool split_record(char *line, char **f)
{
	int i;

	line[strcspn(line, "\n")] = '\0';
	f[0] = line;
	for (i = 1; i < 5; i++) {
		f[i] = strchr(f[i - 1], '\t');
		if (!f[i])
			return false;
		*f[i]++ = '\0';
	}
	return true;
}

/*
 * The skips a run expects (-m, tests/guest/skips): a line per skip,
 * "KERNEL BOOT SUITE/TEST REASON", BOOT "-" for a suite of no boot (the
 * kernel's built-in KUnit, the host's), REASON a shell pattern of the
 * skip's reason; and a line "kernels K1 K2...", the kernels whose skips
 * it holds (without one, those its lines name).  A skip of such a kernel
 * that the list does not have, and a listed skip that did not happen in
 * a suite that ran, are failures; but "?SUITE/TEST" is a skip that may
 * happen or not (the host's doing, not the kernel's).  BOOT, SUITE and
 * TEST are shell patterns too: "*" for each, on a debug kernel, is any
 * test that skips for the reason given.  Another kernel's skips are not
 * checked, and the summary says so.
 */
struct listed_skip {
	char kernel[64], suite[TEXT * 5], name[TEXT * 3], reason[TEXT * 8];
	int line;
	bool seen, optional;
};

static struct listed_skip *listed;
static int nlisted;
static const char *manifest;
static char checked[1024];	/* " K1 K2 ": the "kernels" line's */

static int read_manifest(const char *path)
{
	char line[2048], boot[TEXT], test[TEXT * 3];
	struct listed_skip *l;
	int n = 0, used;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "ktapsum: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *slash;

		n++;
		line[strcspn(line, "\n")] = '\0';
		if (line[strspn(line, " \t")] == '#' || !line[strspn(line, " \t")])
			continue;
		if (!strncmp(line, "kernels", 7) && isspace((unsigned char)line[7])) {
			char *k, *save = NULL;

			for (k = strtok_r(line + 7, " \t", &save); k;
			     k = strtok_r(NULL, " \t", &save)) {
				size_t len = strlen(checked);

				snprintf(checked + len, sizeof(checked) - len,
					 "%s%s ", len ? "" : " ", k);
			}
			continue;
		}
		l = realloc(listed, sizeof(*l) * (nlisted + 1));
		if (!l) {
			perror("ktapsum");
			exit(2);
		}
		listed = l;
		l = &listed[nlisted];
		memset(l, 0, sizeof(*l));
		l->line = n;
		if (sscanf(line, "%63s %255s %767s %n", l->kernel, boot, test,
			   &used) < 3 || !(slash = strchr(test, '/')) ||
		    !line[used]) {
			fprintf(stderr, "ktapsum: %s:%d: not KERNEL BOOT "
				"SUITE/TEST REASON\n", path, n);
			fclose(f);
			return 1;
		}
		*slash = '\0';
		l->optional = test[0] == '?';
		if (strcmp(boot, "-"))
			snprintf(l->suite, sizeof(l->suite), "%s/%s", boot,
				 test + l->optional);
		else
			snprintf(l->suite, sizeof(l->suite), "%s",
				 test + l->optional);
		snprintf(l->name, sizeof(l->name), "%s", slash + 1);
		snprintf(l->reason, sizeof(l->reason), "%s", line + used);
		nlisted++;
	}
	fclose(f);
	return 0;
}

/* Whether the list holds @kernel's skips: only then are they checked. */
static bool kernel_listed(const char *kernel)
{
	char key[80];
	int i;

	if (checked[0]) {
		snprintf(key, sizeof(key), " %s ", kernel);
		return strstr(checked, key) != NULL;
	}
	for (i = 0; i < nlisted; i++)
		if (!strcmp(listed[i].kernel, kernel))
			return true;
	return false;
}

/*
 * A skip in the results: whether the list has it.  Every line that
 * matches it is seen, a pattern line's as well as a specific one's.
 */
static bool skip_listed(char **f)
{
	bool found = false;
	int i;

	for (i = 0; i < nlisted; i++) {
		struct listed_skip *l = &listed[i];

		if (!strcmp(l->kernel, f[0]) && !fnmatch(l->suite, f[1], 0) &&
		    !fnmatch(l->name, f[3], 0) && !fnmatch(l->reason, f[4], 0)) {
			l->seen = true;
			found = true;
		}
	}
	return found;
}

static int read_results(const char *path, FILE *failures, FILE *known)
{
	char line[8192], *f[5];
	struct tally *t;
	FILE *in = open_log(path);

	if (!in)
		return 1;
	while (fgets(line, sizeof(line), in)) {
		if (!split_record(line, f)) {
			fprintf(failures, "FAIL  %s: malformed record\n", path);
			tally_of("harness", "results")->fail++;
			continue;
		}
		t = tally_of(f[0], f[1]);
		if (!strcmp(f[2], "PASS")) {
			t->pass++;
		} else if (!strcmp(f[2], "SKIP") && manifest &&
			   kernel_listed(f[0]) && !skip_listed(f)) {
			t->fail++;
			fprintf(failures, "FAIL  %s/%s: %s\n        skipped (%s), "
				"and %s does not list that skip\n", f[0], f[1],
				f[3], f[4], manifest);
		} else if (!strcmp(f[2], "SKIP")) {
			t->skip++;
		} else if (!strcmp(f[2], "XFAIL")) {
			t->xfail++;
			fprintf(known, "KNOWN %s/%s: %s\n        %s\n", f[0], f[1],
				f[3], f[4]);
		} else {
			t->fail++;
			fprintf(failures, "FAIL  %s/%s: %s%s%s\n", f[0], f[1],
				f[3], f[4][0] ? "\n        " : "", f[4]);
		}
	}
	fclose(in);
	return 0;
}

static void copy_out(FILE *f)
{
	char buf[4096];
	size_t n;

	rewind(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
}

/* Whether the results have anything of @kernel's @suite: it ran. */
static bool suite_ran(const char *kernel, const char *suite)
{
	int i;

	for (i = 0; i < ntallies; i++)
		if (!strcmp(tallies[i].kernel, kernel) &&
		    !strcmp(tallies[i].suite, suite))
			return true;
	return false;
}

/* The listed skips that did not happen, in suites that ran. */
static void check_listed(FILE *failures)
{
	int i;

	for (i = 0; i < nlisted; i++) {
		struct listed_skip *l = &listed[i];

		if (l->seen || l->optional || !suite_ran(l->kernel, l->suite))
			continue;
		tally_of(l->kernel, l->suite)->fail++;
		fprintf(failures, "FAIL  %s/%s: %s\n        no skip for the "
			"reason %s:%d lists (%s): the line must go\n",
			l->kernel, l->suite, l->name, manifest, l->line,
			l->reason);
	}
}

static int cmd_summary(int argc, char **argv)
{
	int i, pass = 0, fail = 0, skip = 0, xfail = 0, bad = 0;
	FILE *failures = tmpfile(), *known = tmpfile();
	const char *kernel = "";

	if (argc > 2 && !strcmp(argv[1], "-m")) {
		manifest = argv[2];
		if (read_manifest(manifest))
			return 2;
		argc -= 2;
		argv += 2;
	}
	if (argc < 2 || !failures || !known)
		return usage();
	for (i = 1; i < argc; i++)
		bad += read_results(argv[i], failures, known);
	if (manifest)
		check_listed(failures);
	for (i = 0; i < ntallies; i++) {
		struct tally *t = &tallies[i];

		if (strcmp(kernel, t->kernel))
			printf("%s:\n", t->kernel);
		kernel = t->kernel;
		printf("  %-40s %4d passed, %d failed", t->suite, t->pass,
		       t->fail);
		if (t->skip)
			printf(", %d skipped", t->skip);
		printf(t->xfail ? ", %d known defects\n" : "\n", t->xfail);
		pass += t->pass;
		fail += t->fail;
		skip += t->skip;
		xfail += t->xfail;
	}
	/* A kernel the list does not name (a debug one): say so. */
	for (i = 0; manifest && i < ntallies; i++) {
		const char *k = tallies[i].kernel;
		int j, n = 0;

		for (j = 0; j < ntallies; j++)
			if (!strcmp(tallies[j].kernel, k)) {
				if (j < i)
					break;
				n += tallies[j].skip;
			}
		if (j == ntallies && n && !kernel_listed(k))
			printf("%s's %d skips are not checked: %s does not "
			       "hold that kernel's\n", k, n, manifest);
	}
	copy_out(known);
	copy_out(failures);
	fail += bad;
	/* The last line keeps its fixed form: known defects go before it. */
	if (xfail)
		printf("%d known defects (expected failures, not counted as passed)\n",
		       xfail);
	printf("%d passed, %d failed", pass, fail);
	printf(skip ? ", %d skipped\n" : "\n", skip);
	return fail ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "parse"))
		return cmd_parse(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "summary"))
		return cmd_summary(argc - 1, argv + 1);
	return usage();
}
