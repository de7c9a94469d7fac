// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregate driver of the module tests: "dlkc-agg" gathers the three
 * "dlkc-part" devices by name.  Its bind allocates with devres on the
 * parent, released when the aggregate is unbound.
 */
#include <linux/component.h>
#include <linux/device.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>

#define NR_PARTS 3

static const char *const part_names[NR_PARTS] = {
	"dlkc-part.0", "dlkc-part.1", "dlkc-part.2",
};

static int dlkc_agg_bind(struct device *dev)
{
	void *mem = devm_kzalloc(dev, 128, GFP_KERNEL);
	int ret;

	if (!mem)
		return -ENOMEM;
	ret = component_bind_all(dev, mem);
	if (ret)
		return ret;
	dev_info(dev, "dlkc: aggregate bound\n");
	return 0;
}

static void dlkc_agg_unbind(struct device *dev)
{
	component_unbind_all(dev, NULL);
	dev_info(dev, "dlkc: aggregate unbound\n");
}

static const struct component_master_ops dlkc_agg_ops = {
	.bind = dlkc_agg_bind,
	.unbind = dlkc_agg_unbind,
};

static int dlkc_agg_probe(struct platform_device *pdev)
{
	struct component_match *match = NULL;
	int i;

	for (i = 0; i < NR_PARTS; i++)
		component_match_add(&pdev->dev, &match,
				    component_compare_dev_name,
				    (void *)part_names[i]);
	return component_master_add_with_match(&pdev->dev, &dlkc_agg_ops,
					       match);
}

static void dlkc_agg_remove(struct platform_device *pdev)
{
	component_master_del(&pdev->dev, &dlkc_agg_ops);
}

static struct platform_driver dlkc_agg_driver = {
	.probe = dlkc_agg_probe,
	.remove = dlkc_agg_remove,
	.driver = {
		.name = "dlkc-agg",
	},
};
module_platform_driver(dlkc_agg_driver);

MODULE_DESCRIPTION("Aggregate driver for the component framework's module tests");
MODULE_LICENSE("GPL");
