// SPDX-License-Identifier: GPL-2.0
/*
 * Stress of the component framework, <linux/component.h>: seeded random
 * sequences of component_add(), component_add_typed(), component_del(),
 * component_master_add_with_match() and component_master_del() over a
 * pool of components on a pool of devices and a few aggregates, whose
 * match lists share devices, repeat entries and vary in length (up to
 * more than the classic implementation's 16-entry allocation step).
 * Binds fail at random: a component's with -ENOMEM or -EPROBE_DEFER, an
 * aggregate's before or after component_bind_all().  Every bind allocates
 * devres on the component's device and on the aggregate's parent, whose
 * releases are counted and checked.
 *
 * Built out of tree against each kernel, like component_kunit.c; the
 * devices are root devices without drivers, and the test thread plays
 * each driver's probe and remove (under the device's lock, as the driver
 * core would).  Each match entry matches exactly one component: untyped
 * entries name devices that have one untyped component, typed entries a
 * (device, subcomponent) of devices that have only typed ones, so the
 * implementations' different answers to "which of a device's components"
 * stay out of the way.  Module parameters: seed (sequence i uses seed +
 * i; 0 picks one at random), sequences, steps, threads_sequences.  A
 * sequence repeats exactly with its seed; two threads at once do not on
 * the classic implementation, whose scan for one thread's component
 * also claims the other thread's components for its waiting aggregates.
 *
 * After each step the test checks what the API promises:
 *
 * - an aggregate binds only when every entry has a registered component
 *   that no other aggregate has bound, only in the call that completed
 *   it, in that caller's context; its components bind in match order,
 *   a repeated one once, and unbind in reverse; a component failing
 *   rolls back the ones bound before it and component_bind_all()
 *   returns its error;
 * - the registration whose bind failed returns that error and is
 *   undone (the retry is the next registration of that component or
 *   aggregate); component_del() and component_master_del() unbind the
 *   aggregate they break;
 * - liveness: a registered aggregate whose entries all have registered
 *   components, none of them wanted by another registered aggregate, is
 *   bound, unless its bind failed in a step that had no caller to give
 *   the error to (a removal that offered it components: ours does that)
 *   and none of its components was registered since.  Components wanted
 *   by two aggregates belong to whichever claimed them first, which the
 *   implementations decide differently, so such aggregates are held to
 *   the safety rules only;
 * - devres: what a bind allocated is released exactly once; on the
 *   component's device at its unbind (or failed bind), on the parent at
 *   the aggregate's unbind (or failed bind); the number of devres
 *   entries on every device is what the bound state implies, and after
 *   the sequence, with everything removed, what it was before;
 * - match lists: each entry's release runs once, when the list is
 *   freed, never while the aggregate is registered.
 *
 * A known defect of the classic implementation: component_master_del()
 * does not offer the components it lets go of to an aggregate that was
 * waiting for them, which then stays unbound though complete.  There the
 * liveness rule is not applied to that aggregate (until it is tried
 * again); the last case counts these and fails, marked, on classic.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/component.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

/*
 * CLASSIC: the kernel runs the tree's implementation, with its known
 * defects: not ours, nor the tree's with its fixes (patches/classic-fixes:
 * DLK_CLASSIC_FIXED, set by tests/modules/Kbuild).
 */
#if defined(CONFIG_COMPONENT_INDEXED) || defined(DLK_CLASSIC_FIXED)
#define CLASSIC false
#else
#define CLASSIC true
#endif

#define DLK_DEFECT_CLASSIC CLASSIC
#define DLK_DEFECT_VAR "COMPONENT"
#include "dlk_defect.h"

static ulong seed = 20261203;
module_param(seed, ulong, 0444);
MODULE_PARM_DESC(seed, "base seed: sequence i uses seed + i (0: random)");
static uint sequences = 16;
module_param(sequences, uint, 0444);
MODULE_PARM_DESC(sequences, "single-threaded sequences");
static uint steps;
module_param(steps, uint, 0444);
MODULE_PARM_DESC(steps, "random steps per sequence (0: 4000, 1000 on a "
		 "debug kernel)");
static uint threads_sequences = 8;
module_param(threads_sequences, uint, 0444);
MODULE_PARM_DESC(threads_sequences, "sequences of each of the two threads");

#define NR_THREADS	2
#define NR_PLAIN	10	/* devices with one untyped component */
#define NR_TDEV		3	/* devices with typed components */
#define NR_SUB		3	/* typed components on a device, at most */
#define NR_COMPS	(NR_PLAIN + NR_TDEV * NR_SUB)
#define NR_AGGS		4
#define MAX_ENTRIES	24
#define NR_RECS		1024
#define NR_MSGS		6
#define NR_ATT		8
#define MEM_SIZE	32

/* What the test's binds allocate on each side: kzalloc, action, devres. */
#define RES_NODES	3
#define RES_RECS	2
/* A devres group is two nodes, its open and close markers. */
#define GROUP_NODES	2

