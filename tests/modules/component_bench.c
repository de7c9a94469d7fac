// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of the component framework: the time to assemble one
 * aggregate of n components, for n = 16 .. max, registered in a random
 * (seeded) order, with the aggregate registered last and first.  The
 * components are matched with component_compare_dev(), and, as a second
 * figure, with a compare function of the driver's own, which no
 * implementation can index.
 *
 * It runs when loaded and prints one line per figure:
 *   dlk-bench n=N order=last|first compare=helper|own ns=T
 * Guest time is only meaningful under -icount; make bench runs it so,
 * on both kernels, and prints the ratios, and removes it after.
 */
#include <linux/component.h>
#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

static unsigned int max = 4096;
module_param(max, uint, 0444);
MODULE_PARM_DESC(max, "largest number of components (default 4096)");

static unsigned int own_max = 1024;
module_param(own_max, uint, 0444);
MODULE_PARM_DESC(own_max, "largest n with the driver's own compare function");

struct bench {
	struct device parent;
	struct device *devs;
	unsigned int *order;
	unsigned int n;
	bool own;
	unsigned int bound;
};

static struct bench *cur;

static void dev_release(struct device *dev)
{
}

static int comp_bind(struct device *dev, struct device *master, void *data)
{
	cur->bound++;
	return 0;
}

static void comp_unbind(struct device *dev, struct device *master, void *data)
{
	cur->bound--;
}

static const struct component_ops comp_ops = {
	.bind = comp_bind,
	.unbind = comp_unbind,
};

static int agg_bind(struct device *parent)
{
	return component_bind_all(parent, NULL);
}

static void agg_unbind(struct device *parent)
{
	component_unbind_all(parent, NULL);
}

static const struct component_master_ops agg_ops = {
	.bind = agg_bind,
	.unbind = agg_unbind,
};

static int own_compare(struct device *dev, void *data)
{
	return dev == data;
}

static void init_dev(struct device *dev, const char *fmt, unsigned int i)
{
	device_initialize(dev);
	dev->release = dev_release;
	dev_set_name(dev, fmt, i);
}

static int bench_setup(struct bench *b, unsigned int n, bool own, u64 seed)
{
	struct rnd_state rnd;
	unsigned int i;

	memset(b, 0, sizeof(*b));
	b->n = n;
	b->own = own;
	b->devs = vcalloc(n, sizeof(*b->devs));
	b->order = vcalloc(n, sizeof(*b->order));
	if (!b->devs || !b->order)
		return -ENOMEM;
	init_dev(&b->parent, "dlkb-parent%u", n);
	for (i = 0; i < n; i++) {
		init_dev(&b->devs[i], "dlkb-%u", i);
		b->order[i] = i;
	}
	prandom_seed_state(&rnd, seed);
	for (i = n - 1; i > 0; i--) {
		unsigned int j = prandom_u32_state(&rnd) % (i + 1);

		swap(b->order[i], b->order[j]);
	}
	return 0;
}

static void bench_teardown(struct bench *b)
{
	unsigned int i;

	for (i = 0; i < b->n; i++)
		put_device(&b->devs[i]);
	/* Releases the match list, devres of the parent. */
	put_device(&b->parent);
	vfree(b->devs);
	vfree(b->order);
}

static struct component_match *bench_match(struct bench *b)
{
	struct component_match *match = NULL;
	unsigned int i;

	for (i = 0; i < b->n; i++)
		component_match_add(&b->parent, &match,
				    b->own ? own_compare : component_compare_dev,
				    &b->devs[i]);
	return match;
}

/* Registers everything in the order asked; returns the time taken. */
static s64 bench_run(struct bench *b, bool aggregate_first)
{
	struct component_match *match = bench_match(b);
	unsigned int i, added = 0;
	bool master = false, good;
	int ret = 0;
	u64 t0;

	cur = b;
	t0 = ktime_get_ns();
	if (aggregate_first) {
		ret = component_master_add_with_match(&b->parent, &agg_ops, match);
		master = !ret;
	}
	for (i = 0; i < b->n && !ret; i++) {
		ret = component_add(&b->devs[b->order[i]], &comp_ops);
		added += !ret;
	}
	if (!aggregate_first && !ret) {
		ret = component_master_add_with_match(&b->parent, &agg_ops, match);
		master = !ret;
	}
	t0 = ktime_get_ns() - t0;
	good = !ret && b->bound == b->n;
	if (!good)
		pr_err("dlk-bench: n=%u: error %d, %u of %u bound\n", b->n, ret,
		       b->bound, b->n);
	if (master)
		component_master_del(&b->parent, &agg_ops);
	for (i = 0; i < added; i++)
		component_del(&b->devs[b->order[i]], &comp_ops);
	return good ? (s64)t0 : -1;
}

/*
 * Each component bound is a line in the kernel's log, from either
 * implementation: the figures are printed at the end, where the log's
 * ring buffer has not yet wrapped over them.
 */
struct figure {
	unsigned int n;
	bool own, first;
	s64 ns;
};

static int __init bench_init(void)
{
	static const unsigned int sizes[] = { 16, 256, 1024, 4096, 16384 };
	static struct figure figs[2 * 2 * ARRAY_SIZE(sizes)];
	struct bench *b = kmalloc(sizeof(*b), GFP_KERNEL);
	unsigned int s, nfigs = 0, i;
	int own, first;

	if (!b)
		return -ENOMEM;
	for (own = 0; own < 2; own++) {
		for (s = 0; s < ARRAY_SIZE(sizes); s++) {
			if (sizes[s] > (own ? own_max : max))
				break;
			for (first = 0; first < 2; first++) {
				struct figure *f = &figs[nfigs++];

				f->n = sizes[s];
				f->own = own;
				f->first = first;
				f->ns = -1;
				if (!bench_setup(b, sizes[s], own, 42 + s))
					f->ns = bench_run(b, first);
				bench_teardown(b);
			}
		}
	}
	kfree(b);
	for (i = 0; i < nfigs; i++)
		pr_notice("dlk-bench n=%u order=%s compare=%s ns=%lld\n",
			  figs[i].n, figs[i].first ? "first" : "last",
			  figs[i].own ? "own" : "helper", figs[i].ns);
	return 0;
}
module_init(bench_init);

static void __exit bench_exit(void)
{
}
module_exit(bench_exit);

MODULE_DESCRIPTION("Benchmark of the component framework");
MODULE_LICENSE("GPL");
