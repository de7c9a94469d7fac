// SPDX-License-Identifier: GPL-2.0
/*
 * dlcgfuzz: an invariant fuzzer of the deadline bandwidth caps of cgroup
 * v2's cpu controller (cpu.dl.max, cpu.dl.stat) and of unprivileged
 * SCHED_DEADLINE (kernel.sched_dl_unprivileged).  Ours only: the classic
 * implementation has no cpu.dl.max, and every test skips there.
 *
 * dlfuzz compares two kernels' records; there is no second kernel with
 * caps to compare with, so this fuzzer checks what must hold on ours
 * whatever the sequence, after every op:
 *
 *  - no cap is ever exceeded: a capped cgroup's bw (cpu.dl.stat, in
 *    2^-20 of a CPU) is at most its cap, floor((RUNTIME << 20) / PERIOD)
 *    of cpu.dl.max in microseconds as the kernel's to_ratio() makes it;
 *    the children's caps (an uncapped child standing for its own
 *    children) add up to at most the parent's; cpu.dl.max reads back
 *    what was last written with success;
 *  - the books add up: a cgroup holds at least what its children hold,
 *    and at least the bandwidth of the deadline workers in its subtree;
 *    nr_tasks is the number of those workers, where /proc says each is
 *    and sched_getattr() says what each has;
 *  - results are what the fuzzer can tell for sure beforehand (below);
 *  - at the end, with every worker killed, every cgroup's bw and
 *    nr_tasks are back to 0 and the root domain's total to its value at
 *    the start.
 *
 * What is held changes by itself in one direction only: a task that
 * left the class, or died, stays charged until its 0-lag time (up to a
 * period later), then a timer gives it back.  So the figures read after
 * one op bound from above what is held when the next op runs, and the
 * bandwidth of the live deadline workers bounds it from below.  That
 * makes some results certain: a request that fits every cap under the
 * upper figures (and, for sched_setattr(), the root domain's free
 * bandwidth) must be admitted; one that does not fit under the lower
 * must be refused with EBUSY, and counted in nr_refused; a lowering and
 * a move out to a path with no cap between must succeed; an unprivileged
 * request outside any slice, with the sysctl at 0, with a period under
 * kernel.sched_dl_unprivileged_period_min_us, with SCHED_FLAG_RECLAIM or
 * for another process, must be EPERM; a task admitted without privilege
 * that moves itself out of every slice, EPERM; a move by the user
 * outside its delegation, EACCES.  Between those lines either answer
 * may come, and only EBUSY may be the refusal.
 *
 * The ops, chosen by weight: create a cgroup (depth up to 3 below the
 * fuzz root /sys/fs/cgroup/fzcg, three in four delegated to uid 65534
 * as cgroup-v2.rst's "Delegation" describes), remove an empty one,
 * write cpu.dl.max (max, invalid, under what its workers hold, at it,
 * over the parent's room, or anything), spawn a worker (root or uid
 * 65534, placed by root in a leaf), sched_setattr() on a worker (by
 * root, by itself, by another unprivileged worker; raising, at a cap's
 * line and one unit over it, lowering, leaving to SCHED_OTHER, a period
 * under the unprivileged floor, reclaim), move a worker (root, or the
 * user moving itself), kill a worker, set kernel.sched_dl_unprivileged
 * (to 1 more often than to 0).  Workers are processes blocked on a pipe
 * that make the calls they are told to make: an unprivileged task may
 * only change itself.  Every QUIET ops the books must be exact once
 * every 0-lag time has passed (quiet_check()).
 *
 * The first test runs the fuzz; each test reports the violations of its
 * invariant, each naming the op (its index and what it was) and the
 * figures.
 *
 * Processes may only sit in leaves (cgroup v2 keeps them out of a
 * cgroup that passes a controller to its children), so a cgroup that
 * gets a child first gets "+cpu" in its subtree_control and has no
 * worker, and one that loses its last child gives it back.
 *
 * Op i draws its numbers from (seed, i) alone and applies them to the
 * state the ops before it left: on one kernel the same seed makes the
 * same sequence as long as the results are the same (a 0-lag time
 * passing sooner or later can change one, and the path after it).
 *
 * Usage: dlcgfuzz [-s SEED] [-n OPS] [-T SECONDS] [-v]
 *   -T: stop making ops after SECONDS (the end's checks still run): a
 *       slow kernel (a debug one) does fewer ops within its time limit;
 *   -v: print every op and its result, and every violation as it comes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dl.h"
#include "file.h"
#include "spin.h"
#include "tap.h"

#define CG "/sys/fs/cgroup"
#define FZ "fzcg"
#define NOBODY 65534
#define US NSEC_PER_USEC
#define MS NSEC_PER_MSEC

#define MAXCG 14		/* fzcg and up to 13 below it */
#define MAXDEPTH 3		/* fzcg/a/b/c */
#define MAXW 10			/* workers alive at once */
/*
 * Under TCG the guest's clock is the host's: time the host takes a vCPU
 * away is charged to the guest task that was running, a deadline
 * worker's budget too.  On a loaded host (a kernel build beside the
 * guest) a worker of 500 us every 20 ms took over 10 s to write
 * cgroup.procs, and as long again to die.  So a worker's budget is 1 ms
 * at least, an answer slower than SLOW_MS is noted, and only one that
 * never comes (REPLY_MS) is a failure: a task whose replenishment was
 * lost would never answer.
 */
#define REPLY_MS 60000
#define SLOW_MS 5000
#define RUNTIME_FLOOR (1000 * US)
/*
 * The root domain's line is not where this fuzzer looks: a request is
 * said to fit it only with this much (2^-20 CPU) to spare.
 */
#define RD_MARGIN 64

#define SKIP_REASON "no cpu.dl.max: deadline caps are ours (the classic implementation)"

/* ---- the model: what the fuzzer did, and what it read back ---- */

struct cg {
	bool used;
	char path[96];		/* below CG: "fzcg/c3/c7" */
	int parent;		/* -1 for fzcg */
	int depth;		/* fzcg 0 */
	bool deleg;		/* given to NOBODY */
	bool cpu_below;		/* "+cpu" in subtree_control: no workers */
	int nchild;
	/* cpu.dl.max as last written with success */
	bool capped;
	long long rt_us, per_us;
	long long cap;		/* (rt_us << 20) / per_us */
	/* bw read after the last op: an upper bound of what is held now */
	long long r_bw;
};

struct worker {
	bool used;
	pid_t pid;
	bool nobody;
	int cg;
	int cmd_fd, rep_fd;
	bool dl;
	long long runtime, deadline, period;	/* ns */
	uint64_t flags;
	long long bw;
	bool marked;		/* admitted without privilege */
};

static struct cg cg[MAXCG];
static struct worker wk[MAXW];
static int ncg_made;		/* for unique names */
static int ncpus, npossible;
static long sysctl_unpriv, unpriv_was, period_min_us;
static bool density_on;
static bool dying;		/* removed cgroups not yet released */
static long long rd_limit, rd_total;	/* the root domain, last read */
static bool verbose;

/* ---- violations and counts ---- */

enum { V_RUN, V_CAPS, V_BOOKS, V_PRED, V_END, V_N };
static const char *const test_name[V_N] = {
	"fuzz_completed", "caps_never_exceeded", "holdings_add_up",
	"results_as_predicted", "totals_back_at_the_end",
};
#define VKEEP 24

/*
 * The first test runs the whole fuzz in its child (tap.c runs each test
 * in a process of its own); each test then judges its invariants from
 * what the run left here, in memory shared with the parent and so with
 * the tests after it.
 */
static struct shared {
	bool ran;		/* to the end: the totals were waited for */
	bool skipped;
	char skip_why[160];
	long nviol[V_N];
	char msg[V_N][VKEEP][480];
	char figures[V_N][200];	/* each test's summary line */
} *sh;

static long op_idx = -1;	/* -1: setup; nops: the end */
static char op_desc[200];