/* splitmix64: small, and the same sequence on every kernel. */
static u64 rnd(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u32 below(u64 *s, u32 n)
{
	return n ? (u32)(rnd(s) % n) : 0;
}

static bool chance(u64 *s, u32 permille)
{
	return below(s, 1000) < permille;
}

enum cphase { C_IDLE, C_BOUND, C_FAILED, C_UNBOUND };
enum aphase { A_IDLE, A_BINDING, A_BOUND, A_FAILED, A_UNBINDING, A_DOWN };
enum rkind { R_AGG, R_COMP_DEV, R_COMP_PARENT };
enum rstate { R_FREE, R_LIVE, R_RELEASED };
enum mkind {
	M_DEV, M_NAME, M_OWN, M_RELEASE, NR_UNTYPED,
	M_TYPED = NR_UNTYPED,
};

enum op { OP_NONE, OP_ADD, OP_DEL, OP_MADD, OP_MDEL };

struct sctx;
struct sagg;
struct scomp;

struct sdev {
	struct device *dev;
	char name[24];
	int base;			/* its devres nodes, unbound */
	struct sctx *ctx;
	struct sagg *agg;		/* a parent: its aggregate */
	struct scomp *comp[NR_SUB + 1];	/* by subcomponent */
};

struct scomp {
	struct sctx *ctx;
	struct sdev *sd;
	int id, sub, home;		/* home: aggregate it mostly serves */
	bool registered, leaving, retry;
	struct sagg *bound_to;
	enum cphase phase;
	u32 gen;
	int dev_live, par_live;		/* live records of its binding */
	u8 *mem;
};

struct sentry {
	u8 kind, comp;
};

struct sagg {
	struct sctx *ctx;
	int id;
	struct sdev sd;			/* the parent */
	bool registered, bound, retry;
	bool stopped;		/* its bind failed; nothing undid it */
	bool orphaned;		/* left waiting by master_del */
	enum aphase phase;
	struct sentry ent[MAX_ENTRIES];
	int nent;
	int order[MAX_ENTRIES];		/* components, in match order */
	int norder;
	int cursor;			/* components bind_all has bound */
	int nbound;			/* of which still bound */
	int own_live;
	int match_nodes;
	int rel_expected, rel_seen;
	bool releasing;
	u8 *mem;
};

struct srec {
	u8 state, kind;
	u32 gen;
	struct scomp *c;
	struct sagg *a;
	struct device *dev;
};

struct stats {
	int steps, teardown, adds, add_fail, dels, madds, madd_fail, mdels;
	int binds, bind_fail, comp_binds, unbinds;
	int f_nomem, f_defer, f_agg_early, f_agg_late;
	int live_checked, contested, max_entries, overlaps, stopped;
};

struct sctx {
	int id;
	struct task_struct *task;
	u64 rng, frng, seq_seed;
	u32 p_add;
	struct sdev plain[NR_PLAIN], tdev[NR_TDEV];
	struct scomp comps[NR_COMPS];
	int ncomps, ntdev;
	struct sagg aggs[NR_AGGS];
	int naggs;
	/* the step running */
	int step;
	enum op op;
	struct scomp *op_c;
	struct sagg *op_a;
	bool in_op;
	char desc[48];
	struct { struct sagg *a; int ret; } att[NR_ATT];
	int natt;
	int last_comp_err;
	struct srec rec[NR_RECS];
	int rec_next;
	/* results */
	int violations;
	int nmsg;
	char msg[NR_MSGS][200];
	struct stats st;
	ktime_t elapsed;
	struct completion done;
};

/*
 * The steps of a sequence.  A debug kernel (KASAN, lockdep) runs them some
 * 30 times slower, and slower still when the host is busy: a quarter of
 * them keeps the two threads' case well inside KUnit's 300 s per case.
 */
static u32 run_steps;

/* Aggregates left waiting by component_master_del(), for the last case. */
static atomic_t orphan_situations, orphan_offered, orphan_stuck;

/* Threads inside a framework call, to count the calls that overlapped. */
static atomic_t in_framework;

static __printf(3, 4) void violation(struct sctx *x, const char *inv,
				     const char *fmt, ...)
{
	va_list ap;
	int n;

	x->violations++;
	if (x->nmsg >= NR_MSGS)
		return;
	n = snprintf(x->msg[x->nmsg], sizeof(x->msg[0]), "[%s] step %d (%s): ",
		     inv, x->step, x->desc);
	va_start(ap, fmt);
	vsnprintf(x->msg[x->nmsg] + n, sizeof(x->msg[0]) - n, fmt, ap);
	va_end(ap);
	x->nmsg++;
}

static void enter(struct sctx *x)
{
	x->in_op = true;
	if (atomic_inc_return(&in_framework) > 1)
		x->st.overlaps++;
}

static void leave(struct sctx *x)
{
	atomic_dec(&in_framework);
	x->in_op = false;
}

/* Callbacks run in the call that triggered them, in its caller's context. */
static void check_context(struct sctx *x, const char *what)
{
	if (current != x->task || !x->in_op)
		violation(x, "context", "%s outside the framework call of its "
			  "caller", what);
}

static int devres_nodes(struct device *dev)
{
	struct list_head *p;
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&dev->devres_lock, flags);
	list_for_each(p, &dev->devres_head)
		n++;
	spin_unlock_irqrestore(&dev->devres_lock, flags);
	return n;
}

static bool wants(struct sagg *a, struct scomp *c)
{
	int i;

	for (i = 0; i < a->norder; i++)
		if (a->order[i] == c->id)
			return true;
	return false;
}

static bool share(struct sagg *a, struct sagg *b)
{
	int i;

	for (i = 0; i < a->norder; i++)
		if (wants(b, &a->ctx->comps[a->order[i]]))
			return true;
	return false;
}

/* Every entry has its component registered. */
static bool all_registered(struct sagg *a)
{
	int i;

	for (i = 0; i < a->norder; i++) {
		struct scomp *c = &a->ctx->comps[a->order[i]];

		if (!c->registered || c->leaving)
			return false;
	}
	return true;
}

/* Some component of @a is wanted by another registered aggregate. */
static bool contested(struct sagg *a)
{
	struct sctx *x = a->ctx;
	int i;

	for (i = 0; i < x->naggs; i++)
		if (&x->aggs[i] != a && x->aggs[i].registered &&
		    share(a, &x->aggs[i]))
			return true;
	return false;
}

/* devres records: what the binds allocate, and when it goes */

static void rec_release(struct srec *r, struct device *dev)
{
	struct sctx *x = r->c ? r->c->ctx : r->a->ctx;
	struct scomp *c = r->c;
	struct sagg *a = r->a;

	check_context(x, "devres release");
	if (r->state != R_LIVE) {
		violation(x, "devres-once", "a resource released twice "
			  "(%s of a%d)", c ? "a component" : "the aggregate",
			  a->id);
		return;
	}
	r->state = R_RELEASED;
	if (dev && dev != r->dev)
		violation(x, "devres-device", "released from another device");
	switch (r->kind) {
	case R_AGG:
		a->own_live--;
		if (a->phase != A_FAILED && a->phase != A_DOWN)
			violation(x, "devres-timing", "a%d's bind resource "
				  "released while it is not taken down", a->id);
		break;
	case R_COMP_DEV:
		c->dev_live--;
		if (c->bound_to)
			violation(x, "devres-timing", "c%d's resource on its "
				  "device released while it is bound", c->id);
		break;
	case R_COMP_PARENT:
		c->par_live--;
		if (!(c->phase == C_FAILED && r->gen == c->gen) &&
		    a->phase != A_FAILED && a->phase != A_DOWN)
			violation(x, "devres-timing", "c%d's resource on the "
				  "parent released before a%d was taken down",
				  c->id, a->id);
		break;
	}
}

static void rec_action(void *data)
{
	rec_release(data, NULL);
}

static void rec_devres_release(struct device *dev, void *res)
{
	rec_release(*(struct srec **)res, dev);
}

static struct srec *rec_get(struct sctx *x)
{
	int i;

	/* Round robin: a late second release finds the record released. */
	for (i = 0; i < NR_RECS; i++) {
		struct srec *r = &x->rec[x->rec_next];

		x->rec_next = (x->rec_next + 1) % NR_RECS;
		if (r->state != R_LIVE)
			return r;
	}
	return NULL;
}

