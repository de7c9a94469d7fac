// SPDX-License-Identifier: GPL-2.0
/*
 * compmod: the component framework driven the way drivers drive it.
 *
 * Three modules built against the running kernel (tests/modules): the
 * platform devices (dlkc_devices), the driver of the three parts, which
 * registers each as a component (dlkc_part), and the aggregate's driver
 * (dlkc_agg).  Loaded in every order, the aggregate must be bound once
 * all three are in and not before; removed in every order, it must be
 * unbound by the first removal; unbinding a part or the aggregate's
 * driver through sysfs and binding it again must do the same.  The state
 * is read from the framework's debugfs file, device_component/dlkc-agg.
 * On the debug kernels the harness checks the console for lockdep,
 * KASAN and kmemleak reports after the suite.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "file.h"
#include "tap.h"

#define NR_MODS 3
#define STATE "/sys/kernel/debug/device_component/dlkc-agg"

static const char *const mods[NR_MODS] = {
	"dlkc_devices", "dlkc_part", "dlkc_agg",
};

/* Every order of three. */
static const int orders[6][NR_MODS] = {
	{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
	{ 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
};

static int load(const char *name)
{
	char path[128];
	int fd, ret;

	snprintf(path, sizeof(path), "/lib/modules/dlk/%s.ko", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	return ret;
}

static int unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK);
}

/* 1: the aggregate is bound; 0: registered, not bound; -1: no aggregate. */
static int agg_state(void)
{
	char line[256];
	int state = -1;
	FILE *f = fopen(STATE, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "dlkc-agg ", 9))
			continue;
		state = strstr(line, " not bound") ? 0 : !!strstr(line, " bound");
		break;
	}
	fclose(f);
	return state;
}

/* How many parts the file lists as bound. */
static int parts_bound(void)
{
	char line[256];
	int n = 0;
	FILE *f = fopen(STATE, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "dlkc-part.", 10) && !strstr(line, "not bound") &&
		    strstr(line, " bound"))
			n++;
	fclose(f);
	return n;
}

static void unload_all(void)
{
	int i;

	for (i = NR_MODS - 1; i >= 0; i--)
		unload(mods[i]);
}

static void load_in_order(const int *order, int lo)
{
	int i;

	for (i = 0; i < NR_MODS; i++) {
		REQUIRE(load(mods[order[i]]) == 0, "load order %d: insmod %s: %s",
			lo, mods[order[i]], strerror(errno));
		if (i < NR_MODS - 1)
			CHECK(agg_state() != 1, "load order %d: bound after only %d modules",
			      lo, i + 1);
	}
	CHECK(agg_state() == 1, "load order %d: not bound with all modules in", lo);
	CHECK(parts_bound() == 3, "load order %d: %d parts bound, want 3", lo,
	      parts_bound());
}

/* Loads in order @lo, then removes in every order. */
static void load_order(int lo)
{
	int uo, i;

	unload_all();
	for (uo = 0; uo < 6; uo++) {
		load_in_order(orders[lo], lo);
		for (i = 0; i < NR_MODS; i++) {
			REQUIRE(unload(mods[orders[uo][i]]) == 0,
				"unload order %d: rmmod %s: %s", uo,
				mods[orders[uo][i]], strerror(errno));
			CHECK(agg_state() != 1, "unload order %d: still bound "
			      "after rmmod %s", uo, mods[orders[uo][i]]);
		}
		CHECK(agg_state() == -1, "unload order %d: aggregate left", uo);
	}
}

static void load_order_0(void) { load_order(0); }
static void load_order_1(void) { load_order(1); }
static void load_order_2(void) { load_order(2); }
static void load_order_3(void) { load_order(3); }
static void load_order_4(void) { load_order(4); }
static void load_order_5(void) { load_order(5); }

#define DRV "/sys/bus/platform/drivers/"

/* Unbinding a part's driver takes the aggregate down; binding rebinds it. */
static void sysfs_unbind_part(void)
{
	int i;

	unload_all();
	load_in_order(orders[0], 0);
	for (i = 0; i < 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "dlkc-part.%d", i);
		REQUIRE(file_put(DRV "dlkc-part/unbind", "%s", name) == 0,
			"unbind %s: %s", name, strerror(errno));
		CHECK(agg_state() == 0, "after unbinding %s: state %d, want 0",
		      name, agg_state());
		CHECK(parts_bound() == 0, "after unbinding %s: %d parts bound",
		      name, parts_bound());
		REQUIRE(file_put(DRV "dlkc-part/bind", "%s", name) == 0,
			"bind %s: %s", name, strerror(errno));
		CHECK(agg_state() == 1, "after binding %s again: state %d, want 1",
		      name, agg_state());
	}
	unload_all();
}

/* Unbinding the aggregate's driver removes it; binding brings it back. */
static void sysfs_unbind_aggregate(void)
{
	unload_all();
	load_in_order(orders[0], 0);
	REQUIRE(file_put(DRV "dlkc-agg/unbind", "dlkc-agg") == 0,
		"unbind dlkc-agg: %s", strerror(errno));
	CHECK(agg_state() == -1, "after unbinding: state %d, want none",
	      agg_state());
	REQUIRE(file_put(DRV "dlkc-agg/bind", "dlkc-agg") == 0,
		"bind dlkc-agg: %s", strerror(errno));
	CHECK(agg_state() == 1, "after binding again: state %d, want 1",
	      agg_state());
	CHECK(parts_bound() == 3, "%d parts bound, want 3", parts_bound());
	unload_all();
}

static const struct tap_test tests[] = {
	TAP_TEST(load_order_0),
	TAP_TEST(load_order_1),
	TAP_TEST(load_order_2),
	TAP_TEST(load_order_3),
	TAP_TEST(load_order_4),
	TAP_TEST(load_order_5),
	TAP_TEST(sysfs_unbind_part),
	TAP_TEST(sysfs_unbind_aggregate),
	{ NULL, NULL }
};

int main(void)
{
	return tap_run(tests);
}