static void viol(int cat, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void viol(int cat, const char *fmt, ...)
{
	char buf[480];
	int n = 0;
	va_list ap;

	if (op_idx >= 0)
		n = snprintf(buf, sizeof(buf), "op %ld (%s): ", op_idx,
			     op_desc);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	if (sh->nviol[cat] < VKEEP)
		snprintf(sh->msg[cat][sh->nviol[cat]], sizeof(sh->msg[0][0]),
			 "%s", buf);
	sh->nviol[cat]++;
	if (verbose)
		tap_diag("VIOLATION %s: %s", test_name[cat], buf);
}

enum {
	K_MKCG, K_RMCG, K_CAP, K_SPAWN, K_SET, K_MOVE, K_KILL, K_SYSCTL, K_N
};
static const char *const kind_name[K_N] = {
	"mkcg", "rmcg", "cap", "spawn", "setattr", "move", "kill", "sysctl",
};
enum { RES_OK, RES_EBUSY, RES_EPERM, RES_EACCES, RES_EINVAL, RES_OTHER, RES_N };
static const char *const res_name[RES_N] = {
	"ok", "EBUSY", "EPERM", "EACCES", "EINVAL", "other",
};
static long nres[K_N][RES_N];
static long nsure[K_N], nops_kind[K_N];

static int res_of(int err)
{
	switch (err) {
	case 0: return RES_OK;
	case EBUSY: return RES_EBUSY;
	case EPERM: return RES_EPERM;
	case EACCES: return RES_EACCES;
	case EINVAL: return RES_EINVAL;
	default: return RES_OTHER;
	}
}

static const char *err_name(int err)
{
	return err ? strerrorname_np(err) ?: "?" : "ok";
}

/* ---- the generator: op i's numbers from (seed, i) only ---- */

static uint64_t rs;

static void rnd_start(uint64_t s, long i)
{
	uint64_t z = s * 0x9e3779b97f4a7c15ULL + (uint64_t)i + 1;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	rs = (z ^ (z >> 31)) | 1;
}

/* xorshift64*: each op draws a few dozen numbers at most */
static uint64_t rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 0x2545f4914f6cdd1dULL;
}

static int pick(int n)
{
	return n > 0 ? (int)(rnd() % (uint64_t)n) : 0;
}

static bool chance(int pct)
{
	return pick(100) < pct;
}

/* ---- the model's arithmetic, as dl_cgroup.c does it ---- */

static long long bw_of(long long runtime, long long period)
{
	return (long long)(((unsigned long long)runtime << 20) / period);
}

static bool is_anc(int a, int g)
{
	for (; g >= 0; g = cg[g].parent)
		if (g == a)
			return true;
	return false;
}

/* What the live deadline workers of @g's subtree hold, @except aside. */
static long long live_bw_under(int g, int except)
{
	long long sum = 0;
	int w;

	for (w = 0; w < MAXW; w++)
		if (wk[w].used && wk[w].dl && w != except && is_anc(g, wk[w].cg))
			sum += wk[w].bw;
	return sum;
}

static long live_dl_under(int g)
{
	long n = 0;
	int w;

	for (w = 0; w < MAXW; w++)
		n += wk[w].used && wk[w].dl && is_anc(g, wk[w].cg);
	return n;
}

static int nworkers_in(int g)
{
	int w, n = 0;

	for (w = 0; w < MAXW; w++)
		n += wk[w].used && wk[w].cg == g;
	return n;
}

/* A cap written by root on the path: every cap here is root's. */
static bool in_slice(int g)
{
	for (; g >= 0; g = cg[g].parent)
		if (cg[g].capped)
			return true;
	return false;
}

static long long contribution(int g);

/* The caps directly below @g, an uncapped child's own standing for it. */
static long long caps_below(int g)
{
	long long sum = 0;
	int c;

	for (c = 0; c < MAXCG; c++)
		if (cg[c].used && cg[c].parent == g)
			sum += contribution(c);
	return sum;
}

static long long contribution(int g)
{
	return cg[g].capped ? cg[g].cap : caps_below(g);
}

static int common(int a, int b)
{
	for (; a >= 0; a = cg[a].parent)
		if (is_anc(a, b))
			return a;
	return -1;
}

/* ---- files ---- */

static void cg_file(char *buf, size_t n, int g, const char *file)
{
	snprintf(buf, n, CG "/%s/%s", cg[g].path, file);
}

static int read_text(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = read(fd, buf, n - 1);
	close(fd);
	if (r < 0)
		return -1;
	buf[r] = 0;
	return 0;
}

/* A field of cpu.dl.stat's text ("nr_tasks 1\nbw_ppm ..."), or -1. */
static long long field_of(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, name, n) && p[n] == ' ')
			return atoll(p + n + 1);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

static int put_errno(const char *path, const char *fmt, long long v)
{
	return file_put(path, fmt, v) ? errno : 0;
}

/* ---- workers ---- */

enum { CMD_SET, CMD_MOVE };

struct cmd {
	int kind;
	pid_t target;		/* CMD_SET: 0 for itself */
	struct dl_attr attr;
	char path[200];		/* CMD_MOVE: a cgroup.procs */
};

struct reply {
	int err;
};

/*
 * A worker makes each call it is told to, as itself: the user's calls
 * must come from the user's own process.  It dies with the controller.
 */
static void worker_main(int cfd, int rfd, bool nobody)
{
	struct reply r;
	struct cmd c;

	if (nobody && (setgroups(0, NULL) || setgid(NOBODY) ||
		       setuid(NOBODY)))
		_exit(100);
	/* after setuid(), which clears it */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (read(cfd, &c, sizeof(c)) == sizeof(c)) {
		if (c.kind == CMD_SET)
			r.err = dl_setattr(c.target, &c.attr, 0) ? errno : 0;
		else
			r.err = put_errno(c.path, "%lld", (long long)getpid());
		if (write(rfd, &r, sizeof(r)) != sizeof(r))
			_exit(101);
	}
	_exit(0);
}

static int free_worker_slot(void)
{
	int w;

	for (w = 0; w < MAXW; w++)
		if (!wk[w].used)
			return w;
	return -1;
}

static void worker_close(int w)
{
	close(wk[w].cmd_fd);
	close(wk[w].rep_fd);
	wk[w].used = false;
}

/* Send @c to worker @w and wait for its answer: the errno, or -1. */
static long slow_answers;

static int worker_call(int w, const struct cmd *c)
{
	struct pollfd p = { .fd = wk[w].rep_fd, .events = POLLIN };
	int64_t t0 = now_ns();
	struct reply r;

	if (write(wk[w].cmd_fd, c, sizeof(*c)) != sizeof(*c))
		return -1;
	if (poll(&p, 1, REPLY_MS) != 1 ||
	    read(wk[w].rep_fd, &r, sizeof(r)) != sizeof(r))
		return -1;
	if (now_ns() - t0 > SLOW_MS * (int64_t)MS && slow_answers++ < 5)
		tap_diag("op %ld: w%d (%s %lld/%lld/%lld us) answered after %lld ms (host stalls charged to its budget?)",
			 op_idx, w, wk[w].dl ? "deadline" : "other",
			 wk[w].runtime / 1000, wk[w].deadline / 1000,
			 wk[w].period / 1000,
			 (long long)((now_ns() - t0) / MS));
	return r.err;
}

static void worker_kill(int w)
{
	kill(wk[w].pid, SIGKILL);
	waitpid(wk[w].pid, NULL, 0);
	worker_close(w);
}

/*
 * A worker that did not answer: what /proc says it is doing (its state,
 * where it sleeps, its kernel stack, function names only), then how long
 * SIGKILL takes to end it.
 */
static void worker_hung(int w)
{
	char path[64], stack[2048], out[400], wchan[64] = "?", state = '?';
	int cpu = -1, n = 0;
	char *p, *q;
	int64_t t0;
	pid_t pid = wk[w].pid;

	proc_stat_cpu(pid, &state, &cpu);
	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	read_text(path, wchan, sizeof(wchan));
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	if (read_text(path, stack, sizeof(stack)))
		snprintf(stack, sizeof(stack), "?");
	out[0] = 0;
	for (p = stack; p && *p && n < (int)sizeof(out) - 1; p = q) {
		q = strchr(p, '\n');
		if (q)
			*q++ = 0;
		if (!strncmp(p, "[<", 2) && strchr(p, ' '))
			p = strchr(p, ' ') + 1;
		n += snprintf(out + n, sizeof(out) - n, "%s%.*s", n ? " < " : "",
			      (int)strcspn(p, "+"), p);
	}
	tap_diag("op %ld: w%d (pid %d) not answering: state %c on CPU %d, in %s; its kernel stack: %s",
		 op_idx, w, pid, state, cpu, wchan, out);
	t0 = now_ns();
	worker_kill(w);
	viol(V_RUN, "w%d (pid %d%s, %s %lld/%lld/%lld us) did not answer within %d ms: state %c, in %s; gone %lld ms after SIGKILL",
	     w, pid, wk[w].nobody ? ", uid 65534" : "",
	     wk[w].dl ? "deadline" : "other", wk[w].runtime / 1000,
	     wk[w].deadline / 1000, wk[w].period / 1000, REPLY_MS, state,
	     wchan, (long long)((now_ns() - t0) / MS));
}

/* ---- reading the kernel's books and checking them ---- */

/* The fuzz cgroups, parents before children: see check_books(). */
static int preorder(int *order)
{
	int stack[MAXCG], sp = 0, n = 0, g, c;

	stack[sp++] = 0;
	while (sp) {
		g = stack[--sp];
		order[n++] = g;
		for (c = MAXCG - 1; c >= 0; c--)
			if (cg[c].used && cg[c].parent == g)
				stack[sp++] = c;
	}
	return n;
}

