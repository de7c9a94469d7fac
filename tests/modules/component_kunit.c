// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the component framework, <linux/component.h>.
 *
 * Built out of tree against each kernel, so that the pristine tree's
 * implementation runs exactly the tests ours does.  The devices are root
 * devices without drivers: the framework needs only a struct device and
 * its devres, and the test thread plays each driver's probe and remove.
 *
 * The aggregate is modelled on the imx-drm example of the 3.14 commit:
 * two crtcs, a display bridge (ldb) listed twice and an HDMI connector,
 * matched by device, by name and by a compare function of the driver's
 * own.  Every callback and every devres release writes to a log, and
 * tests compare the log with the sequence a driver relies on.
 *
 * Behaviour that the classic implementation gets wrong is checked with
 * DEFECT_EXPECT() (dlk_defect.h): there the case is that known defect if
 * that check fails and nothing else does.
 */
#include <kunit/test.h>
#include <linux/component.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uio.h>

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

/*
 * With crash_classic=1 (and KUnit's filter keeping that case alone),
 * bad_match_list runs on the classic implementation too, which it
 * makes oops: see there.
 */
static bool crash_classic;
module_param(crash_classic, bool, 0444);
MODULE_PARM_DESC(crash_classic, "run bad_match_list on the classic "
		 "implementation, which it crashes");

/* The log */

static char ev_log[8192];

static void ev(const char *fmt, ...)
{
	size_t len = strlen(ev_log);
	va_list ap;

	if (len && len < sizeof(ev_log) - 1)
		ev_log[len++] = ' ';
	va_start(ap, fmt);
	vsnprintf(ev_log + len, sizeof(ev_log) - len, fmt, ap);
	va_end(ap);
}

#define EXPECT_LOG(test, want)						\
	do {								\
		KUNIT_EXPECT_STREQ(test, ev_log, want);			\
		ev_log[0] = '\0';					\
	} while (0)

/* The log, where the classic implementation's is known to differ. */
#define DEFECT_EXPECT_LOG(test, want, reason)				\
	do {								\
		DEFECT_EXPECT(test, !strcmp(ev_log, want), reason,	\
			      "the log is \"%s\", not \"%s\"", ev_log,	\
			      want);					\
		ev_log[0] = '\0';					\
	} while (0)

/* Components */

struct tcomp {
	const char *name;
	struct device *dev;
	const struct component_ops *ops;
	int subcomponent;	/* 0: added with component_add() */
	int fail;		/* error for its bind to return */
	bool added;
};

struct tagg;
static struct tcomp *tcomp_of(struct device *dev,
			      const struct component_ops *ops);

static void devm_note(void *what)
{
	ev("~%s", (const char *)what);
}

static int tc_bind(struct device *dev, struct device *master, void *data);
static void tc_unbind(struct device *dev, struct device *master, void *data);
static int tc_bind2(struct device *dev, struct device *master, void *data);
static void tc_unbind2(struct device *dev, struct device *master, void *data);

static const struct component_ops tc_ops = {
	.bind = tc_bind,
	.unbind = tc_unbind,
};

/* A second set, for a second component of one device. */
static const struct component_ops tc_ops2 = {
	.bind = tc_bind2,
	.unbind = tc_unbind2,
};

/* Aggregates */

struct tagg {
	const char *name;
	struct device *parent;
	const struct component_master_ops *ops;
	int defer;		/* binds to refuse with -EPROBE_DEFER */
	int fail;		/* error for its bind to return */
	bool skip_unbind_all;
	bool bound;
	char devm_name[16];
};

static struct tagg aggs[2];

/* Set when a test left the framework's lock held for good. */
static bool wedged;

static int agg_bind(struct tagg *a)
{
	int ret;

	ev("%s+", a->name);
	if (a->defer) {
		a->defer--;
		return -EPROBE_DEFER;
	}
	if (a->fail)
		return a->fail;
	snprintf(a->devm_name, sizeof(a->devm_name), "%s", a->name);
	ret = devm_add_action(a->parent, devm_note, a->devm_name);
	if (ret)
		return ret;
	ret = component_bind_all(a->parent, a);
	if (ret) {
		ev("%s!", a->name);
		return ret;
	}
	a->bound = true;
	return 0;
}

static void agg_unbind(struct tagg *a)
{
	ev("%s-", a->name);
	if (!a->skip_unbind_all)
		component_unbind_all(a->parent, a);
	a->bound = false;
}

static int agg0_bind(struct device *dev) { return agg_bind(&aggs[0]); }
static void agg0_unbind(struct device *dev) { agg_unbind(&aggs[0]); }
static int agg1_bind(struct device *dev) { return agg_bind(&aggs[1]); }
static void agg1_unbind(struct device *dev) { agg_unbind(&aggs[1]); }

static const struct component_master_ops agg_ops[2] = {
	{ .bind = agg0_bind, .unbind = agg0_unbind },
	{ .bind = agg1_bind, .unbind = agg1_unbind },
};

/* The devices of a test, released at its end. */