/*
 * A bind's resources on @dev: memory with a pattern, an action and a
 * devres of our own, the last two counted when they are released.
 */
static int grab(struct sctx *x, struct device *dev, int kind,
		struct scomp *c, struct sagg *a, u8 **mem)
{
	struct srec *r[RES_RECS], **res;
	int i, ret;

	*mem = devm_kzalloc(dev, MEM_SIZE, GFP_KERNEL);
	if (!*mem)
		goto nomem;
	for (i = 0; i < MEM_SIZE; i++)
		(*mem)[i] = (u8)(kind + i + (c ? c->gen : 0));
	for (i = 0; i < RES_RECS; i++) {
		r[i] = rec_get(x);
		if (!r[i])
			goto nomem;
		*r[i] = (struct srec){ .state = R_LIVE, .kind = kind,
				       .gen = c ? c->gen : 0, .c = c, .a = a,
				       .dev = dev };
		if (kind == R_AGG)
			a->own_live++;
		else if (kind == R_COMP_DEV)
			c->dev_live++;
		else
			c->par_live++;
		if (i == 0) {
			ret = devm_add_action(dev, rec_action, r[i]);
			if (ret) {
				r[i]->state = R_RELEASED;
				goto nomem;
			}
			continue;
		}
		res = devres_alloc(rec_devres_release, sizeof(*res),
				   GFP_KERNEL);
		if (!res) {
			r[i]->state = R_RELEASED;
			goto nomem;
		}
		*res = r[i];
		devres_add(dev, res);
	}
	return 0;
nomem:
	violation(x, "test", "the test could not allocate its resources");
	return -ENOMEM;
}

static bool mem_intact(u8 *mem, int kind, u32 gen)
{
	int i;

	for (i = 0; i < MEM_SIZE; i++)
		if (mem[i] != (u8)(kind + i + gen))
			return false;
	return true;
}

/* Injected failures */

static int fault_comp(struct sctx *x)
{
	u32 r = below(&x->frng, 1000);

	/* -ENOMEM is rarer: each one puts an error line on the console */
	if (r < 10) {
		x->st.f_nomem++;
		return -ENOMEM;
	}
	if (r < 35) {
		x->st.f_defer++;
		return -EPROBE_DEFER;
	}
	return 0;
}

static const int agg_errors[] = { -EPROBE_DEFER, -ENODEV, -ENOMEM };

/* An aggregate's bind: 0, or fails before (*late false) or after. */
static int fault_agg(struct sctx *x, bool *late)
{
	u32 r = below(&x->frng, 1000);

	*late = r >= 30;
	if (r >= 60)
		return 0;
	if (*late)
		x->st.f_agg_late++;
	else
		x->st.f_agg_early++;
	return agg_errors[below(&x->frng, ARRAY_SIZE(agg_errors))];
}

/* Component callbacks */

static void check_comp_bind_allowed(struct sctx *x, struct scomp *c,
				    struct sagg *a, struct device *master)
{
	if (a->ctx != x || a->sd.dev != master)
		violation(x, "bind-args", "c%d bound with another parent or "
			  "data", c->id);
	if (a->phase != A_BINDING)
		violation(x, "bind-order", "c%d bound outside a%d's bind",
			  c->id, a->id);
	if (!c->registered || c->leaving)
		violation(x, "bind-registered", "c%d bound but not registered",
			  c->id);
	if (c->bound_to)
		violation(x, "one-owner", "c%d bound to a%d while bound to a%d",
			  c->id, a->id, c->bound_to->id);
	if (a->cursor >= a->norder || a->order[a->cursor] != c->id)
		violation(x, "bind-order", "a%d bound c%d as its component %d "
			  "of %d, want c%d", a->id, c->id, a->cursor, a->norder,
			  a->cursor < a->norder ? a->order[a->cursor] : -1);
}

static int comp_bind(struct device *dev, int sub, struct device *master,
		     void *data)
{
	struct sdev *sd = dev_get_drvdata(dev);
	struct scomp *c = sd ? sd->comp[sub] : NULL;
	struct sagg *a = data;
	struct sctx *x;
	u8 *mem;
	int ret;

	if (!c || !a)
		return -ENODEV;
	x = c->ctx;
	check_context(x, "component bind");
	check_comp_bind_allowed(x, c, a, master);
	a->cursor++;
	c->gen++;
	x->st.comp_binds++;
	ret = grab(x, dev, R_COMP_DEV, c, a, &c->mem);
	if (!ret)
		ret = grab(x, master, R_COMP_PARENT, c, a, &mem);
	if (!ret)
		ret = fault_comp(x);
	if (ret) {
		c->phase = C_FAILED;
		c->mem = NULL;
		x->last_comp_err = ret;
		return ret;
	}
	c->phase = C_BOUND;
	c->bound_to = a;
	a->nbound++;
	return 0;
}

static void comp_unbind(struct device *dev, int sub, struct device *master,
			void *data)
{
	struct sdev *sd = dev_get_drvdata(dev);
	struct scomp *c = sd ? sd->comp[sub] : NULL;
	struct sagg *a = data;
	struct sctx *x;

	if (!c || !a)
		return;
	x = c->ctx;
	check_context(x, "component unbind");
	if (c->bound_to != a || a->sd.dev != master) {
		violation(x, "unbind", "c%d unbound from a%d, bound to a%d",
			  c->id, a->id, c->bound_to ? c->bound_to->id : -1);
		c->bound_to = NULL;
		return;
	}
	if (a->phase != A_BINDING && a->phase != A_UNBINDING)
		violation(x, "unbind", "c%d unbound outside a%d's bind or "
			  "unbind", c->id, a->id);
	if (a->nbound <= 0 || a->order[a->nbound - 1] != c->id)
		violation(x, "unbind-order", "a%d unbound c%d, want c%d", a->id,
			  c->id, a->nbound > 0 ? a->order[a->nbound - 1] : -1);
	else
		a->nbound--;
	/* what its bind put on its device is still there, untouched */
	if (!c->mem || !mem_intact(c->mem, R_COMP_DEV, c->gen))
		violation(x, "devres-memory", "c%d's memory was overwritten",
			  c->id);
	c->mem = NULL;
	c->bound_to = NULL;
	c->phase = C_UNBOUND;
}

static int plain_bind(struct device *dev, struct device *m, void *data)
{
	return comp_bind(dev, 0, m, data);
}

static void plain_unbind(struct device *dev, struct device *m, void *data)
{
	comp_unbind(dev, 0, m, data);
}