static bool read_rd(long long *total)
{
	long long bw[DL_MAX_CPUS], tot[DL_MAX_CPUS];

	if (dl_bw_of_cpus(ncpus, bw, tot) || tot[0] == DL_BW_NONE)
		return false;
	rd_limit = bw[0];
	*total = tot[0];
	return true;
}

struct readout {
	long long bw[MAXCG], nr[MAXCG], refused[MAXCG];
	bool capped[MAXCG];
	long long cap[MAXCG];
};

/*
 * Read every fuzz cgroup's cpu.dl.max and cpu.dl.stat, parents first,
 * checking the caps on every read: a cap exceeded for an instant is a
 * cap exceeded.  Held amounts only fall between two reads (a 0-lag time
 * passing, which a timer gives back along the whole path at once), so a
 * parent read before its children holds at least what they are read to
 * hold.
 */
static bool read_all(struct readout *ro)
{
	char path[160], text[256], tok[24];
	int order[MAXCG], n = preorder(order), i, g, c;
	long long rt, per, sum;
	bool ok = true;

	memset(ro, 0, sizeof(*ro));

	for (i = 0; i < n; i++) {
		g = order[i];
		cg_file(path, sizeof(path), g, "cpu.dl.max");
		if (read_text(path, text, sizeof(text)) ||
		    sscanf(text, "%23s %lld", tok, &per) != 2) {
			viol(V_CAPS, "%s: cpu.dl.max unreadable: %s", path,
			     strerror(errno));
			ok = false;
			continue;
		}
		ro->capped[g] = strcmp(tok, "max") != 0;
		rt = ro->capped[g] ? atoll(tok) : -1;
		ro->cap[g] = ro->capped[g] && per > 0 ? bw_of(rt, per) : -1;
		if (ro->capped[g] != cg[g].capped || per != cg[g].per_us ||
		    (cg[g].capped && rt != cg[g].rt_us))
			viol(V_CAPS, "%s reads cpu.dl.max \"%s %lld\", last written with success %lld %lld",
			     cg[g].path, tok, per, cg[g].capped ? cg[g].rt_us : -1,
			     cg[g].per_us);
		cg_file(path, sizeof(path), g, "cpu.dl.stat");
		if (read_text(path, text, sizeof(text))) {
			viol(V_BOOKS, "%s: unreadable: %s", path,
			     strerror(errno));
			ok = false;
			continue;
		}
		ro->bw[g] = field_of(text, "bw");
		ro->nr[g] = field_of(text, "nr_tasks");
		ro->refused[g] = field_of(text, "nr_refused");
		if (ro->bw[g] < 0 || ro->nr[g] < 0 || ro->refused[g] < 0)
			viol(V_BOOKS, "%s: cpu.dl.stat lacks a field: %s",
			     cg[g].path, text);
		if (ro->capped[g] && ro->bw[g] > ro->cap[g])
			viol(V_CAPS, "%s holds %lld, over its cap %lld (%s %lld)",
			     cg[g].path, ro->bw[g], ro->cap[g], tok, per);
	}
	/* The children's caps within the parent's, as read. */
	for (i = 0; ok && i < n; i++) {
		g = order[i];
		if (!ro->capped[g])
			continue;
		sum = 0;
		for (c = 0; c < MAXCG; c++) {
			int d;
			long long below = 0;

			if (!cg[c].used || cg[c].parent != g)
				continue;
			if (ro->capped[c]) {
				sum += ro->cap[c];
				continue;
			}
			/* an uncapped child: its nearest capped descendants */
			for (d = 0; d < MAXCG; d++) {
				int a;

				if (!cg[d].used || d == c || !is_anc(c, d) ||
				    !ro->capped[d])
					continue;
				for (a = cg[d].parent; a != c; a = cg[a].parent)
					if (ro->capped[a])
						break;
				if (a == c)
					below += ro->cap[d];
			}
			sum += below;
		}
		if (sum > ro->cap[g])
			viol(V_CAPS, "the caps below %s add up to %lld, over its cap %lld",
			     cg[g].path, sum, ro->cap[g]);
	}
	return ok;
}

/* The books against the workers: 0 if they agree, else the count of misses. */
static int books_misses(const struct readout *ro, bool report)
{
	int g, c, misses = 0;
	long long sum;

	for (g = 0; g < MAXCG; g++) {
		if (!cg[g].used)
			continue;
		sum = 0;
		for (c = 0; c < MAXCG; c++)
			if (cg[c].used && cg[c].parent == g)
				sum += ro->bw[c];
		if (ro->bw[g] < sum) {
			misses++;
			if (report)
				viol(V_BOOKS, "%s holds %lld, less than its children's %lld",
				     cg[g].path, ro->bw[g], sum);
		}
		sum = live_bw_under(g, -1);
		if (ro->bw[g] < sum) {
			misses++;
			if (report)
				viol(V_BOOKS, "%s holds %lld, less than its %ld deadline workers' %lld",
				     cg[g].path, ro->bw[g], live_dl_under(g), sum);
		}
		if (ro->nr[g] != live_dl_under(g)) {
			misses++;
			if (report)
				viol(V_BOOKS, "%s: nr_tasks %lld, %ld deadline workers in its subtree",
				     cg[g].path, ro->nr[g], live_dl_under(g));
		}
	}
	return misses;
}

