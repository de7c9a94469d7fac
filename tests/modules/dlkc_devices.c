// SPDX-License-Identifier: GPL-2.0
/*
 * The devices of the module tests: an aggregate's parent, "dlkc-agg", and
 * its three parts, "dlkc-part.0" to ".2", as platform devices.  Their
 * drivers are dlkc_agg and dlkc_part; the three modules may be loaded and
 * removed in any order.
 */
#include <linux/err.h>
#include <linux/module.h>
#include <linux/platform_device.h>

#define NR_PARTS 3

static struct platform_device *agg, *parts[NR_PARTS];

static void dlkc_devices_unregister(void)
{
	int i;

	for (i = NR_PARTS - 1; i >= 0; i--)
		if (!IS_ERR_OR_NULL(parts[i]))
			platform_device_unregister(parts[i]);
	if (!IS_ERR_OR_NULL(agg))
		platform_device_unregister(agg);
}

static int __init dlkc_devices_init(void)
{
	int i;

	agg = platform_device_register_simple("dlkc-agg", -1, NULL, 0);
	if (IS_ERR(agg))
		return PTR_ERR(agg);
	for (i = 0; i < NR_PARTS; i++) {
		parts[i] = platform_device_register_simple("dlkc-part", i, NULL, 0);
		if (IS_ERR(parts[i])) {
			int ret = PTR_ERR(parts[i]);

			dlkc_devices_unregister();
			return ret;
		}
	}
	return 0;
}
module_init(dlkc_devices_init);

static void __exit dlkc_devices_exit(void)
{
	dlkc_devices_unregister();
}
module_exit(dlkc_devices_exit);

MODULE_DESCRIPTION("Devices for the component framework's module tests");
MODULE_LICENSE("GPL");