#define TYPED_OPS(n)							\
static int typed_bind##n(struct device *dev, struct device *m, void *d)	\
{									\
	return comp_bind(dev, n, m, d);					\
}									\
static void typed_unbind##n(struct device *dev, struct device *m,	\
			    void *d)					\
{									\
	comp_unbind(dev, n, m, d);					\
}
TYPED_OPS(1)
TYPED_OPS(2)
TYPED_OPS(3)

/* One set of callbacks per subcomponent: a device's components differ. */
static const struct component_ops comp_ops[NR_SUB + 1] = {
	{ .bind = plain_bind, .unbind = plain_unbind },
	{ .bind = typed_bind1, .unbind = typed_unbind1 },
	{ .bind = typed_bind2, .unbind = typed_unbind2 },
	{ .bind = typed_bind3, .unbind = typed_unbind3 },
};

/* Aggregate callbacks */

static void note_attempt(struct sctx *x, struct sagg *a, int ret)
{
	if (x->natt < NR_ATT) {
		x->att[x->natt].a = a;
		x->att[x->natt].ret = ret;
	}
	x->natt++;
}

/* Which binds the step running may cause. */
static void check_agg_bind_allowed(struct sctx *x, struct sagg *a)
{
	bool ok;
	int i;

	if (!a->registered && !(x->op == OP_MADD && x->op_a == a))
		violation(x, "bind-registered", "a%d bound, not registered",
			  a->id);
	if (a->bound)
		violation(x, "bind-once", "a%d bound twice", a->id);
	if (!all_registered(a))
		violation(x, "bind-complete", "a%d bound with a component "
			  "missing", a->id);
	for (i = 0; i < a->norder; i++)
		if (x->comps[a->order[i]].bound_to)
			violation(x, "one-owner", "a%d bound while c%d is "
				  "bound to a%d", a->id, a->order[i],
				  x->comps[a->order[i]].bound_to->id);
	switch (x->op) {
	case OP_ADD:
		if (!wants(a, x->op_c) || x->natt)
			violation(x, "bind-trigger", "a%d bound by the "
				  "registration of another's component", a->id);
		break;
	case OP_MADD:
		/* its own bind; after it failed, those it let go of */
		if (!x->natt)
			ok = a == x->op_a;
		else
			ok = x->att[0].a == x->op_a && x->att[0].ret < 0 &&
			     share(a, x->op_a);
		if (!ok)
			violation(x, "bind-trigger", "a%d bound by the "
				  "registration of a%d", a->id, x->op_a->id);
		break;
	case OP_MDEL:
		if (!share(a, x->op_a))
			violation(x, "bind-trigger", "a%d bound by the removal "
				  "of a%d, which wanted none of its components",
				  a->id, x->op_a->id);
		break;
	default:
		violation(x, "bind-trigger", "a%d bound in this step", a->id);
	}
}

/* After component_bind_all(): all bound, or none and the error back. */
static void check_bind_all(struct sctx *x, struct sagg *a, int ret)
{
	if (!ret) {
		if (a->cursor != a->norder || a->nbound != a->norder)
			violation(x, "bind-all", "a%d: component_bind_all() "
				  "bound %d of %d", a->id, a->nbound,
				  a->norder);
		return;
	}
	if (ret != x->last_comp_err)
		violation(x, "rollback", "a%d: component_bind_all() returned "
			  "%d, the component's error was %d", a->id, ret,
			  x->last_comp_err);
	if (a->nbound)
		violation(x, "rollback", "a%d: %d components still bound after "
			  "a failed component_bind_all()", a->id, a->nbound);
}

static int agg_bind(struct device *parent)
{
	struct sdev *sd = dev_get_drvdata(parent);
	struct sagg *a = sd ? sd->agg : NULL;
	struct sctx *x;
	bool late;
	int ret, err;

	if (!a)
		return -ENODEV;
	x = a->ctx;
	check_context(x, "aggregate bind");
	check_agg_bind_allowed(x, a);
	a->phase = A_BINDING;
	a->cursor = 0;
	a->nbound = 0;
	ret = grab(x, parent, R_AGG, NULL, a, &a->mem);
	err = fault_agg(x, &late);
	if (!ret && err && !late)
		ret = err;
	if (!ret) {
		x->last_comp_err = 0;
		ret = component_bind_all(parent, a);
		check_bind_all(x, a, ret);
		if (!ret && err) {
			/* A driver failing after bind_all unbinds them. */
			component_unbind_all(parent, a);
			if (a->nbound)
				violation(x, "unbind", "a%d: %d components "
					  "bound after component_unbind_all()",
					  a->id, a->nbound);
			ret = err;
		}
	}
	note_attempt(x, a, ret);
	if (ret) {
		x->st.bind_fail++;
		a->phase = A_FAILED;
		return ret;
	}
	x->st.binds++;
	a->phase = A_BOUND;
	a->bound = true;
	a->stopped = false;
	a->orphaned = false;
	return 0;
}

static void agg_unbind(struct device *parent)
{
	struct sdev *sd = dev_get_drvdata(parent);
	struct sagg *a = sd ? sd->agg : NULL;
	struct sctx *x;

	if (!a)
		return;
	x = a->ctx;
	check_context(x, "aggregate unbind");
	if (!a->bound || a->phase != A_BOUND)
		violation(x, "unbind", "a%d unbound while not bound", a->id);
	if (!(x->op == OP_DEL && wants(a, x->op_c)) &&
	    !(x->op == OP_MDEL && x->op_a == a))
		violation(x, "unbind-trigger", "a%d unbound by a step that "
			  "removes none of it", a->id);
	if (a->mem && !mem_intact(a->mem, R_AGG, 0))
		violation(x, "devres-memory", "a%d's memory was overwritten",
			  a->id);
	a->phase = A_UNBINDING;
	component_unbind_all(parent, a);
	if (a->nbound)
		violation(x, "unbind", "a%d: %d components bound after "
			  "component_unbind_all()", a->id, a->nbound);
	x->st.unbinds++;
	a->bound = false;
	a->phase = A_DOWN;
}

static const struct component_master_ops agg_ops = {
	.bind = agg_bind,
	.unbind = agg_unbind,
};

/* Match lists */

static int compare_own(struct device *dev, void *data)
{
	struct scomp *c = data;

	return dev == c->sd->dev;
}

static int compare_typed(struct device *dev, int sub, void *data)
{
	struct scomp *c = data;

	return dev == c->sd->dev && sub == c->sub;
}