/* Where /proc says worker @w is, and what sched_getattr() says it has. */
static void check_worker(int w)
{
	char path[64], text[512], want[128], *l;
	struct dl_attr a;
	bool dl;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", wk[w].pid);
	snprintf(want, sizeof(want), "0::/%s\n", cg[wk[w].cg].path);
	if (read_text(path, text, sizeof(text))) {
		viol(V_PRED, "w%d: %s: %s", w, path, strerror(errno));
		return;
	}
	/* the unified hierarchy's line, whatever v1 hierarchies there are */
	l = text;
	while (l && strncmp(l, "0::", 3)) {
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	if (!l || strncmp(l, want, strlen(want)))
		viol(V_PRED, "w%d (pid %d) is in %.*s, the fuzzer put it in /%s",
		     w, wk[w].pid, l ? (int)strcspn(l + 3, "\n") : 4,
		     l ? l + 3 : "none", cg[wk[w].cg].path);
	memset(&a, 0, sizeof(a));
	if (dl_getattr(wk[w].pid, &a, sizeof(a), 0)) {
		viol(V_PRED, "w%d: sched_getattr: %s", w, strerror(errno));
		return;
	}
	dl = a.sched_policy == SCHED_DEADLINE;
	if (dl != wk[w].dl ||
	    (dl && ((long long)a.sched_runtime != wk[w].runtime ||
		    (long long)a.sched_deadline != wk[w].deadline ||
		    (long long)a.sched_period != wk[w].period ||
		    (a.sched_flags & DL_FLAG_RECLAIM) !=
		    (wk[w].flags & DL_FLAG_RECLAIM))))
		viol(V_PRED, "w%d has policy %u %llu/%llu/%llu flags %#llx, the results said %s %lld/%lld/%lld",
		     w, a.sched_policy,
		     (unsigned long long)a.sched_runtime,
		     (unsigned long long)a.sched_deadline,
		     (unsigned long long)a.sched_period,
		     (unsigned long long)a.sched_flags,
		     wk[w].dl ? "deadline" : "other", wk[w].runtime,
		     wk[w].deadline, wk[w].period);
}

/* Whether the cgroups removed so far are all released (offline, freed). */
static bool dying_done(void)
{
	char path[160], text[256];

	cg_file(path, sizeof(path), 0, "cgroup.stat");
	return !read_text(path, text, sizeof(text)) &&
	       field_of(text, "nr_dying_descendants") == 0;
}

static bool checked;	/* check_all() ran for this op */

/*
 * After every op: the caps, the books and the workers.  A worker killed
 * may still be on its way out: the parent can reap it before its last
 * switch gives up the class, so a count that does not match is read
 * again for up to 5 s before it is a violation (a dying deadline task
 * on a host that takes the vCPUs away can be that slow: see REPLY_MS).
 * Then the figures are kept as the bounds of the next op.
 */
static void check_all(struct readout *ro)
{
	int w, g, tries;
	long long total, sum = 0;

	checked = true;

	for (tries = 0; ; tries++) {
		if (!read_all(ro))
			break;
		if (!books_misses(ro, false) || tries >= 500) {
			books_misses(ro, true);
			break;
		}
		sleep_until(now_ns() + 10 * MS);
	}
	for (g = 0; g < MAXCG; g++) {
		if (!cg[g].used)
			continue;
		cg[g].r_bw = ro->bw[g];
	}
	for (w = 0; w < MAXW; w++) {
		if (!wk[w].used)
			continue;
		check_worker(w);
		if (wk[w].dl)
			sum += wk[w].bw;
	}
	if (!read_rd(&total)) {
		viol(V_BOOKS, "the root domain's figures unreadable");
	} else {
		rd_total = total;
		if (total < sum)
			viol(V_BOOKS, "the root domain's total %lld, less than the deadline workers' %lld",
			     total, sum);
	}
	if (dying && dying_done())
		dying = false;
}

static long long refused_sum(const struct readout *ro)
{
	long long s = 0;
	int g;

	for (g = 0; g < MAXCG; g++)
		if (cg[g].used)
			s += ro->refused[g];
	return s;
}

/* ---- predictions ---- */

/*
 * What an op must return: @sure and @want, or (not sure) either 0 or
 * EBUSY.  @why says what made it sure, for the violation's message;
 * @cap_refuses, that a refusal is a cap's (counted in nr_refused).
 */
struct pred {
	bool sure;
	int want;
	bool cap_refuses;
	char why[160];
};

static void pred_set(struct pred *p, int want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void pred_set(struct pred *p, int want, const char *fmt, ...)
{
	va_list ap;

	p->sure = true;
	p->want = want;
	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
}

/*
 * Bandwidth @more asked on top of what @g's path holds, from @g up to
 * @stop (not included): refused for sure if a capped group's live
 * workers leave no room; admitted for sure (as far as caps go) if each
 * capped group's last figure does.
 */
static void pred_caps(struct pred *p, int g, int stop, long long more,
		      bool *fits)
{
	int a;

	*fits = true;
	for (a = g; a >= 0 && a != stop; a = cg[a].parent) {
		if (!cg[a].capped)
			continue;
		if (live_bw_under(a, -1) + more > cg[a].cap) {
			pred_set(p, EBUSY, "%s: its deadline workers hold %lld, +%lld is over its cap %lld",
				 cg[a].path, live_bw_under(a, -1), more,
				 cg[a].cap);
			p->cap_refuses = true;
			return;
		}
		if (cg[a].r_bw + more > cg[a].cap)
			*fits = false;
	}
}

static void pred_setattr(struct pred *p, int w, int caller, bool self,
			 const struct dl_attr *a)
{
	bool priv = caller < 0 ? true : !wk[caller].nobody;
	long long newbw, more;
	bool fits;

	memset(p, 0, sizeof(*p));
	if (a->sched_policy == SCHED_DEADLINE &&
	    (a->sched_runtime > a->sched_deadline ||
	     a->sched_deadline > a->sched_period)) {
		pred_set(p, EINVAL, "runtime <= deadline <= period broken");
		return;
	}
	if (!priv && !self) {
		/* another process: only a fair policy for the same user */
		if (a->sched_policy != SCHED_DEADLINE && wk[w].nobody)
			pred_set(p, 0, "the user's fair policy for its own task");
		else
			pred_set(p, EPERM, "the user's task for another process");
		return;
	}
	if (a->sched_policy != SCHED_DEADLINE) {
		pred_set(p, 0, "leaving the class");
		return;
	}
	if (!priv) {
		if (!sysctl_unpriv) {
			pred_set(p, EPERM, "unprivileged, sched_dl_unprivileged 0");
			return;
		}
		if ((long long)a->sched_period < period_min_us * (long long)US) {
			pred_set(p, EPERM, "unprivileged, period under %ld us",
				 period_min_us);
			return;
		}
		if (a->sched_flags & DL_FLAG_RECLAIM) {
			pred_set(p, EPERM, "unprivileged, SCHED_FLAG_RECLAIM");
			return;
		}
		if (!in_slice(wk[w].cg)) {
			pred_set(p, EPERM, "unprivileged, no cap on /%s's path",
				 cg[wk[w].cg].path);
			return;
		}
	}
	newbw = bw_of(a->sched_runtime, a->sched_period);
	more = newbw - (wk[w].dl ? wk[w].bw : 0);
	if (more <= 0) {
		pred_set(p, 0, "lowering, %lld to %lld",
			 wk[w].dl ? wk[w].bw : 0, newbw);
		return;
	}
	pred_caps(p, wk[w].cg, -1, more, &fits);
	if (p->sure)
		return;
	if (fits && !density_on &&
	    rd_total + more + RD_MARGIN <= rd_limit * ncpus)
		pred_set(p, 0, "+%lld fits every cap and the root domain (%lld of %lld)",
			 more, rd_total, rd_limit * ncpus);
}

static void pred_move(struct pred *p, int w, int dst, bool by_user)
{
	int stop = common(wk[w].cg, dst);
	bool fits;

	memset(p, 0, sizeof(*p));
	if (by_user && (!cg[dst].deleg || !cg[stop].deleg)) {
		pred_set(p, EACCES, "/%s or /%s not delegated", cg[dst].path,
			 cg[stop].path);
		return;
	}
	if (!wk[w].dl) {
		pred_set(p, 0, "no deadline bandwidth");
		return;
	}
	if (by_user && wk[w].marked && !in_slice(dst)) {
		pred_set(p, EPERM, "admitted without privilege, no cap on /%s's path",
			 cg[dst].path);
		return;
	}
	pred_caps(p, dst, stop, wk[w].bw, &fits);
	if (!p->sure && fits)
		pred_set(p, 0, "%lld fits every cap from /%s to /%s",
			 wk[w].bw, cg[dst].path, cg[stop].path);
}

/*
 * A write of cpu.dl.max, as dl_tg_set_max() judges it: the cap (new
 * contribution @to to the parent) against what is held and the caps
 * below, then the first capped ancestor's room.
 */
static void pred_cap(struct pred *p, int g, bool capped, long long rt,
		     long long per, bool valid)
{
	long long max = capped ? bw_of(rt, per) : 0, from, to;
	int a;

	memset(p, 0, sizeof(*p));
	if (!valid) {
		pred_set(p, EINVAL, "outside the limits");
		return;
	}
	if (!capped) {
		pred_set(p, 0, "max is no less than any cap");
		return;
	}
	if (max < live_bw_under(g, -1)) {
		pred_set(p, EBUSY, "under its deadline workers' %lld",
			 live_bw_under(g, -1));
		return;
	}
	if (max < caps_below(g)) {
		pred_set(p, EBUSY, "under the caps below, %lld", caps_below(g));
		return;
	}
	from = contribution(g);
	to = max;
	/*
	 * An uncapped group's contribution is its caps below, which may
	 * still count a removed cgroup's (see below): then the kernel's
	 * from may be more, and no carry is sure.
	 */
	for (a = cg[g].parent; a >= 0 && to > from && (!dying || cg[g].capped);
	     a = cg[a].parent) {
		if (!cg[a].capped)
			continue;
		if (caps_below(a) - from + to > cg[a].cap) {
			pred_set(p, EBUSY, "over /%s's room: %lld - %lld + %lld > %lld",
				 cg[a].path, caps_below(a), from, to,
				 cg[a].cap);
			return;
		}
		break;
	}
	/*
	 * A removed cgroup's cap leaves its parent's caps_below when the
	 * cgroup goes offline, after rmdir() returned: until then the caps
	 * below may be more than those the model has, never less, so the
	 * refusals above stand (the room of a capped ancestor with more
	 * below is less still) and no admission is sure.
	 */
	if (!dying && max >= cg[g].r_bw)
		pred_set(p, 0, "at least what it held, %lld", cg[g].r_bw);
}

/* Check @err against @p; false if it is not what was predicted. */
static bool judge(int kind, const struct pred *p, int err)
{
	nops_kind[kind]++;
	nres[kind][res_of(err)]++;
	if (p->sure) {
		nsure[kind]++;
		if (err != p->want) {
			viol(V_PRED, "%s, want %s (%s)", err_name(err),
			     err_name(p->want), p->why);
			return false;
		}
	} else if (err && err != EBUSY) {
		viol(V_PRED, "%s, want ok or EBUSY", err_name(err));
		return false;
	}
	return true;
}

/*
 * nr_refused counts the admissions a cap refused: one for a refusal by
 * a cap, none for success or the root domain's refusal.
 */
static void judge_refused(const struct readout *before,
			  const struct readout *after, const struct pred *p,
			  int err, bool move)
{
	long long d = refused_sum(after) - refused_sum(before);

	if (err != EBUSY ? d != 0 :
	    (move || p->cap_refuses) ? d != 1 : d != 0 && d != 1)
		viol(V_PRED, "%s, and nr_refused went up %lld", err_name(err),
		     d);
}

/* ---- the ops ---- */

static int leaves(int *out)
{
	int g, n = 0;

	for (g = 1; g < MAXCG; g++)
		if (cg[g].used && !cg[g].cpu_below)
			out[n++] = g;
	return n;
}

static void delegate(int g)
{
	static const char *const files[] = {
		"", "/cgroup.procs", "/cgroup.threads", "/cgroup.subtree_control",
	};
	char p[200];
	unsigned int i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), CG "/%s%s", cg[g].path, files[i]);
		if (chown(p, NOBODY, NOBODY))
			viol(V_RUN, "chown %s: %s", p, strerror(errno));
	}
	cg[g].deleg = true;
}

static int subtree_cpu(int g, bool on)
{
	char p[200];

	cg_file(p, sizeof(p), g, "cgroup.subtree_control");
	return file_put(p, on ? "+cpu" : "-cpu") ? errno : 0;
}