#define MAX_COMPS 110

static struct tcomp comps[MAX_COMPS];
static int ncomps;
static struct device *parents[2];
static char names[MAX_COMPS][24];

static struct tcomp *tcomp_of(struct device *dev,
			      const struct component_ops *ops)
{
	int i;

	for (i = 0; i < ncomps; i++)
		if (comps[i].dev == dev && comps[i].ops == ops)
			return &comps[i];
	return NULL;
}

static int tcomp_bind_ops(struct device *dev, struct device *master,
			  void *data, const struct component_ops *ops)
{
	struct tcomp *c = tcomp_of(dev, ops);
	struct tagg *a = data;	/* component_bind_all() was given it */
	int ret;

	if (!c)
		return -ENODEV;
	if (a->parent != master)
		ev("%s@wrong-master", c->name);
	ev("+%s%s", c->name, a == &aggs[0] ? "" : "/1");
	/* One devres action on each side, so that tests see each go. */
	ret = devm_add_action(dev, devm_note, (void *)c->name);
	if (!ret)
		ret = devm_add_action(master, devm_note, names[c - comps]);
	if (ret)
		return ret;
	return c->fail;
}

static int tc_bind(struct device *dev, struct device *master, void *data)
{
	return tcomp_bind_ops(dev, master, data, &tc_ops);
}

static int tc_bind2(struct device *dev, struct device *master, void *data)
{
	return tcomp_bind_ops(dev, master, data, &tc_ops2);
}

static void tcomp_unbind_ops(struct device *dev, const struct component_ops *ops)
{
	struct tcomp *c = tcomp_of(dev, ops);

	ev("-%s", c ? c->name : "?");
}

static void tc_unbind(struct device *dev, struct device *master, void *data)
{
	tcomp_unbind_ops(dev, &tc_ops);
}

static void tc_unbind2(struct device *dev, struct device *master, void *data)
{
	tcomp_unbind_ops(dev, &tc_ops2);
}

static struct device *new_device(struct kunit *test, const char *name)
{
	struct device *dev = root_device_register(name);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(dev), "root device %s: %ld", name,
			       PTR_ERR(dev));
	return dev;
}

/* A component of device @dev (new if NULL) named @name. */
static struct tcomp *new_comp(struct kunit *test, const char *name,
			      struct device *dev, const struct component_ops *ops,
			      int subcomponent)
{
	struct tcomp *c;

	KUNIT_ASSERT_LT(test, ncomps, MAX_COMPS);
	c = &comps[ncomps];
	snprintf(names[ncomps], sizeof(names[0]), "p.%s", name);
	ncomps++;
	c->name = name;
	c->dev = dev ? dev : new_device(test, name);
	c->ops = ops;
	c->subcomponent = subcomponent;
	return c;
}

static int comp_add(struct tcomp *c)
{
	int ret = c->subcomponent ?
		component_add_typed(c->dev, c->ops, c->subcomponent) :
		component_add(c->dev, c->ops);

	c->added = !ret;
	return ret;
}

static void comp_del(struct tcomp *c)
{
	component_del(c->dev, c->ops);
	c->added = false;
}

static int agg_add(struct tagg *a, struct component_match *match)
{
	return component_master_add_with_match(a->parent, a->ops, match);
}

static int test_init(struct kunit *test)
{
	if (wedged)
		return -EDEADLK;
	memset(comps, 0, sizeof(comps));
	memset(aggs, 0, sizeof(aggs));
	ncomps = 0;
	ev_log[0] = '\0';
	aggs[0].name = "M";
	aggs[0].ops = &agg_ops[0];
	aggs[1].name = "N";
	aggs[1].ops = &agg_ops[1];
	parents[0] = root_device_register("dlkc-parent0");
	parents[1] = root_device_register("dlkc-parent1");
	if (IS_ERR(parents[0]) || IS_ERR(parents[1]))
		return -ENODEV;
	aggs[0].parent = parents[0];
	aggs[1].parent = parents[1];
	return 0;
}

/*
 * Unregisters what a test left, then the devices: the aggregates' and
 * components' devres, the match lists among it, go with them.
 */
static void test_exit(struct kunit *test)
{
	int i;

	if (wedged)
		return;

	for (i = 0; i < 2; i++)
		component_master_del(aggs[i].parent, aggs[i].ops);
	for (i = 0; i < ncomps; i++)
		if (comps[i].added)
			comp_del(&comps[i]);
	for (i = 0; i < 2; i++)
		root_device_unregister(parents[i]);
	for (i = ncomps - 1; i >= 0; i--) {
		int j;
		bool shared = false;

		for (j = 0; j < i; j++)
			shared |= comps[j].dev == comps[i].dev;
		if (!shared)
			root_device_unregister(comps[i].dev);
	}
}

/* The imx-drm model */

enum { CRTC0, CRTC1, LDB, HDMI, NR_IMX };

static const char *const imx_names[NR_IMX] = {
	"dlkc-crtc0", "dlkc-crtc1", "dlkc-ldb", "dlkc-hdmi",
};