static void count_release(struct device *parent, void *data)
{
	struct sdev *sd = dev_get_drvdata(parent);
	struct sagg *a = sd ? sd->agg : NULL;

	if (!a)
		return;
	if (!a->releasing)
		violation(a->ctx, "match-release", "a%d's match data released "
			  "before its list was freed", a->id);
	a->rel_seen++;
}

/*
 * A new match list, built inside a devres group of its own on the parent,
 * which is released when the aggregate is gone: as a driver's match list
 * goes with the devres of the probe that built it.
 */
static int build_match(struct sctx *x, struct sagg *a,
		       struct component_match **match)
{
	struct device *parent = a->sd.dev;
	int i, before = devres_nodes(parent);

	*match = NULL;
	if (!devres_open_group(parent, a, GFP_KERNEL))
		return -ENOMEM;
	a->rel_expected = 0;
	a->rel_seen = 0;
	for (i = 0; i < a->nent; i++) {
		struct scomp *c = &x->comps[a->ent[i].comp];
		struct device *dev = c->sd->dev;

		switch (a->ent[i].kind) {
		case M_DEV:
			component_match_add(parent, match,
					    component_compare_dev, dev);
			break;
		case M_NAME:
			component_match_add(parent, match,
					    component_compare_dev_name,
					    c->sd->name);
			break;
		case M_OWN:
			component_match_add(parent, match, compare_own, c);
			break;
		case M_RELEASE:
			component_match_add_release(parent, match,
						    count_release,
						    component_compare_dev, dev);
			a->rel_expected++;
			break;
		default:
			component_match_add_typed(parent, match,
						  compare_typed, c);
		}
	}
	devres_close_group(parent, a);
	a->match_nodes = devres_nodes(parent) - before;
	return IS_ERR_OR_NULL(*match) ? -ENOMEM : 0;
}

static void release_match(struct sctx *x, struct sagg *a)
{
	a->releasing = true;
	devres_release_group(a->sd.dev, a);
	a->releasing = false;
	a->match_nodes = 0;
	if (a->rel_seen != a->rel_expected)
		violation(x, "match-release", "a%d: %d of %d entries' data "
			  "released with the list", a->id, a->rel_seen,
			  a->rel_expected);
}

/* A random match list: mostly the aggregate's own components. */
static void new_entries(struct sctx *x, struct sagg *a)
{
	int own[NR_COMPS], nown = 0, i, n;

	for (i = 0; i < x->ncomps; i++)
		if (x->comps[i].home == a->id)
			own[nown++] = i;
	n = chance(&x->rng, 60) ? 17 + below(&x->rng, 8) :
	    1 + below(&x->rng, min(x->ncomps, 7));
	for (i = 0; i < n; i++) {
		struct scomp *c;
		int k;

		if (i && (i >= 8 || chance(&x->rng, 120)))
			k = a->ent[below(&x->rng, i)].comp;
		else if (nown && chance(&x->rng, 750))
			k = own[below(&x->rng, nown)];
		else
			k = below(&x->rng, x->ncomps);
		c = &x->comps[k];
		a->ent[i].comp = k;
		a->ent[i].kind = c->sub ? M_TYPED :
				 below(&x->rng, NR_UNTYPED);
	}
	a->nent = n;
	a->norder = 0;
	for (i = 0; i < n; i++)
		if (!wants(a, &x->comps[a->ent[i].comp]))
			a->order[a->norder++] = a->ent[i].comp;
	x->st.max_entries = max(x->st.max_entries, n);
}

/* Steps */

static void step_begin(struct sctx *x, enum op what, struct scomp *c,
		       struct sagg *a)
{
	static const char *const names[] = {
		[OP_ADD] = "add", [OP_DEL] = "del",
		[OP_MADD] = "master_add", [OP_MDEL] = "master_del",
	};
	int i;

	x->op = what;
	x->op_c = c;
	x->op_a = a;
	x->natt = 0;
	if (c)
		snprintf(x->desc, sizeof(x->desc), "%s c%d%s", names[what],
			 c->id, c->sub ? " typed" : "");
	else
		snprintf(x->desc, sizeof(x->desc), "%s a%d", names[what],
			 a->id);
	/* Registering or removing a component retries its aggregates. */
	for (i = 0; i < x->naggs && c; i++)
		if (wants(&x->aggs[i], c)) {
			x->aggs[i].stopped = false;
			x->aggs[i].orphaned = false;
		}
}

/*
 * A failed bind that the step does not undo (the classic implementation
 * has none; ours, when a component let go of is offered again) leaves
 * its aggregate stopped until a registration of one of its components.
 */
static void note_stopped(struct sctx *x, int own_failure)
{
	int i;

	for (i = 0; i < min(x->natt, NR_ATT); i++)
		if (x->att[i].ret < 0 && i != own_failure) {
			x->att[i].a->stopped = true;
			x->st.stopped++;
		}
}

static void op_add(struct sctx *x, struct scomp *c)
{
	struct device *dev = c->sd->dev;
	int ret;

	step_begin(x, OP_ADD, c, NULL);
	c->registered = true;
	device_lock(dev);
	enter(x);
	ret = c->sub ? component_add_typed(dev, &comp_ops[c->sub], c->sub) :
		       component_add(dev, &comp_ops[0]);
	leave(x);
	device_unlock(dev);
	x->st.adds++;
	if (x->natt > 1)
		violation(x, "bind-trigger", "%d aggregates bound", x->natt);
	if (ret != (x->natt && x->att[0].ret < 0 ? x->att[0].ret : 0))
		violation(x, "return-value", "returned %d; its aggregate's "
			  "bind %s", ret, !x->natt ? "did not run" :
			  x->att[0].ret < 0 ? "failed differently" :
			  "succeeded");
	if (ret) {
		/* undone: the driver core probes it again later */
		c->registered = false;
		c->retry = true;
		x->st.add_fail++;
	} else {
		c->retry = false;
	}
	note_stopped(x, 0);
}

static void op_del(struct sctx *x, struct scomp *c)
{
	struct device *dev = c->sd->dev;
	int i;

	step_begin(x, OP_DEL, c, NULL);
	c->leaving = true;
	device_lock(dev);
	enter(x);
	component_del(dev, &comp_ops[c->sub]);
	leave(x);
	device_unlock(dev);
	c->leaving = false;
	c->registered = false;
	x->st.dels++;
	for (i = 0; i < x->naggs; i++)
		if (x->aggs[i].bound && wants(&x->aggs[i], c))
			violation(x, "del-unbinds", "a%d still bound without "
				  "c%d", i, c->id);
	note_stopped(x, -1);
}