/* A new cgroup below one that has no worker, at depth 3 at most. */
static bool op_mkcg(void)
{
	int cand[MAXCG], n = 0, g, p, c, err;
	bool deleg = chance(75);
	int choice = pick(1000);
	char path[200];

	for (g = 0; g < MAXCG; g++)
		if (cg[g].used && cg[g].depth < MAXDEPTH &&
		    (cg[g].cpu_below || !nworkers_in(g)))
			cand[n++] = g;
	for (c = 0; c < MAXCG && cg[c].used; c++)
		;
	if (!n || c == MAXCG)
		return false;
	p = cand[choice % n];
	snprintf(op_desc, sizeof(op_desc), "mkcg below /%s%s", cg[p].path,
		 deleg ? ", delegated" : "");
	if (!cg[p].cpu_below) {
		err = subtree_cpu(p, true);
		if (err) {
			viol(V_PRED, "+cpu in /%s, where no process is: %s",
			     cg[p].path, err_name(err));
			return true;
		}
		cg[p].cpu_below = true;
	}
	snprintf(path, sizeof(path), "%s/c%d", cg[p].path, ++ncg_made);
	memset(&cg[c], 0, sizeof(cg[c]));
	snprintf(cg[c].path, sizeof(cg[c].path), "%.95s", path);
	snprintf(path, sizeof(path), CG "/%s", cg[c].path);
	err = mkdir(path, 0755) ? errno : 0;
	judge(K_MKCG, &(struct pred){ .sure = true, .want = 0,
		      .why = "a new name" }, err);
	if (verbose)
		tap_diag("op %ld: %s: /%s %s", op_idx, op_desc, cg[c].path,
			 err_name(err));
	if (err)
		return true;
	cg[c].used = true;
	cg[c].parent = p;
	cg[c].depth = cg[p].depth + 1;
	cg[c].per_us = 100000;
	cg[p].nchild++;
	if (deleg)
		delegate(c);
	return true;
}

/*
 * Remove an empty leaf, never fzcg's last child: workers need a leaf.
 * A parent left with no child gives the cpu controller back, so that
 * it can hold workers.
 */
static bool op_rmcg(void)
{
	int cand[MAXCG], n = 0, g, p, err;
	int choice = pick(1000);
	char path[200];

	for (g = 1; g < MAXCG; g++)
		if (cg[g].used && !cg[g].cpu_below && !nworkers_in(g) &&
		    !(cg[g].parent == 0 && cg[0].nchild == 1))
			cand[n++] = g;
	if (!n)
		return false;
	g = cand[choice % n];
	p = cg[g].parent;
	snprintf(op_desc, sizeof(op_desc), "rmcg /%s (held %lld)", cg[g].path,
		 cg[g].r_bw);
	snprintf(path, sizeof(path), CG "/%s", cg[g].path);
	err = rmdir(path) ? errno : 0;
	judge(K_RMCG, &(struct pred){ .sure = true, .want = 0,
		      .why = "no process, no child" }, err);
	if (verbose)
		tap_diag("op %ld: %s: %s", op_idx, op_desc, err_name(err));
	if (err)
		return true;
	cg[g].used = false;
	cg[p].nchild--;
	dying = true;
	if (p && !cg[p].nchild) {
		err = subtree_cpu(p, false);
		if (err)
			viol(V_PRED, "-cpu in /%s, with no child left: %s",
			     cg[p].path, err_name(err));
		else
			cg[p].cpu_below = false;
	}
	/* Most releases take an RCU grace period or two. */
	for (n = 0; n < 20 && !dying_done(); n++)
		sleep_until(now_ns() + 5 * MS);
	return true;
}

static const long long cap_periods[] = { 10000, 50000, 100000, 200000,
					 1000000 };

/* The @n-th (mod their number) fuzz cgroup. */
static int nth_cg(int n)
{
	int g, used = 0;

	for (g = 0; g < MAXCG; g++)
		used += cg[g].used;
	n %= used;
	for (g = 0; g < MAXCG; g++)
		if (cg[g].used && !n--)
			break;
	return g;
}

static bool op_cap(struct readout *ro)
{
	int choice = pick(1000), kind = pick(100), g, a;
	long long rt = 0, per = cap_periods[pick(5)], target, room;
	bool capped = true, valid = true, with_per = chance(85);
	int pct = 5 + pick(116), frac = pick(90), extra = 1 + pick(1000);
	char val[64], path[200];
	struct readout after;
	struct pred p;
	int err;

	g = nth_cg(choice);
	if (!with_per)
		per = cg[g].per_us;
	if (kind < 10) {
		capped = false;
	} else if (kind < 15) {
		/* the limits: EINVAL */
		valid = false;
		switch (pick(4)) {
		case 0:
			rt = 0;
			break;
		case 1:
			rt = 1000;
			per = 999;
			break;
		case 2:
			rt = 1000;
			per = 1000001;
			break;
		default:
			rt = per * npossible + 1;
			break;
		}
		with_per = true;
	} else if (kind < 30 && live_bw_under(g, -1)) {
		/* below what its workers hold */
		target = live_bw_under(g, -1) * frac / 100;
		rt = (target * per) >> 20;
	} else if (kind < 40 && live_bw_under(g, -1)) {
		/* the least cap at what they hold: the line itself */
		target = live_bw_under(g, -1);
		rt = ((target * per) + (1 << 20) - 1) >> 20;
	} else if (kind < 52 && g) {
		/* over the room the nearest capped ancestor leaves */
		for (a = cg[g].parent; a >= 0 && !cg[a].capped; a = cg[a].parent)
			;
		if (a >= 0) {
			room = cg[a].cap - caps_below(a) + contribution(g);
			target = room + room * extra / 4000 + 1;
			rt = ((target * per) >> 20) + 1;
		} else {
			rt = per * pct / 100;
		}
	} else {
		rt = per * pct / 100;
	}
	if (capped && valid && (rt < 1 || rt > per * npossible))
		rt = per / 10;
	if (!capped)
		snprintf(val, sizeof(val), with_per ? "max %lld" : "max", per);
	else if (with_per)
		snprintf(val, sizeof(val), "%lld %lld", rt, per);
	else
		snprintf(val, sizeof(val), "%lld", rt);
	snprintf(op_desc, sizeof(op_desc), "cap /%s \"%s\" (held %lld, workers %lld)",
		 cg[g].path, val, cg[g].r_bw, live_bw_under(g, -1));
	pred_cap(&p, g, capped, rt, per, valid);
	cg_file(path, sizeof(path), g, "cpu.dl.max");
	err = file_put(path, "%s", val) ? errno : 0;
	if (verbose)
		tap_diag("op %ld: %s: %s (%s)", op_idx, op_desc,
			 err_name(err), p.sure ? p.why : "either");
	judge(K_CAP, &p, err);
	if (!err) {
		cg[g].capped = capped;
		cg[g].per_us = per;
		cg[g].rt_us = capped ? rt : -1;
		cg[g].cap = capped ? bw_of(rt, per) : 0;
	}
	check_all(&after);
	judge_refused(ro, &after, &p, 0, false);
	*ro = after;
	return true;
}

static bool op_spawn(void)
{
	int w = free_worker_slot(), lv[MAXCG], n = leaves(lv), g, cfd[2], rfd[2];
	bool nobody = chance(50);
	int choice = pick(1000);
	pid_t pid;
	int err, i;

	if (w < 0 || !n)
		return false;
	g = lv[choice % n];
	snprintf(op_desc, sizeof(op_desc), "spawn w%d%s in /%s", w,
		 nobody ? " (uid 65534)" : "", cg[g].path);
	if (pipe2(cfd, O_CLOEXEC) || pipe2(rfd, O_CLOEXEC)) {
		viol(V_RUN, "pipe: %s", strerror(errno));
		return true;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		viol(V_RUN, "fork: %s", strerror(errno));
		return true;
	}
	if (pid == 0) {
		for (i = 0; i < MAXW; i++)
			if (wk[i].used) {
				close(wk[i].cmd_fd);
				close(wk[i].rep_fd);
			}
		close(cfd[1]);
		close(rfd[0]);
		worker_main(cfd[0], rfd[1], nobody);
	}
	close(cfd[0]);
	close(rfd[1]);
	memset(&wk[w], 0, sizeof(wk[w]));
	wk[w].used = true;
	wk[w].pid = pid;
	wk[w].nobody = nobody;
	wk[w].cmd_fd = cfd[1];
	wk[w].rep_fd = rfd[0];
	wk[w].cg = g;
	{
		char path[200];

		cg_file(path, sizeof(path), g, "cgroup.procs");
		err = put_errno(path, "%lld", pid);
	}
	judge(K_SPAWN, &(struct pred){ .sure = true, .want = 0,
		      .why = "root places a fair task" }, err);
	if (verbose)
		tap_diag("op %ld: %s: %s", op_idx, op_desc, err_name(err));
	if (err)
		worker_kill(w);
	return true;
}