/* A compare function of the driver's own, as most drivers have. */
static int compare_ldb(struct device *dev, void *data)
{
	return !strcmp(dev_name(dev), data);
}

static struct tcomp *imx[NR_IMX];

static void imx_devices(struct kunit *test)
{
	int i;

	for (i = 0; i < NR_IMX; i++)
		imx[i] = new_comp(test, imx_names[i], NULL, &tc_ops, 0);
}

/* crtc0 by device, crtc1 and hdmi by name, the ldb twice by its own. */
static struct component_match *imx_match(struct device *parent)
{
	struct component_match *match = NULL;

	component_match_add(parent, &match, component_compare_dev,
			    imx[CRTC0]->dev);
	component_match_add(parent, &match, component_compare_dev_name,
			    (void *)imx_names[CRTC1]);
	component_match_add(parent, &match, compare_ldb,
			    (void *)imx_names[LDB]);
	component_match_add(parent, &match, compare_ldb,
			    (void *)imx_names[LDB]);
	component_match_add(parent, &match, component_compare_dev_name,
			    (void *)imx_names[HDMI]);
	return match;
}

#define IMX_BIND "M+ +dlkc-crtc0 +dlkc-crtc1 +dlkc-ldb +dlkc-hdmi"
/*
 * Unbind in reverse; each component's own devres at its unbind; then the
 * aggregate's group on the parent: what the components' binds put there,
 * newest first, and last what the aggregate's bind put there.
 */
#define IMX_UNBIND "M- -dlkc-hdmi ~dlkc-hdmi -dlkc-ldb ~dlkc-ldb "	\
	"-dlkc-crtc1 ~dlkc-crtc1 -dlkc-crtc0 ~dlkc-crtc0 "		\
	"~p.dlkc-hdmi ~p.dlkc-ldb ~p.dlkc-crtc1 ~p.dlkc-crtc0 ~M"

static int imx_add(int k)
{
	if (k == NR_IMX)
		return agg_add(&aggs[0], imx_match(aggs[0].parent));
	return comp_add(imx[k]);
}

/*
 * Every order of registering the aggregate and its four components (the
 * aggregate first, last and in between): it binds once, when the last
 * arrives, its components in match order, the duplicate once; removing
 * it unbinds in reverse and releases every devres of the binding.
 */
static void bind_in_every_order(struct kunit *test)
{
	int perm[NR_IMX + 1], n = NR_IMX + 1, count = 0;
	int i, j, k;

	imx_devices(test);
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (;;) {
		for (i = 0; i < n; i++) {
			int ret = imx_add(perm[i]);

			KUNIT_EXPECT_EQ_MSG(test, ret, 0, "order %d step %d", count, i);
			if (i < n - 1 && ev_log[0]) {
				KUNIT_FAIL(test, "order %d: bound early: %s", count, ev_log);
				ev_log[0] = '\0';
			}
		}
		KUNIT_EXPECT_STREQ_MSG(test, ev_log, IMX_BIND, "order %d", count);
		ev_log[0] = '\0';
		component_master_del(aggs[0].parent, aggs[0].ops);
		KUNIT_EXPECT_STREQ_MSG(test, ev_log, IMX_UNBIND, "order %d", count);
		ev_log[0] = '\0';
		for (i = 0; i < NR_IMX; i++)
			comp_del(imx[i]);
		KUNIT_EXPECT_STREQ(test, ev_log, "");
		count++;
		/* next permutation, lexicographic */
		for (i = n - 2; i >= 0 && perm[i] > perm[i + 1]; i--)
			;
		if (i < 0)
			break;
		for (j = n - 1; perm[j] < perm[i]; j--)
			;
		swap(perm[i], perm[j]);
		for (j = i + 1, k = n - 1; j < k; j++, k--)
			swap(perm[j], perm[k]);
	}
	KUNIT_EXPECT_EQ(test, count, 120);
}

static void imx_bind_all(struct kunit *test)
{
	int i;

	imx_devices(test);
	for (i = 0; i <= NR_IMX; i++)
		KUNIT_ASSERT_EQ(test, imx_add(i), 0);
	EXPECT_LOG(test, IMX_BIND);
}

/*
 * Removing any component takes the whole aggregate down; it stays
 * registered and binds again when the component comes back.
 */
static void remove_and_readd_each(struct kunit *test)
{
	int k;

	imx_bind_all(test);
	for (k = 0; k < NR_IMX; k++) {
		comp_del(imx[k]);
		EXPECT_LOG(test, IMX_UNBIND);
		KUNIT_EXPECT_EQ(test, comp_add(imx[k]), 0);
		EXPECT_LOG(test, IMX_BIND);
	}
}

/*
 * Removing the aggregate leaves its components registered; a new one
 * binds them at once.
 */
static void master_del_and_readd(struct kunit *test)
{
	imx_bind_all(test);
	component_master_del(aggs[0].parent, aggs[0].ops);
	EXPECT_LOG(test, IMX_UNBIND);
	KUNIT_EXPECT_EQ(test, imx_add(NR_IMX), 0);
	EXPECT_LOG(test, IMX_BIND);
}