static void op_madd(struct sctx *x, struct sagg *a)
{
	struct device *parent = a->sd.dev;
	struct component_match *match;
	int ret;

	if (!a->retry)
		new_entries(x, a);
	step_begin(x, OP_MADD, NULL, a);
	a->stopped = false;
	a->orphaned = false;
	if (build_match(x, a, &match)) {
		violation(x, "test", "could not build a match list");
		release_match(x, a);
		return;
	}
	device_lock(parent);
	enter(x);
	ret = component_master_add_with_match(parent, &agg_ops, match);
	leave(x);
	device_unlock(parent);
	x->st.madds++;
	if (x->natt && x->att[0].a != a)
		violation(x, "bind-trigger", "a%d bound first",
			  x->att[0].a->id);
	if (ret != (x->natt && x->att[0].ret < 0 ? x->att[0].ret : 0))
		violation(x, "return-value", "returned %d; its bind %s", ret,
			  !x->natt ? "did not run" : x->att[0].ret < 0 ?
			  "failed differently" : "succeeded");
	if (ret) {
		/* The probe fails: its devres, the match list, goes. */
		release_match(x, a);
		a->retry = true;
		x->st.madd_fail++;
	} else {
		a->registered = true;
		a->retry = false;
	}
	note_stopped(x, 0);
}

static void op_mdel(struct sctx *x, struct sagg *a)
{
	struct device *parent = a->sd.dev;
	bool waiting[NR_AGGS];
	int i;

	step_begin(x, OP_MDEL, NULL, a);
	for (i = 0; i < x->naggs; i++) {
		struct sagg *b = &x->aggs[i];

		/* a stopped one waits for a registration, not for this */
		waiting[i] = b != a && b->registered && !b->bound &&
			     !b->stopped && share(a, b);
	}
	device_lock(parent);
	enter(x);
	component_master_del(parent, &agg_ops);
	leave(x);
	device_unlock(parent);
	a->registered = false;
	a->stopped = false;
	a->orphaned = false;
	x->st.mdels++;
	if (a->bound)
		violation(x, "mdel-unbinds", "a%d still bound", a->id);
	release_match(x, a);
	note_stopped(x, -1);
	/*
	 * The aggregates that waited for what @a held: complete and alone in
	 * wanting their components now, they should bind at once.
	 */
	for (i = 0; i < x->naggs; i++) {
		struct sagg *b = &x->aggs[i];
		bool tried = false;
		int j;

		if (!waiting[i])
			continue;
		b->orphaned = !b->bound;
		if (!all_registered(b) || contested(b))
			continue;
		for (j = 0; j < min(x->natt, NR_ATT); j++)
			tried |= x->att[j].a == b;
		atomic_inc(&orphan_situations);
		atomic_inc(tried ? &orphan_offered : &orphan_stuck);
	}
}

/* After each step: the state the framework must be in. */
static void check_state(struct sctx *x)
{
	int i, j;

	for (i = 0; i < x->ncomps; i++) {
		struct scomp *c = &x->comps[i];
		int want = c->bound_to ? RES_RECS : 0;

		if (c->bound_to && (!c->registered || !c->bound_to->bound))
			violation(x, "bound-state", "c%d bound to a%d, which "
				  "is not bound", i, c->bound_to->id);
		if (c->dev_live != want || c->par_live != want)
			violation(x, "devres-live", "c%d %s: %d and %d of its "
				  "resources live on its device and the parent",
				  i, c->bound_to ? "bound" : "unbound",
				  c->dev_live, c->par_live);
	}
	for (i = 0; i < NR_PLAIN + NR_TDEV; i++) {
		struct sdev *sd = i < NR_PLAIN ? &x->plain[i] :
				  &x->tdev[i - NR_PLAIN];
		int want = sd->base, n;

		for (j = 0; j <= NR_SUB; j++)
			if (sd->comp[j] && sd->comp[j]->bound_to)
				want += GROUP_NODES + RES_NODES;
		n = devres_nodes(sd->dev);
		if (n != want)
			violation(x, "devres-count", "%s has %d devres "
				  "entries, want %d", sd->name, n, want);
	}
	for (i = 0; i < x->naggs; i++) {
		struct sagg *a = &x->aggs[i];
		int want = a->sd.base, n;

		if (a->registered)
			want += a->match_nodes;
		if (a->bound) {
			want += GROUP_NODES + RES_NODES + RES_NODES * a->norder;
			for (j = 0; j < a->norder; j++)
				if (x->comps[a->order[j]].bound_to != a)
					violation(x, "bound-state", "a%d "
						  "bound without c%d", i,
						  a->order[j]);
		}
		if (a->bound && !a->registered)
			violation(x, "bound-state", "a%d bound, not registered",
				  i);
		if (a->own_live != (a->bound ? RES_RECS : 0))
			violation(x, "devres-live", "a%d %s: %d of its bind's "
				  "resources live", i, a->bound ? "bound" :
				  "unbound", a->own_live);
		n = devres_nodes(a->sd.dev);
		if (n != want)
			violation(x, "devres-count", "%s has %d devres "
				  "entries, want %d", a->sd.name, n, want);
		if (!a->registered || !all_registered(a))
			continue;
		if (contested(a)) {
			x->st.contested++;
			continue;
		}
		x->st.live_checked += a->bound;
		if (a->bound)
			continue;
		if (a->stopped || (CLASSIC && a->orphaned))
			continue;
		violation(x, "liveness", "a%d not bound, though every entry "
			  "has its component registered and no other aggregate "
			  "wants them", i);
	}
}

static void random_step(struct sctx *x)
{
	struct scomp *in[NR_COMPS], *out[NR_COMPS], *retry[NR_COMPS];
	int nin = 0, nout = 0, nretry = 0, i;
	struct sagg *a;

	for (i = 0; i < x->ncomps; i++) {
		struct scomp *c = &x->comps[i];

		if (c->registered)
			in[nin++] = c;
		else
			out[nout++] = c;
		if (!c->registered && c->retry)
			retry[nretry++] = c;
	}
	/* a deferred probe is retried soon, as the driver core does */
	if (nretry && chance(&x->rng, 500)) {
		op_add(x, retry[below(&x->rng, nretry)]);
		return;
	}
	if (chance(&x->rng, 750)) {
		if (nout && (!nin || chance(&x->rng, x->p_add)))
			op_add(x, out[below(&x->rng, nout)]);
		else
			op_del(x, in[below(&x->rng, nin)]);
		return;
	}
	a = &x->aggs[below(&x->rng, x->naggs)];
	if (a->registered)
		op_mdel(x, a);
	else
		op_madd(x, a);
}

