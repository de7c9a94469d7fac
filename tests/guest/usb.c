// SPDX-License-Identifier: GPL-2.0
/*
 * usb: a real user of the component framework.  The USB core registers
 * every port of every hub as a component (drivers/usb/core/port.c) and
 * unregisters it when the hub goes; a port whose component_add() fails
 * is not created.  Booted with an xHCI controller and a hub (boot.sh
 * DEVICES=usb-hub), the hub's ports must all be there, go when the hub is
 * unplugged through the QEMU monitor, and come back when it is plugged
 * again, cycle after cycle.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#define DEVS "/sys/bus/usb/devices"
#define HUB DEVS "/1-1"
#define HUB_PORTS 8	/* QEMU's usb-hub */
#define CYCLES 3

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Ports of the device whose interface directory is @intf: NAME-portN. */
static int count_ports(const char *intf)
{
	struct dirent *e;
	int n = 0;
	DIR *d = opendir(intf);

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strstr(e->d_name, "-port"))
			n++;
	closedir(d);
	return n;
}

static void need_controller(void)
{
	if (!exists(DEVS "/usb1"))
		SKIP("no USB controller (boot with DEVICES=usb-hub)");
}

/* Waits up to 30 s for the hub to be there with all its ports, or gone. */
static int wait_hub(int present)
{
	int i, ports;

	for (i = 0; i < 300; i++) {
		ports = count_ports(HUB "/1-1:1.0");
		if (present ? ports == HUB_PORTS : !exists(HUB))
			return 1;
		usleep(100000);
	}
	return 0;
}

/* Asks the host to give @cmd to the QEMU monitor (see boot.sh). */
static void monitor(const char *cmd)
{
	printf("@@DLKHMP %s\n", cmd);
	fflush(stdout);
}

static void root_hub_ports(void)
{
	need_controller();
	CHECK(count_ports(DEVS "/usb1/1-0:1.0") > 0, "usb1 has no ports");
	CHECK(count_ports(DEVS "/usb2/2-0:1.0") > 0, "usb2 has no ports");
}

static void hub_ports_at_boot(void)
{
	need_controller();
	REQUIRE(wait_hub(1), "hub 1-1: %d ports, want %d",
		count_ports(HUB "/1-1:1.0"), HUB_PORTS);
}

static void unplug_and_plug(void)
{
	int i;

	need_controller();
	REQUIRE(wait_hub(1), "hub 1-1 missing before the first unplug");
	for (i = 0; i < CYCLES; i++) {
		monitor("device_del hub1");
		REQUIRE(wait_hub(0), "cycle %d: hub still there 30 s after "
			"device_del", i);
		monitor("device_add usb-hub,bus=xhci.0,port=1,id=hub1");
		REQUIRE(wait_hub(1), "cycle %d: hub back with %d ports, want %d",
			i, count_ports(HUB "/1-1:1.0"), HUB_PORTS);
	}
}

static const struct tap_test tests[] = {
	TAP_TEST(root_hub_ports),
	TAP_TEST(hub_ports_at_boot),
	TAP_TEST(unplug_and_plug),
	{ NULL, NULL }
};

int main(void)
{
	return tap_run(tests);
}
