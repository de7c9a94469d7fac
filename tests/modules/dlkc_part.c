// SPDX-License-Identifier: GPL-2.0
/*
 * The driver of the module tests' parts: each "dlkc-part" device is
 * registered as a component from probe and unregistered from remove.
 * Binding allocates with devres on the part's device, so that a missed
 * release shows up as a leak on the debug kernels.
 */
#include <linux/component.h>
#include <linux/device.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>

static int dlkc_part_bind(struct device *dev, struct device *master, void *data)
{
	void *mem = devm_kzalloc(dev, 64, GFP_KERNEL);

	if (!mem)
		return -ENOMEM;
	dev_info(dev, "dlkc: bound into %s\n", dev_name(master));
	return 0;
}

static void dlkc_part_unbind(struct device *dev, struct device *master,
			     void *data)
{
	dev_info(dev, "dlkc: unbound from %s\n", dev_name(master));
}

static const struct component_ops dlkc_part_ops = {
	.bind = dlkc_part_bind,
	.unbind = dlkc_part_unbind,
};

static int dlkc_part_probe(struct platform_device *pdev)
{
	return component_add(&pdev->dev, &dlkc_part_ops);
}

static void dlkc_part_remove(struct platform_device *pdev)
{
	component_del(&pdev->dev, &dlkc_part_ops);
}

static struct platform_driver dlkc_part_driver = {
	.probe = dlkc_part_probe,
	.remove = dlkc_part_remove,
	.driver = {
		.name = "dlkc-part",
	},
};
module_platform_driver(dlkc_part_driver);

MODULE_DESCRIPTION("Component driver for the component framework's module tests");
MODULE_LICENSE("GPL");