/* Everything goes, in random order, each step checked as the others. */
static void teardown(struct sctx *x)
{
	for (;;) {
		int n = 0, i, k;

		for (i = 0; i < x->ncomps; i++)
			n += x->comps[i].registered;
		for (i = 0; i < x->naggs; i++)
			n += x->aggs[i].registered;
		if (!n)
			break;
		k = below(&x->rng, n);
		x->step++;
		x->st.teardown++;
		for (i = 0; i < x->ncomps; i++)
			if (x->comps[i].registered && !k--)
				op_del(x, &x->comps[i]);
		for (i = 0; i < x->naggs && k >= 0; i++)
			if (x->aggs[i].registered && !k--)
				op_mdel(x, &x->aggs[i]);
		check_state(x);
	}
}

/* After a sequence: every resource released once, every device as new. */
static void check_released(struct sctx *x)
{
	int i, live = 0;

	for (i = 0; i < NR_RECS; i++)
		live += x->rec[i].state == R_LIVE;
	if (live)
		violation(x, "devres-leak", "%d resources of binds never "
			  "released", live);
	for (i = 0; i < NR_PLAIN + NR_TDEV + NR_AGGS; i++) {
		struct sdev *sd;
		int n;

		if (i < NR_PLAIN)
			sd = &x->plain[i];
		else if (i < NR_PLAIN + NR_TDEV)
			sd = &x->tdev[i - NR_PLAIN];
		else
			sd = &x->aggs[i - NR_PLAIN - NR_TDEV].sd;
		n = devres_nodes(sd->dev);

		if (n != sd->base)
			violation(x, "devres-leak", "%s has %d devres entries "
				  "after the sequence, %d before", sd->name, n,
				  sd->base);
	}
}

/* The pool of this sequence: which devices, components and aggregates. */
static void setup_sequence(struct sctx *x, u64 s)
{
	int i, j, nplain;

	x->seq_seed = s;
	x->rng = s;
	x->frng = s ^ 0x6a09e667f3bcc908ULL;
	memset(&x->st, 0, sizeof(x->st));
	x->step = 0;
	x->op = OP_NONE;
	nplain = 3 + below(&x->rng, NR_PLAIN - 2);
	x->ntdev = below(&x->rng, NR_TDEV + 1);
	x->naggs = 2 + below(&x->rng, NR_AGGS - 1);
	x->p_add = 500 + below(&x->rng, 250);
	x->ncomps = 0;
	for (i = 0; i < NR_PLAIN + NR_TDEV; i++) {
		struct sdev *sd = i < NR_PLAIN ? &x->plain[i] :
				  &x->tdev[i - NR_PLAIN];

		memset(sd->comp, 0, sizeof(sd->comp));
	}
	for (i = 0; i < nplain + x->ntdev; i++) {
		struct sdev *sd = i < nplain ? &x->plain[i] :
				  &x->tdev[i - nplain];
		int subs = i < nplain ? 1 : 1 + below(&x->rng, NR_SUB);

		for (j = 0; j < subs; j++) {
			struct scomp *c = &x->comps[x->ncomps];

			*c = (struct scomp){ .ctx = x, .sd = sd,
					     .id = x->ncomps,
					     .sub = i < nplain ? 0 : j + 1 };
			c->home = chance(&x->rng, 250) ? -1 :
				  (int)below(&x->rng, x->naggs);
			sd->comp[c->sub] = c;
			x->ncomps++;
		}
	}
	for (i = 0; i < NR_AGGS; i++) {
		struct sagg *a = &x->aggs[i];

		a->registered = false;
		a->bound = false;
		a->retry = false;
		a->stopped = false;
		a->orphaned = false;
		a->phase = A_IDLE;
		a->nent = 0;
		a->norder = 0;
		a->nbound = 0;
		a->own_live = 0;
		a->match_nodes = 0;
	}
}

static void run_sequence(struct sctx *x, u64 s)
{
	ktime_t t0 = ktime_get();
	u32 i;

	setup_sequence(x, s);
	for (i = 0; i < run_steps && !x->violations; i++) {
		x->step++;
		x->st.steps++;
		random_step(x);
		check_state(x);
	}
	teardown(x);
	check_released(x);
	x->elapsed = ktime_sub(ktime_get(), t0);
}

/* Devices, created for a case and removed at its end */

static int new_sdev(struct sctx *x, struct sdev *sd, const char *kind, int i)
{
	snprintf(sd->name, sizeof(sd->name), "dlks%d-%s%d", x->id, kind, i);
	sd->dev = root_device_register(sd->name);
	if (IS_ERR(sd->dev)) {
		sd->dev = NULL;
		return -ENODEV;
	}
	sd->ctx = x;
	dev_set_drvdata(sd->dev, sd);
	sd->base = devres_nodes(sd->dev);
	return 0;
}

static void free_ctx(struct sctx *x)
{
	int i;

	for (i = 0; i < NR_PLAIN; i++)
		if (x->plain[i].dev)
			root_device_unregister(x->plain[i].dev);
	for (i = 0; i < NR_TDEV; i++)
		if (x->tdev[i].dev)
			root_device_unregister(x->tdev[i].dev);
	for (i = 0; i < NR_AGGS; i++)
		if (x->aggs[i].sd.dev)
			root_device_unregister(x->aggs[i].sd.dev);
	kfree(x);
}

static struct sctx *new_ctx(struct kunit *test, int id)
{
	struct sctx *x = kzalloc(sizeof(*x), GFP_KERNEL);
	int i, ret = 0;

	KUNIT_ASSERT_NOT_NULL(test, x);
	x->id = id;
	x->task = current;
	init_completion(&x->done);
	for (i = 0; i < NR_PLAIN && !ret; i++)
		ret = new_sdev(x, &x->plain[i], "p", i);
	for (i = 0; i < NR_TDEV && !ret; i++)
		ret = new_sdev(x, &x->tdev[i], "t", i);
	for (i = 0; i < NR_AGGS && !ret; i++) {
		x->aggs[i].ctx = x;
		x->aggs[i].id = i;
		x->aggs[i].sd.agg = &x->aggs[i];
		ret = new_sdev(x, &x->aggs[i].sd, "a", i);
	}
	if (ret) {
		free_ctx(x);
		KUNIT_FAIL_AND_ABORT(test, "cannot register the devices");
	}
	return x;
}

/* Reporting */

static u64 run_seed;