static const long long periods_ms[] = { 5, 5, 10, 10, 20, 20, 50, 50,
					100, 100, 100, 200, 500 };

/* Parameters of some 1% to 35% of a CPU, none under RUNTIME_FLOOR. */
static void gen_params(long long *r, long long *d, long long *p)
{
	int i = pick(sizeof(periods_ms) / sizeof(periods_ms[0]));
	int pct = 1 + pick(35), dl = pick(100);

	*p = periods_ms[i] * MS;
	*r = *p * pct / 100 / US * US;
	if (*r < (long long)RUNTIME_FLOOR)
		*r = RUNTIME_FLOOR;
	*d = dl < 60 ? *p : *r + (*p - *r) * dl / 100 / (long long)US * (long long)US;
}

/*
 * Parameters at the line (@at) or one unit over it: the bandwidth that
 * fills the least room the caps on @w's path leave under their last
 * figures, or (at the line, none capped or the root domain tighter) the
 * root domain's.  Where that comes out under RUNTIME_FLOOR even at a
 * period of 1 s, or no cap is over, @r, @d and @p stay as they are.
 */
static void line_params(int w, bool at, long long *r, long long *d,
			long long *p)
{
	long long room = LLONG_MAX, rd_room, b, q, per;
	int a;

	for (a = wk[w].cg; a >= 0; a = cg[a].parent)
		if (cg[a].capped && cg[a].cap - cg[a].r_bw < room)
			room = cg[a].cap - cg[a].r_bw;
	rd_room = rd_limit * ncpus - rd_total - RD_MARGIN;
	if (at && rd_room < room)
		room = rd_room;
	if (room == LLONG_MAX || room < 0)
		return;
	b = (wk[w].dl ? wk[w].bw : 0) + room + !at;
	for (per = *p; ; per = 1000 * (long long)MS) {
		/* the most runtime within b, or the least over it */
		q = at ? (long long)((((__uint128_t)b + 1) * per - 1) >> 20) :
			 (long long)(((__uint128_t)b * per + (1 << 20) - 1) >> 20);
		if (q >= (long long)RUNTIME_FLOOR || per == 1000 * (long long)MS)
			break;
	}
	if (q < (long long)RUNTIME_FLOOR || q > per)
		return;
	*r = q;
	*d = *p = per;
}

static bool op_setattr(struct readout *ro)
{
	int w, x = -1, caller, tries, choice = pick(1000), how = pick(100);
	int lower = pick(100), variant = pick(100), factor = 1 + pick(8);
	int other_pick = pick(1000);
	long long r, d, p;
	struct readout after;
	struct dl_attr a;
	struct pred pr;
	struct cmd c;
	bool self, user;
	int err;

	for (w = choice % MAXW, tries = 0; tries < MAXW && !wk[w].used; tries++)
		w = (w + 1) % MAXW;
	if (!wk[w].used)
		return false;
	gen_params(&r, &d, &p);
	/* who calls: root, the worker itself, or another user's worker */
	if (how < 10) {
		for (tries = 0; tries < MAXW; tries++) {
			int y = (other_pick + tries) % MAXW;

			if (wk[y].used && wk[y].nobody && y != w) {
				x = y;
				break;
			}
		}
	}
	if (x >= 0) {
		caller = x;
		self = false;
	} else if (wk[w].nobody ? how < 30 : how < 55) {
		caller = -1;
		self = false;
	} else {
		caller = w;
		self = true;
	}
	user = caller >= 0 && wk[caller].nobody;
	if (variant < 12) {
		memset(&a, 0, sizeof(a));
		a.size = DL_ATTR_SIZE_VER1;
		a.sched_policy = SCHED_OTHER;
	} else {
		uint64_t flags = 0;

		if (wk[w].dl && lower < 30) {
			/* lowering: less runtime, or a longer period */
			p = wk[w].period * (lower < 10 ? 2 : 1);
			r = wk[w].runtime * factor / 8 / US * US;
			if (r < (long long)RUNTIME_FLOOR)
				r = wk[w].runtime;
			d = wk[w].deadline > r ? wk[w].deadline : r;
			if (p > 1000 * (long long)MS)
				p = wk[w].period;
		} else if (variant < 15) {
			d = r / 2;	/* deadline under runtime: EINVAL */
		} else if (variant < 23 && user) {
			/*
			 * a period under the unprivileged floor, or (one in
			 * four) at it, which is allowed
			 */
			p = (period_min_us - (chance(25) ? 0 :
					      1 + pick(500))) * US;
			if (p < 200 * (long long)US)
				p = 200 * US;
			r = p / 2;
			d = p;
		} else if (variant < 31) {
			flags = DL_FLAG_RECLAIM;
		} else if (variant < 55) {
			line_params(w, variant < 43, &r, &d, &p);
		}
		a = dl_attr_make(r, d, p, flags);
	}
	snprintf(op_desc, sizeof(op_desc),
		 "setattr w%d%s in /%s by %s: %s %llu/%llu/%llu%s (was %s, %lld)",
		 w, wk[w].nobody ? " (uid 65534)" : "", cg[wk[w].cg].path,
		 caller < 0 ? "root" : self ? "itself" : "another user's worker",
		 a.sched_policy == SCHED_DEADLINE ? "deadline" : "other",
		 (unsigned long long)a.sched_runtime / 1000,
		 (unsigned long long)a.sched_deadline / 1000,
		 (unsigned long long)a.sched_period / 1000,
		 a.sched_flags & DL_FLAG_RECLAIM ? " reclaim" : "",
		 wk[w].dl ? "deadline" : "other", wk[w].dl ? wk[w].bw : 0);
	pred_setattr(&pr, w, caller, self, &a);
	if (caller < 0) {
		err = dl_setattr(wk[w].pid, &a, 0) ? errno : 0;
	} else {
		memset(&c, 0, sizeof(c));
		c.kind = CMD_SET;
		c.target = self ? 0 : wk[w].pid;
		c.attr = a;
		err = worker_call(caller, &c);
		if (err < 0) {
			worker_hung(caller);
			check_all(ro);
			return true;
		}
	}
	if (verbose)
		tap_diag("op %ld: %s: %s (%s)", op_idx, op_desc,
			 err_name(err), pr.sure ? pr.why : "either");
	judge(K_SET, &pr, err);
	if (!err) {
		/*
		 * The mark of a reservation made without privilege: set by
		 * the user's own change, cleared by root's.  A call that
		 * changes nothing (the same parameters, on a task root
		 * admitted) takes __sched_setscheduler()'s early way out:
		 * the reservation stays root's.  A marked task's flags hold
		 * the mark, so any call of its own is a change.
		 */
		bool same = wk[w].dl && a.sched_policy == SCHED_DEADLINE &&
			    (long long)a.sched_runtime == wk[w].runtime &&
			    (long long)a.sched_deadline == wk[w].deadline &&
			    (long long)a.sched_period == wk[w].period &&
			    a.sched_flags == wk[w].flags && !wk[w].marked;

		wk[w].marked = same ? false : self && wk[w].nobody &&
			       a.sched_policy == SCHED_DEADLINE;
		wk[w].dl = a.sched_policy == SCHED_DEADLINE;
		wk[w].runtime = wk[w].dl ? (long long)a.sched_runtime : 0;
		wk[w].deadline = wk[w].dl ? (long long)a.sched_deadline : 0;
		wk[w].period = wk[w].dl ? (long long)a.sched_period : 0;
		wk[w].flags = wk[w].dl ? a.sched_flags : 0;
		wk[w].bw = wk[w].dl ? bw_of(a.sched_runtime, a.sched_period) : 0;
	}
	check_all(&after);
	judge_refused(ro, &after, &pr, err, false);
	*ro = after;
	return true;
}

static bool op_move(struct readout *ro)
{
	int w, tries, choice = pick(1000), lv[MAXCG], n = leaves(lv);
	int dchoice = pick(1000), dst = -1, i;
	bool by_user = chance(70);
	struct readout after;
	struct pred pr;
	struct cmd c;
	char path[200];
	int err;

	for (w = choice % MAXW, tries = 0; tries < MAXW && !wk[w].used; tries++)
		w = (w + 1) % MAXW;
	if (!wk[w].used || n < 2)
		return false;
	for (i = 0; i < n; i++) {
		dst = lv[(dchoice + i) % n];
		if (dst != wk[w].cg)
			break;
	}
	by_user = by_user && wk[w].nobody;
	snprintf(op_desc, sizeof(op_desc),
		 "move w%d%s %s, %lld, from /%s to /%s by %s", w,
		 wk[w].nobody ? " (uid 65534)" : "",
		 wk[w].dl ? wk[w].marked ? "deadline, unprivileged" :
		 "deadline" : "other", wk[w].dl ? wk[w].bw : 0,
		 cg[wk[w].cg].path, cg[dst].path, by_user ? "itself" : "root");
	pred_move(&pr, w, dst, by_user);
	cg_file(path, sizeof(path), dst, "cgroup.procs");
	if (!by_user) {
		err = put_errno(path, "%lld", wk[w].pid);
	} else {
		memset(&c, 0, sizeof(c));
		c.kind = CMD_MOVE;
		snprintf(c.path, sizeof(c.path), "%s", path);
		err = worker_call(w, &c);
		if (err < 0) {
			worker_hung(w);
			check_all(ro);
			return true;
		}
	}
	if (verbose)
		tap_diag("op %ld: %s: %s (%s)", op_idx, op_desc,
			 err_name(err), pr.sure ? pr.why : "either");
	judge(K_MOVE, &pr, err);
	if (!err)
		wk[w].cg = dst;
	check_all(&after);
	/* a refused move of a fair task or a denied one counts nothing */
	judge_refused(ro, &after, &pr, err, wk[w].dl && err == EBUSY);
	*ro = after;
	return true;
}

