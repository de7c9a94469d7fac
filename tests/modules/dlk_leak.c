// SPDX-License-Identifier: GPL-2.0
/*
 * The control of the guest's kmemleak checks (tests/guest/compleak.c):
 * loading this module leaks one object on purpose, so that a check that
 * finds nothing after the stress can be told from one that cannot find
 * anything.  The object is filled with a pattern the check looks for in
 * kmemleak's report (its hex dump).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#define DLK_LEAK_SIZE 96

/* Where the object escapes to, so that its contents are really written. */
static char *dlk_leak_last;

static int __init dlk_leak_init(void)
{
	char *p = kzalloc(DLK_LEAK_SIZE, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	strscpy(p, "dlk-leak-canary", DLK_LEAK_SIZE);
	WRITE_ONCE(dlk_leak_last, p);
	/* dropped on purpose: nothing refers to it any more */
	WRITE_ONCE(dlk_leak_last, NULL);
	return 0;
}

static void __exit dlk_leak_exit(void)
{
}

module_init(dlk_leak_init);
module_exit(dlk_leak_exit);
MODULE_DESCRIPTION("One deliberate leak, the control of the kmemleak checks");
MODULE_LICENSE("GPL");