/*
 * A component failing to bind: the ones bound before it are unbound in
 * reverse, every devres of the attempt is released once, the error goes
 * back to the registration that triggered the bind, which is undone.
 * Resources of the components' probes survive.
 */
static void bind_failure_at_each_position(struct kunit *test)
{
	static const char *const want[NR_IMX] = {
		"M+ +dlkc-crtc0 ~dlkc-crtc0 ~p.dlkc-crtc0 M! ~M",
		"M+ +dlkc-crtc0 +dlkc-crtc1 ~dlkc-crtc1 ~p.dlkc-crtc1 "
		"-dlkc-crtc0 ~dlkc-crtc0 M! ~p.dlkc-crtc0 ~M",
		"M+ +dlkc-crtc0 +dlkc-crtc1 +dlkc-ldb ~dlkc-ldb ~p.dlkc-ldb "
		"-dlkc-crtc1 ~dlkc-crtc1 -dlkc-crtc0 ~dlkc-crtc0 M! "
		"~p.dlkc-crtc1 ~p.dlkc-crtc0 ~M",
		"M+ +dlkc-crtc0 +dlkc-crtc1 +dlkc-ldb +dlkc-hdmi ~dlkc-hdmi "
		"~p.dlkc-hdmi -dlkc-ldb ~dlkc-ldb -dlkc-crtc1 ~dlkc-crtc1 "
		"-dlkc-crtc0 ~dlkc-crtc0 M! ~p.dlkc-ldb ~p.dlkc-crtc1 "
		"~p.dlkc-crtc0 ~M",
	};
	int i, k;

	imx_devices(test);
	for (i = 0; i < NR_IMX; i++)
		KUNIT_ASSERT_EQ(test, devm_add_action(imx[i]->dev, devm_note,
						      "probe"), 0);
	for (k = 0; k < NR_IMX; k++) {
		/* the aggregate last: its registration fails */
		imx[k]->fail = -EINVAL;
		for (i = 0; i < NR_IMX; i++)
			KUNIT_ASSERT_EQ(test, comp_add(imx[i]), 0);
		KUNIT_EXPECT_EQ(test, imx_add(NR_IMX), -EINVAL);
		EXPECT_LOG(test, want[k]);
		/* a component last: its registration fails */
		comp_del(imx[k]);
		KUNIT_EXPECT_EQ(test, imx_add(NR_IMX), 0);
		KUNIT_EXPECT_EQ(test, comp_add(imx[k]), -EINVAL);
		KUNIT_EXPECT_FALSE(test, imx[k]->added);
		EXPECT_LOG(test, want[k]);
		/* fixed, it comes back and the aggregate binds */
		imx[k]->fail = 0;
		KUNIT_EXPECT_EQ(test, comp_add(imx[k]), 0);
		EXPECT_LOG(test, IMX_BIND);
		component_master_del(aggs[0].parent, aggs[0].ops);
		EXPECT_LOG(test, IMX_UNBIND);
		for (i = 0; i < NR_IMX; i++)
			comp_del(imx[i]);
	}
	EXPECT_LOG(test, "");
}

/*
 * An aggregate's bind deferring: the registration that triggered it
 * returns -EPROBE_DEFER and is undone, so that the driver core probes
 * again; the next attempt binds.
 */
static void probe_defer_and_retry(struct kunit *test)
{
	int i;

	imx_devices(test);
	for (i = 0; i < NR_IMX; i++)
		KUNIT_ASSERT_EQ(test, comp_add(imx[i]), 0);
	aggs[0].defer = 1;
	KUNIT_EXPECT_EQ(test, imx_add(NR_IMX), -EPROBE_DEFER);
	EXPECT_LOG(test, "M+");
	KUNIT_EXPECT_EQ(test, imx_add(NR_IMX), 0);
	EXPECT_LOG(test, IMX_BIND);

	comp_del(imx[HDMI]);
	EXPECT_LOG(test, IMX_UNBIND);
	aggs[0].defer = 2;
	KUNIT_EXPECT_EQ(test, comp_add(imx[HDMI]), -EPROBE_DEFER);
	KUNIT_EXPECT_EQ(test, comp_add(imx[HDMI]), -EPROBE_DEFER);
	KUNIT_EXPECT_EQ(test, comp_add(imx[HDMI]), 0);
	EXPECT_LOG(test, "M+ M+ " IMX_BIND);
}

/*
 * Typed components: one device with two, told apart by their type and
 * matched by typed entries, next to an untyped component.
 */
static int compare_type(struct device *dev, int subcomponent, void *data)
{
	return subcomponent == (long)data;
}