static bool op_kill(void)
{
	int w, tries, choice = pick(1000);

	for (w = choice % MAXW, tries = 0; tries < MAXW && !wk[w].used; tries++)
		w = (w + 1) % MAXW;
	if (!wk[w].used)
		return false;
	snprintf(op_desc, sizeof(op_desc), "kill w%d in /%s (%s, %lld)", w,
		 cg[wk[w].cg].path, wk[w].dl ? "deadline" : "other",
		 wk[w].dl ? wk[w].bw : 0);
	worker_kill(w);
	nops_kind[K_KILL]++;
	nres[K_KILL][RES_OK]++;
	if (verbose)
		tap_diag("op %ld: %s", op_idx, op_desc);
	return true;
}

/* On more often than off: the user's calls mostly meet the slices' rules. */
static bool op_sysctl(void)
{
	long v = chance(70);
	int err;

	snprintf(op_desc, sizeof(op_desc), "kernel.sched_dl_unprivileged = %ld",
		 v);
	err = sysctl_set("sched_dl_unprivileged", v) ? errno : 0;
	judge(K_SYSCTL, &(struct pred){ .sure = true, .want = 0,
		      .why = "0 or 1" }, err);
	if (!err)
		sysctl_unpriv = v;
	if (verbose)
		tap_diag("op %ld: %s: %s", op_idx, op_desc, err_name(err));
	return true;
}

/* Weights of the ops: caps and setattr most, where the rules are. */
static const int weight[K_N] = {
	[K_MKCG] = 7, [K_RMCG] = 5, [K_CAP] = 18, [K_SPAWN] = 8,
	[K_SET] = 33, [K_MOVE] = 18, [K_KILL] = 6, [K_SYSCTL] = 3,
};

static void run_op(uint64_t s, long i, struct readout *ro)
{
	static const int fallback[] = { K_SPAWN, K_MKCG, K_CAP };
	int total = 0, k, r, tries;
	bool done = false;

	rnd_start(s, i);
	for (k = 0; k < K_N; k++)
		total += weight[k];
	r = pick(total);
	for (k = 0; k < K_N && r >= weight[k]; k++)
		r -= weight[k];
	checked = false;
	/*
	 * An op with nothing to work on (no worker, no empty cgroup) gives
	 * way to a spawn, a new cgroup, a cap, in that order.
	 */
	for (tries = 0; tries < 4 && !done; tries++) {
		if (tries)
			k = fallback[tries - 1];
		op_desc[0] = 0;
		switch (k) {
		case K_MKCG:
			done = op_mkcg();
			break;
		case K_RMCG:
			done = op_rmcg();
			break;
		case K_CAP:
			done = op_cap(ro);
			break;
		case K_SPAWN:
			done = op_spawn();
			break;
		case K_SET:
			done = op_setattr(ro);
			break;
		case K_MOVE:
			done = op_move(ro);
			break;
		case K_KILL:
			done = op_kill();
			break;
		default:
			done = op_sysctl();
			break;
		}
	}
	/* The ops that do not judge nr_refused are checked here. */
	if (!checked)
		check_all(ro);
}

/* ---- setup and the end ---- */

static bool was_mounted, cpu_was_on;

static int cg_tree_rm(const char *dir)
{
	char cmd[300];

	/* depth first: a cgroup goes once its children have */
	snprintf(cmd, sizeof(cmd),
		 "find %s -depth -type d -exec rmdir {} \\; 2>/dev/null", dir);
	return system(cmd);
}

/* cgroup2 with the cpu controller and fzcg; false if there is no cap. */
static bool setup(void)
{
	char ctl[256] = "";

	mkdir(CG, 0755);
	was_mounted = !access(CG "/cgroup.controllers", F_OK);
	if (!was_mounted && mount("none", CG, "cgroup2", 0, NULL)) {
		viol(V_RUN, "mount cgroup2: %s", strerror(errno));
		return false;
	}
	if (read_text(CG "/cgroup.controllers", ctl, sizeof(ctl)) ||
	    (!strstr(ctl, "cpu ") && !strstr(ctl, "cpu\n")))
		return false;
	if (read_text(CG "/cgroup.subtree_control", ctl, sizeof(ctl)))
		ctl[0] = 0;
	cpu_was_on = strstr(ctl, "cpu ") || strstr(ctl, "cpu\n");
	if (!cpu_was_on && file_put(CG "/cgroup.subtree_control", "+cpu")) {
		viol(V_RUN, "+cpu at the root: %s", strerror(errno));
		return false;
	}
	/* a run killed at its limit leaves fzcg behind */
	cg_tree_rm(CG "/" FZ);
	memset(&cg[0], 0, sizeof(cg[0]));
	snprintf(cg[0].path, sizeof(cg[0].path), FZ);
	cg[0].used = true;
	cg[0].parent = -1;
	cg[0].per_us = 100000;
	if (mkdir(CG "/" FZ, 0755)) {
		viol(V_RUN, "mkdir " CG "/" FZ ": %s", strerror(errno));
		return false;
	}
	if (access(CG "/" FZ "/cpu.dl.max", F_OK)) {
		rmdir(CG "/" FZ);
		return false;
	}
	/* The user's moves need fzcg, their common ancestor, delegated. */
	delegate(0);
	if (subtree_cpu(0, true))
		viol(V_RUN, "+cpu in fzcg: %s", strerror(errno));
	cg[0].cpu_below = true;
	memset(&cg[1], 0, sizeof(cg[1]));
	snprintf(cg[1].path, sizeof(cg[1].path), FZ "/c0");
	if (mkdir(CG "/" FZ "/c0", 0755))
		viol(V_RUN, "mkdir " CG "/" FZ "/c0: %s", strerror(errno));
	cg[1].used = true;
	cg[1].depth = 1;
	cg[1].per_us = 100000;
	cg[0].nchild = 1;
	delegate(1);
	return true;
}

static void teardown(void)
{
	int order[MAXCG], n = preorder(order), i;
	char path[200];

	for (i = n - 1; i > 0; i--) {
		snprintf(path, sizeof(path), CG "/%s", cg[order[i]].path);
		if (rmdir(path))
			viol(V_END, "rmdir %s: %s", path, strerror(errno));
	}
	subtree_cpu(0, false);
	if (rmdir(CG "/" FZ))
		viol(V_END, "rmdir " CG "/" FZ ": %s", strerror(errno));
}

static void put_back(void)
{
	if (unpriv_was >= 0)
		sysctl_set("sched_dl_unprivileged", unpriv_was);
	if (!cpu_was_on)
		file_put(CG "/cgroup.subtree_control", "-cpu");
	if (!was_mounted)
		umount(CG);
}

static bool rd_totals(long long *total)
{
	long long bw[DL_MAX_CPUS];
	int c;

	if (dl_bw_of_cpus(ncpus, bw, total))
		return false;
	for (c = 0; c < ncpus; c++)
		if (total[c] == DL_BW_NONE)
			return false;
	return true;
}

/*
 * Every QUIET ops the fuzzer waits until every 0-lag time has passed
 * (a period of 1 s at most, so 3 s): then what is held is exactly what
 * the live deadline workers hold, in every cgroup and in the root
 * domain (its total at the start, the fair servers', and theirs).  A
 * charge left behind, or given back twice, by some op shows here
 * without waiting for the end.
 */
#define QUIET 1000

static bool exact(const struct readout *ro, const long long *start,
		  const long long *total, bool report)
{
	long long all = live_bw_under(0, -1);
	bool ok = true;
	int g, c;

	for (g = 0; g < MAXCG; g++) {
		if (!cg[g].used || (ro->bw[g] == live_bw_under(g, -1) &&
				    ro->nr[g] == live_dl_under(g)))
			continue;
		ok = false;
		if (report)
			viol(V_BOOKS, "every 0-lag time passed: %s holds %lld, nr_tasks %lld; its %ld deadline workers %lld",
			     cg[g].path, ro->bw[g], ro->nr[g],
			     live_dl_under(g), live_bw_under(g, -1));
	}
	for (c = 0; c < ncpus; c++) {
		if (total[c] == start[c] + all)
			continue;
		ok = false;
		if (report)
			viol(V_BOOKS, "every 0-lag time passed: CPU %d's root domain total %lld, %lld at the start + the workers' %lld",
			     c, total[c], start[c], all);
	}
	return ok;
}