static void report(struct kunit *test, struct sctx *x, const char *who)
{
	struct stats *st = &x->st;
	int i;

	kunit_info(test, "%sseed %llu: %d steps and %d to tear down in %lld "
		   "ms; "
		   "%d components, %d aggregates (up to %d entries); "
		   "add %d (%d failed), del %d, master_add %d (%d failed), "
		   "master_del %d; binds %d, failed %d (component -ENOMEM %d, "
		   "-EPROBE_DEFER %d; aggregate before %d, after bind_all %d); "
		   "unbinds %d; %d component binds; %d binds failing in a "
		   "removal; steps x aggregates complete: %d contested, %d "
		   "alone and bound\n",
		   who, x->seq_seed, st->steps, st->teardown,
		   ktime_to_ms(x->elapsed), x->ncomps, x->naggs,
		   st->max_entries, st->adds, st->add_fail, st->dels, st->madds,
		   st->madd_fail, st->mdels, st->binds, st->bind_fail,
		   st->f_nomem, st->f_defer, st->f_agg_early, st->f_agg_late,
		   st->unbinds, st->comp_binds, st->stopped, st->contested,
		   st->live_checked);
	for (i = 0; i < x->nmsg; i++)
		KUNIT_FAIL(test, "%sseed %llu: %s", who, x->seq_seed,
			   x->msg[i]);
	if (x->violations > x->nmsg)
		KUNIT_FAIL(test, "%sseed %llu: and %d more", who, x->seq_seed,
			   x->violations - x->nmsg);
	/* A run long enough must have bound and failed, or it tested little. */
	if (st->steps >= 200 && !x->violations) {
		KUNIT_EXPECT_GT_MSG(test, st->binds, 0, "%snothing bound", who);
		KUNIT_EXPECT_GT_MSG(test, st->bind_fail, 0, "%sno bind failed",
				    who);
		KUNIT_EXPECT_GT_MSG(test, st->live_checked, 0,
				    "%sliveness never applied", who);
	}
	x->violations = 0;
	x->nmsg = 0;
}

/* Single-threaded sequences, one KUnit result each */

static const void *seq_params(const void *prev, char *desc)
{
	unsigned long i = (unsigned long)prev;	/* 1-based */

	if (i >= sequences)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "seq %lu seed %llu", i,
		 run_seed + i);
	return (void *)(i + 1);
}

static void sequence(struct kunit *test)
{
	unsigned long i = (unsigned long)test->param_value - 1;
	struct sctx *x;

	/* KUnit prints no plan for the parameters: the harness wants one. */
	if (!test->param_index)
		kunit_log(KERN_INFO, test, KUNIT_SUBTEST_INDENT
			  KUNIT_SUBTEST_INDENT "1..%u", sequences);
	x = new_ctx(test, 0);

	run_sequence(x, run_seed + i);
	report(test, x, "");
	free_ctx(x);
}

/* Two threads at once, each on its own devices and aggregates */

static int thread_fn(void *data)
{
	struct sctx *x = data;
	struct stats sum = {};
	int *to = (int *)&sum, *from = (int *)&x->st;
	ktime_t total = 0;
	int longest = 0;
	size_t k;
	u32 i;

	x->task = current;
	for (i = 0; i < threads_sequences && !x->violations; i++) {
		run_sequence(x, run_seed + 1000 * x->id + i);
		total = ktime_add(total, x->elapsed);
		longest = max(longest, x->st.max_entries);
		for (k = 0; k < sizeof(sum) / sizeof(int); k++)
			to[k] += from[k];
	}
	/* the report gives the totals, from the seed of the first sequence */
	x->st = sum;
	x->st.max_entries = longest;
	x->seq_seed = run_seed + 1000 * x->id;
	x->elapsed = total;
	complete(&x->done);
	return 0;
}

static void two_threads(struct kunit *test)
{
	struct sctx *x[NR_THREADS];
	struct task_struct *t;
	int i, overlaps = 0;
	char who[48];

	for (i = 0; i < NR_THREADS; i++)
		x[i] = new_ctx(test, i + 1);
	for (i = 0; i < NR_THREADS; i++) {
		t = kthread_run(thread_fn, x[i], "dlks%d", i + 1);
		if (IS_ERR(t))
			complete(&x[i]->done);
		KUNIT_EXPECT_FALSE(test, IS_ERR(t));
	}
	for (i = 0; i < NR_THREADS; i++)
		wait_for_completion(&x[i]->done);
	for (i = 0; i < NR_THREADS; i++) {
		overlaps += x[i]->st.overlaps;
		snprintf(who, sizeof(who), "thread %d, %u sequences from ",
			 i + 1, threads_sequences);
		report(test, x[i], who);
		free_ctx(x[i]);
	}
	kunit_info(test, "%d framework calls made while the other thread was "
		   "in one\n", overlaps);
	/* They must have met, or this tested nothing of the locking. */
	if (run_steps * threads_sequences >= 1000)
		KUNIT_EXPECT_GT(test, overlaps, 0);
}

/*
 * Aggregates left complete by component_master_del() of another that
 * held or claimed their components must bind then, as they would have if
 * the components had been registered only now.
 */
static void released_components_offered(struct kunit *test)
{
	int n = atomic_read(&orphan_situations);
	int stuck = atomic_read(&orphan_stuck);

	if (!n)
		kunit_skip(test, "no sequence left an aggregate waiting for "
			   "components that component_master_del() let go");
	kunit_info(test, "%d situations: %d aggregates bound at once, %d "
		   "left unbound\n", n, atomic_read(&orphan_offered), stuck);
	DEFECT_EXPECT(test, stuck == 0, "a component freed by "
		      "component_master_del() is not offered to an aggregate "
		      "waiting for it", "%d of %d aggregates stayed unbound "
		      "though complete", stuck, n);
}

static int suite_init(struct kunit_suite *suite)
{
	run_seed = seed ? seed : get_random_u64() | 1;
	run_steps = steps;
	if (!run_steps)
		run_steps = IS_ENABLED(CONFIG_KASAN) ||
			    IS_ENABLED(CONFIG_PROVE_LOCKING) ? 1000 : 4000;
	pr_info("component_stress: seed %llu (the module's seed= repeats it)\n",
		run_seed);
	atomic_set(&orphan_situations, 0);
	atomic_set(&orphan_offered, 0);
	atomic_set(&orphan_stuck, 0);
	return 0;
}

static struct kunit_case stress_cases[] = {
	KUNIT_CASE_PARAM(sequence, seq_params),
	KUNIT_CASE_SLOW(two_threads),
	KUNIT_CASE(released_components_offered),
	{}
};

static struct kunit_suite stress_suite = {
	.name = "component_stress",
	.suite_init = suite_init,
	.test_cases = stress_cases,
};
kunit_test_suite(stress_suite);

MODULE_DESCRIPTION("Random stress of the component framework");
MODULE_LICENSE("GPL");