static void typed_and_untyped(struct kunit *test)
{
	struct component_match *match = NULL;
	struct device *gpu = new_device(test, "dlkc-gpu");
	struct tcomp *audio = new_comp(test, "audio", gpu, &tc_ops, 1);
	struct tcomp *hdcp = new_comp(test, "hdcp", gpu, &tc_ops2, 2);
	struct tcomp *codec = new_comp(test, "dlkc-codec", NULL, &tc_ops, 0);

	component_match_add_typed(aggs[0].parent, &match, compare_type,
				  (void *)2L);
	component_match_add(aggs[0].parent, &match, component_compare_dev,
			    codec->dev);
	component_match_add_typed(aggs[0].parent, &match, compare_type,
				  (void *)1L);
	KUNIT_EXPECT_EQ(test, comp_add(audio), 0);
	KUNIT_EXPECT_EQ(test, agg_add(&aggs[0], match), 0);
	KUNIT_EXPECT_EQ(test, comp_add(codec), 0);
	EXPECT_LOG(test, "");
	KUNIT_EXPECT_EQ(test, comp_add(hdcp), 0);
	EXPECT_LOG(test, "M+ +hdcp +dlkc-codec +audio");
	comp_del(audio);
	EXPECT_LOG(test, "M- -audio ~audio -dlkc-codec ~dlkc-codec -hdcp ~hdcp "
		   "~p.audio ~p.dlkc-codec ~p.hdcp ~M");
}

/*
 * component_match_add() "only matches against components added with
 * component_add()": an untyped entry for a device that also has a typed
 * component must get the untyped one.
 */
static void untyped_entry_skips_typed(struct kunit *test)
{
	struct component_match *match = NULL;
	struct device *gpu = new_device(test, "dlkc-gpu");
	struct tcomp *audio = new_comp(test, "audio", gpu, &tc_ops2, 1);
	struct tcomp *plain = new_comp(test, "plain", gpu, &tc_ops, 0);

	component_match_add(aggs[0].parent, &match, component_compare_dev, gpu);
	KUNIT_EXPECT_EQ(test, comp_add(audio), 0);
	KUNIT_EXPECT_EQ(test, comp_add(plain), 0);
	KUNIT_EXPECT_EQ(test, agg_add(&aggs[0], match), 0);
	DEFECT_EXPECT_LOG(test, "M+ +plain", "untyped match entries also match "
			  "typed components");
}

/*
 * More entries than one allocation of the classic match array (16):
 * 100 components by name, registered in reverse, bound in match order.
 */
static void many_entries(struct kunit *test)
{
	static char want[MAX_COMPS * 12];
	struct component_match *match = NULL;
	static char cname[100][16];
	int i;

	want[0] = '\0';
	strcat(want, "M+");
	for (i = 0; i < 100; i++) {
		snprintf(cname[i], sizeof(cname[i]), "dlkc-m%d", i);
		new_comp(test, cname[i], NULL, &tc_ops, 0);
		component_match_add(aggs[0].parent, &match,
				    component_compare_dev_name, cname[i]);
		strcat(want, " +");
		strcat(want, cname[i]);
	}
	KUNIT_EXPECT_EQ(test, agg_add(&aggs[0], match), 0);
	for (i = 99; i >= 0; i--)
		KUNIT_EXPECT_EQ(test, comp_add(&comps[i]), 0);
	KUNIT_EXPECT_STREQ(test, ev_log, want);
	ev_log[0] = '\0';
}

/*
 * Two aggregates wanting the same device: the device is bound once,
 * into one of them, and the other waits.
 */
static struct tcomp *shared_setup(struct kunit *test, struct tcomp **y,
				  struct tcomp **z)
{
	struct component_match *ma = NULL, *mb = NULL;
	struct tcomp *x = new_comp(test, "dlkc-x", NULL, &tc_ops, 0);

	*y = new_comp(test, "dlkc-y", NULL, &tc_ops, 0);
	*z = new_comp(test, "dlkc-z", NULL, &tc_ops, 0);
	component_match_add(aggs[0].parent, &ma, component_compare_dev, x->dev);
	component_match_add(aggs[0].parent, &ma, component_compare_dev, (*y)->dev);
	component_match_add(aggs[1].parent, &mb, component_compare_dev, x->dev);
	component_match_add(aggs[1].parent, &mb, component_compare_dev, (*z)->dev);
	KUNIT_EXPECT_EQ(test, agg_add(&aggs[0], ma), 0);
	KUNIT_EXPECT_EQ(test, agg_add(&aggs[1], mb), 0);
	KUNIT_EXPECT_EQ(test, comp_add(x), 0);
	KUNIT_EXPECT_EQ(test, comp_add(*y), 0);
	KUNIT_EXPECT_EQ(test, comp_add(*z), 0);
	return x;
}

static void two_aggregates_one_device(struct kunit *test)
{
	struct tcomp *y, *z;

	shared_setup(test, &y, &z);
	KUNIT_EXPECT_TRUE(test, aggs[0].bound != aggs[1].bound);
	if (aggs[0].bound)
		EXPECT_LOG(test, "M+ +dlkc-x +dlkc-y");
	else
		EXPECT_LOG(test, "N+ +dlkc-x/1 +dlkc-z/1");
}