static void quiet_check(const long long *start)
{
	long long total[DL_MAX_CPUS];
	int64_t t0 = now_ns();
	struct readout ro;
	bool last;

	snprintf(op_desc, sizeof(op_desc), "quiet");
	do {
		last = now_ns() - t0 > 3000 * (int64_t)MS;
		if (!read_all(&ro) || !rd_totals(total))
			return;
		if (exact(&ro, start, total, last))
			return;
		sleep_until(now_ns() + 20 * MS);
	} while (!last);
}

/* Every worker killed: everything must come back within 10 s. */
static void the_end(const long long *start, char *figures, size_t len)
{
	long long total[DL_MAX_CPUS];
	int64_t t0 = now_ns();
	struct readout ro;
	int w, g, c, left;
	bool back = false;

	for (w = 0; w < MAXW; w++)
		if (wk[w].used)
			worker_kill(w);
	while (!back) {
		read_all(&ro);
		back = rd_totals(total);
		for (c = 0; back && c < ncpus; c++)
			back = total[c] == start[c];
		for (g = 0; g < MAXCG; g++)
			if (cg[g].used && (ro.bw[g] || ro.nr[g]))
				back = false;
		if (back || now_ns() - t0 > 10000 * (int64_t)MS)
			break;
		sleep_until(now_ns() + 20 * MS);
	}
	snprintf(figures, len, "back %lld ms after the last kill",
		 (long long)((now_ns() - t0) / MS));
	if (back)
		return;
	snprintf(figures, len, "not back 10 s after the last kill");
	for (g = 0; g < MAXCG; g++)
		if (cg[g].used && (ro.bw[g] || ro.nr[g]))
			viol(V_END, "%s still holds %lld, nr_tasks %lld",
			     cg[g].path, ro.bw[g], ro.nr[g]);
	left = rd_totals(total);
	for (c = 0; c < ncpus; c++)
		if (!left || total[c] != start[c])
			viol(V_END, "CPU %d's root domain total %lld, %lld at the start",
			     c, left ? total[c] : -1, start[c]);
}

/* num_possible_cpus(), which bounds a cap: "0-1" has 2. */
static int possible_cpus(void)
{
	char text[64], *p;

	if (read_text("/sys/devices/system/cpu/possible", text, sizeof(text)))
		return (int)sysconf(_SC_NPROCESSORS_CONF);
	p = strrchr(text, '-');
	if (!p)
		p = strrchr(text, ',');
	return atoi(p ? p + 1 : text) + 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: dlcgfuzz [-s SEED] [-n OPS] [-T SECONDS] [-v]\n");
	exit(2);
}

static uint64_t seed = 1;
static long nops = 1000, t_limit;

/* The run: setup, the ops, the end; what it finds goes to sh. */
static void fuzz(void)
{
	long long start[DL_MAX_CPUS];
	long done = 0, i;
	char line[512];
	struct readout ro;
	int64_t t0;
	int c, k, r, len;
	bool ok;

	signal(SIGPIPE, SIG_IGN);
	ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	npossible = possible_cpus();
	unpriv_was = sysctl_get("sched_dl_unprivileged");
	ok = setup();
	if (!ok || unpriv_was < 0) {
		if (ok)
			teardown();
		put_back();
		/* a setup that failed is a failure, not a skip */
		if (sh->nviol[V_RUN])
			return;
		sh->skipped = true;
		snprintf(sh->skip_why, sizeof(sh->skip_why), "%s", !ok ?
			 SKIP_REASON : "no kernel.sched_dl_unprivileged: unprivileged use is ours (the classic implementation)");
		SKIP("%s", sh->skip_why);
	}
	/* what tasks of the suites before gave up comes back first */
	for (c = 0; c < ncpus; c++)
		dl_total_bw_wait_idle(c, 3000);
	if (!rd_totals(start))
		viol(V_RUN, "the root domain's figures unreadable");
	sysctl_unpriv = unpriv_was;
	period_min_us = sysctl_get("sched_dl_unprivileged_period_min_us");
	density_on = sysctl_get("sched_dl_admission") > 0;
	tap_diag("seed %llu, %ld ops; %d CPUs, %d possible; unprivileged %ld, period_min_us %ld; the root domain's total %lld",
		 (unsigned long long)seed, nops, ncpus, npossible,
		 sysctl_unpriv, period_min_us, start[0]);
	check_all(&ro);
	t0 = now_ns();
	for (i = 0; i < nops; i++) {
		if (t_limit && now_ns() - t0 > t_limit * (int64_t)NSEC_PER_SEC)
			break;
		op_idx = i;
		run_op(seed, i, &ro);
		done++;
		if ((i + 1) % QUIET == 0) {
			quiet_check(start);
			check_all(&ro);
		}
		if ((i + 1) % 1000 == 0 && !verbose)
			tap_diag("op %ld, %.1f s", i + 1,
				 (now_ns() - t0) / 1e9);
	}
	op_idx = nops;
	snprintf(op_desc, sizeof(op_desc), "the end");
	the_end(start, sh->figures[V_END], sizeof(sh->figures[V_END]));
	teardown();
	put_back();
	/* What the run explored, refusals and successes, op by op. */
	for (k = 0; k < K_N; k++) {
		len = snprintf(line, sizeof(line), "%-8s %5ld ops, %ld told:",
			       kind_name[k], nops_kind[k], nsure[k]);
		for (r = 0; r < RES_N; r++)
			if (nres[k][r])
				len += snprintf(line + len, sizeof(line) - len,
						" %s %ld", res_name[r],
						nres[k][r]);
		tap_diag("%s", line);
	}
	snprintf(sh->figures[V_RUN], sizeof(sh->figures[V_RUN]),
		 "%ld of %ld ops of seed %llu in %.1f s%s", done, nops,
		 (unsigned long long)seed, (now_ns() - t0) / 1e9,
		 done < nops ? " (stopped by -T)" : "");
	/*
	 * Completed: the ops ran, and both sides were seen: admissions and
	 * refusals by the caps, and the user refused and admitted.
	 */
	if (done == nops && (!nres[K_SET][RES_OK] || !nres[K_SET][RES_EBUSY] ||
			     !nres[K_SET][RES_EPERM] || !nres[K_CAP][RES_EBUSY] ||
			     !nres[K_MOVE][RES_EBUSY]))
		viol(V_RUN, "one side unexplored: setattr ok %ld, EBUSY %ld, EPERM %ld; cap EBUSY %ld; move EBUSY %ld",
		     nres[K_SET][RES_OK], nres[K_SET][RES_EBUSY],
		     nres[K_SET][RES_EPERM], nres[K_CAP][RES_EBUSY],
		     nres[K_MOVE][RES_EBUSY]);
	sh->ran = true;
}

/* A test's verdict: the violations of its kind the run recorded. */
static void judge_kind(int cat)
{
	long i;

	if (sh->skipped)
		SKIP("%s", sh->skip_why);
	REQUIRE(sh->ran || cat == V_RUN, "the fuzz did not run to its end");
	if (sh->figures[cat][0])
		tap_diag("%s", sh->figures[cat]);
	for (i = 0; i < sh->nviol[cat] && i < VKEEP; i++)
		CHECK(false, "%s", sh->msg[cat][i]);
	CHECK(sh->nviol[cat] <= VKEEP, "%ld violations in all",
	      sh->nviol[cat]);
}

static void fuzz_completed(void)
{
	fuzz();
	judge_kind(V_RUN);
}

static void caps_never_exceeded(void)
{
	judge_kind(V_CAPS);
}

static void holdings_add_up(void)
{
	judge_kind(V_BOOKS);
}

static void results_as_predicted(void)
{
	judge_kind(V_PRED);
}

static void totals_back_at_the_end(void)
{
	judge_kind(V_END);
}

int main(int argc, char **argv)
{
	static const struct tap_test tests[] = {
		TAP_TEST(fuzz_completed),
		TAP_TEST(caps_never_exceeded),
		TAP_TEST(holdings_add_up),
		TAP_TEST(results_as_predicted),
		TAP_TEST(totals_back_at_the_end),
		{ NULL, NULL }
	};
	int c;

	while ((c = getopt(argc, argv, "s:n:T:v")) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			nops = strtol(optarg, NULL, 0);
			break;
		case 'T':
			t_limit = strtol(optarg, NULL, 0);
			break;
		case 'v':
			verbose = true;
			break;
		default:
			usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memset(sh, 0, sizeof(*sh));
	return tap_run(tests);
}