/*
 * When the aggregate holding the device is unregistered, the other one,
 * which was only waiting for that device, binds.
 */
static void released_component_rebinds_other(struct kunit *test)
{
	struct tcomp *y, *z;
	struct tagg *holder;

	shared_setup(test, &y, &z);
	holder = aggs[0].bound ? &aggs[0] : &aggs[1];
	ev_log[0] = '\0';
	component_master_del(holder->parent, holder->ops);
	DEFECT_EXPECT(test, aggs[holder == &aggs[0]].bound, "a component freed "
		      "by component_master_del() is not offered to an "
		      "aggregate waiting for it", "the other aggregate is not "
		      "bound: log \"%s\"", ev_log);
}

/*
 * One parent with two aggregates: component_bind_all(parent) called from
 * each aggregate's bind must bind that aggregate's components.
 */
static void two_aggregates_one_parent(struct kunit *test)
{
	struct component_match *ma = NULL, *mb = NULL;
	struct tcomp *a1 = new_comp(test, "dlkc-a1", NULL, &tc_ops, 0);
	struct tcomp *b1 = new_comp(test, "dlkc-b1", NULL, &tc_ops, 0);

	/* Cleaning up after the classic one's mistake must not warn. */
	aggs[0].skip_unbind_all = CLASSIC;
	aggs[1].parent = aggs[0].parent;
	component_match_add(aggs[0].parent, &ma, component_compare_dev, a1->dev);
	component_match_add(aggs[0].parent, &mb, component_compare_dev, b1->dev);
	KUNIT_EXPECT_EQ(test, agg_add(&aggs[0], ma), 0);
	KUNIT_EXPECT_EQ(test, agg_add(&aggs[1], mb), 0);
	KUNIT_EXPECT_EQ(test, comp_add(b1), 0);
	EXPECT_LOG(test, "N+ +dlkc-b1/1");
	KUNIT_EXPECT_EQ(test, comp_add(a1), 0);
	DEFECT_EXPECT_LOG(test, "M+ +dlkc-a1", "component_bind_all() binds the "
			  "newest aggregate of the parent, not the one binding");
	/* The newest first, so that the classic one unbinds what it bound. */
	component_master_del(aggs[1].parent, aggs[1].ops);
	EXPECT_LOG(test, "N- -dlkc-b1 ~dlkc-b1 ~p.dlkc-b1 ~N");
	component_master_del(aggs[0].parent, aggs[0].ops);
	if (!CLASSIC)
		EXPECT_LOG(test, "M- -dlkc-a1 ~dlkc-a1 ~p.dlkc-a1 ~M");
	aggs[1].parent = parents[1];
}

/*
 * Match data is released once, with the parent's devres, whether or not
 * the aggregate was ever registered or bound.
 */
static int releases;

static void count_release(struct device *dev, void *data)
{
	releases++;
}

static void match_release_once(struct kunit *test)
{
	struct component_match *m1 = NULL, *m2 = NULL;
	struct device *p = new_device(test, "dlkc-relparent");
	struct tcomp *x = new_comp(test, "dlkc-x", NULL, &tc_ops, 0);
	struct tagg *a = &aggs[0];
	int i;

	releases = 0;
	for (i = 0; i < 20; i++)
		component_match_add_release(p, &m1, count_release,
					    component_compare_dev_name,
					    "dlkc-x");
	for (i = 0; i < 3; i++)
		component_match_add_release(p, &m2, count_release,
					    component_compare_dev_name,
					    "dlkc-none");
	a->parent = p;
	KUNIT_EXPECT_EQ(test, comp_add(x), 0);
	KUNIT_EXPECT_EQ(test, agg_add(a, m1), 0);
	EXPECT_LOG(test, "M+ +dlkc-x");
	component_master_del(p, a->ops);
	ev_log[0] = '\0';
	KUNIT_EXPECT_EQ(test, releases, 0);
	a->parent = parents[0];
	root_device_unregister(p);
	KUNIT_EXPECT_EQ(test, releases, 23);
}

/*
 * A NULL or error-pointer match list (what component_match_add() leaves
 * when memory runs out) is refused with -EINVAL.
 */
static void bad_match_list(struct kunit *test)
{
	if (CLASSIC && !crash_classic)
		kunit_skip(test, "oopses the classic implementation: boot "
			   "kunit-oops runs it alone");
	/*
	 * Not fixed up on the classic one: it reads the match list's size
	 * through the NULL pointer.  With oops=panic, the kernel's end.
	 */
	if (CLASSIC)
		DEFECT_PANIC("component/bad_match_list",
			     "BUG: kernel NULL pointer dereference",
			     "component_master_add_with_match",
			     "a NULL match list is dereferenced");
	KUNIT_EXPECT_EQ(test, agg_add(&aggs[0], NULL), -EINVAL);
	if (CLASSIC)
		KUNIT_FAIL(test, "the classic implementation took a NULL match "
			   "list without an oops: the mark must go");
	KUNIT_EXPECT_EQ(test, agg_add(&aggs[0], ERR_PTR(-ENOMEM)), -EINVAL);
	EXPECT_LOG(test, "");
}

/* debugfs */

/*
 * A read of a debugfs file as the read(2) system call does it, into a
 * kernel buffer: debugfs proxies reads without read_iter, so kernel_read()
 * refuses them.  The reference taken is the one the proxy takes: the
 * one that removing the file waits for.
 */
static ssize_t debugfs_read(struct file *f, char *buf, size_t size,
			    loff_t *pos)
{
	struct dentry *dentry = f->f_path.dentry;
	struct kvec kv = { .iov_base = buf, .iov_len = size };
	struct iov_iter iter;
	struct kiocb kiocb;
	ssize_t ret;

	ret = debugfs_file_get(dentry);
	if (ret)
		return ret;
	init_sync_kiocb(&kiocb, f);
	kiocb.ki_pos = *pos;
	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, size);
	ret = seq_read_iter(&kiocb, &iter);
	*pos = kiocb.ki_pos;
	debugfs_file_put(dentry);
	return ret;
}

static ssize_t read_debugfs(const char *name, char *buf, size_t size)
{
	char path[96];
	struct file *f;
	loff_t pos = 0;
	ssize_t n, total = 0;

	snprintf(path, sizeof(path), "/sys/kernel/debug/device_component/%s",
		 name);
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	while (total < size - 1 &&
	       (n = debugfs_read(f, buf + total, size - 1 - total, &pos)) > 0)
		total += n;
	buf[total] = '\0';
	filp_close(f, NULL);
	return total;
}

#define RULE "-------------------------------------------------------------\n"

static void debugfs_content(struct kunit *test)
{
	static char buf[2048], want[2048];
	const char *head = "%-40s %20s\n" RULE "%-40s %20s\n\n"
			   "%-40s %20s\n" RULE;
	ssize_t n;

	imx_devices(test);
	KUNIT_ASSERT_EQ(test, comp_add(imx[CRTC0]), 0);
	KUNIT_ASSERT_EQ(test, imx_add(NR_IMX), 0);
	n = read_debugfs("dlkc-parent0", buf, sizeof(buf));
	KUNIT_ASSERT_GT_MSG(test, n, 0, "read: %zd", n);
	snprintf(want, sizeof(want), head, "aggregate_device name", "status",
		 "dlkc-parent0", "not bound", "device name", "status");
	snprintf(want + strlen(want), sizeof(want) - strlen(want),
		 "%-40s %20s\n%-40s %20s\n%-40s %20s\n%-40s %20s\n%-40s %20s\n",
		 "dlkc-crtc0", "not bound", "(unknown)", "not registered",
		 "(unknown)", "not registered", "(unknown)", "not registered",
		 "(unknown)", "not registered");
	KUNIT_EXPECT_STREQ(test, buf, want);

	KUNIT_ASSERT_EQ(test, comp_add(imx[CRTC1]), 0);
	KUNIT_ASSERT_EQ(test, comp_add(imx[LDB]), 0);
	KUNIT_ASSERT_EQ(test, comp_add(imx[HDMI]), 0);
	EXPECT_LOG(test, IMX_BIND);
	n = read_debugfs("dlkc-parent0", buf, sizeof(buf));
	KUNIT_ASSERT_GT_MSG(test, n, 0, "read: %zd", n);
	snprintf(want, sizeof(want), head, "aggregate_device name", "status",
		 "dlkc-parent0", "bound", "device name", "status");
	snprintf(want + strlen(want), sizeof(want) - strlen(want),
		 "%-40s %20s\n%-40s %20s\n%-40s %20s\n%-40s %20s\n%-40s %20s\n",
		 "dlkc-crtc0", "bound", "dlkc-crtc1", "bound", "dlkc-ldb",
		 "bound", "dlkc-ldb", "bound", "dlkc-hdmi", "bound");
	KUNIT_EXPECT_STREQ(test, buf, want);

	component_master_del(aggs[0].parent, aggs[0].ops);
	EXPECT_LOG(test, IMX_UNBIND);
	KUNIT_EXPECT_EQ(test, read_debugfs("dlkc-parent0", buf, sizeof(buf)),
			-ENOENT);
}

/*
 * The file shows each entry's registered component, also when an earlier
 * entry is still missing one.
 */
static void debugfs_shows_every_registered(struct kunit *test)
{
	static char buf[2048];

	imx_devices(test);
	KUNIT_ASSERT_EQ(test, comp_add(imx[HDMI]), 0);
	KUNIT_ASSERT_EQ(test, imx_add(NR_IMX), 0);
	KUNIT_ASSERT_GT(test, read_debugfs("dlkc-parent0", buf, sizeof(buf)), 0);
	DEFECT_EXPECT(test, strstr(buf, "dlkc-hdmi"), "the debugfs file shows "
		      "a registered component as not registered when an "
		      "earlier entry is missing", "no dlkc-hdmi in:\n%s", buf);
}

/*
 * Removing an aggregate while a reader is inside its debugfs file: the
 * reader waits for the framework's lock, held while the aggregate is
 * unbound, and removing the file waits for the reader.  The removal
 * must therefore happen without the lock.  The reader is started from
 * the aggregate's unbind, which runs under the lock, and the removal runs
 * in a thread of its own so that a deadlock is reported, not suffered.
 */
struct race {
	struct task_struct *reader;
	struct file *file;
	struct completion deleted;
	struct completion read_done;
	bool reading;
	ssize_t read;
};

static struct race race;

/* Opened beforehand: the read can only sleep on the framework's lock. */
static int race_reader(void *unused)
{
	static char buf[2048];
	loff_t pos = 0;

	WRITE_ONCE(race.reading, true);
	race.read = debugfs_read(race.file, buf, sizeof(buf), &pos);
	complete(&race.read_done);
	return 0;
}

static void race_unbind(struct device *dev)
{
	int i;

	agg_unbind(&aggs[0]);
	race.reader = kthread_run(race_reader, NULL, "dlkc-reader");
	if (IS_ERR(race.reader))
		return;
	/* Until it sleeps inside the read, on the lock we hold. */
	for (i = 0; i < 2000; i++) {
		if (READ_ONCE(race.reading) &&
		    READ_ONCE(race.reader->__state) == TASK_UNINTERRUPTIBLE)
			break;
		usleep_range(1000, 2000);
	}
}

static const struct component_master_ops race_ops = {
	.bind = agg0_bind,
	.unbind = race_unbind,
};

/*
 * How long component_master_del() may take before the test calls it a
 * deadlock: far more than it needs, even on a debug kernel, but short,
 * since on the classic implementation the whole wait is spent.
 */
#define RACE_WAIT_S (IS_ENABLED(CONFIG_KASAN) ? 10 : 1)

static int race_deleter(void *unused)
{
	component_master_del(aggs[0].parent, &race_ops);
	complete(&race.deleted);
	return 0;
}

static void debugfs_remove_outside_lock(struct kunit *test)
{
	struct component_match *match = NULL;
	struct tcomp *x = new_comp(test, "dlkc-x", NULL, &tc_ops, 0);
	struct task_struct *t;
	bool deleted;

	init_completion(&race.deleted);
	init_completion(&race.read_done);
	race.reading = false;
	component_match_add(aggs[0].parent, &match, component_compare_dev, x->dev);
	aggs[0].ops = &race_ops;
	KUNIT_ASSERT_EQ(test, comp_add(x), 0);
	KUNIT_ASSERT_EQ(test, agg_add(&aggs[0], match), 0);
	EXPECT_LOG(test, "M+ +dlkc-x");
	race.file = filp_open("/sys/kernel/debug/device_component/dlkc-parent0",
			      O_RDONLY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(race.file));
	t = kthread_run(race_deleter, NULL, "dlkc-deleter");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	deleted = wait_for_completion_timeout(&race.deleted, RACE_WAIT_S * HZ);
	DEFECT_EXPECT(test, deleted, "the debugfs file is removed under "
		      "component_mutex, which its reader waits for: deadlock",
		      "component_master_del() has not returned in %d s",
		      RACE_WAIT_S);
	if (!deleted) {
		/*
		 * Both threads are stuck for good, holding the lock: nothing
		 * may touch the framework or this module after this test.
		 */
		wedged = true;
		return;
	}
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&race.read_done,
							    RACE_WAIT_S * HZ));
	filp_close(race.file, NULL);
	EXPECT_LOG(test, "M- -dlkc-x ~dlkc-x ~p.dlkc-x ~M");
	KUNIT_EXPECT_GT(test, race.read, 0);
	aggs[0].ops = &agg_ops[0];
}

static struct kunit_case component_cases[] = {
	KUNIT_CASE(bind_in_every_order),
	KUNIT_CASE(remove_and_readd_each),
	KUNIT_CASE(master_del_and_readd),
	KUNIT_CASE(bind_failure_at_each_position),
	KUNIT_CASE(probe_defer_and_retry),
	KUNIT_CASE(typed_and_untyped),
	KUNIT_CASE(untyped_entry_skips_typed),
	KUNIT_CASE(many_entries),
	KUNIT_CASE(two_aggregates_one_device),
	KUNIT_CASE(released_component_rebinds_other),
	KUNIT_CASE(two_aggregates_one_parent),
	KUNIT_CASE(match_release_once),
	KUNIT_CASE(bad_match_list),
	KUNIT_CASE(debugfs_content),
	KUNIT_CASE(debugfs_shows_every_registered),
	/* Last: on the classic implementation it leaves the lock held. */
	KUNIT_CASE_SLOW(debugfs_remove_outside_lock),
	{}
};

static struct kunit_suite component_suite = {
	.name = "component",
	.init = test_init,
	.exit = test_exit,
	.test_cases = component_cases,
};
kunit_test_suite(component_suite);

MODULE_DESCRIPTION("KUnit tests for the component framework");
MODULE_LICENSE("GPL");
