#!/bin/sh
# boot.sh: boot a kernel under QEMU (TCG) with the test initramfs.
# Settings come from the environment (the Makefile passes them on):
#   KERNEL=stock|ours|fixed  DEBUG=0|1  SMP=N  ICOUNT=SHIFT (empty: off)
#   MODE=test|run|shell  RUN='command' (run mode)  ADD=DIR (copied into /)
#   SUITES=a,b (test mode: only these)  TIMEOUT=seconds  INITRD=base.cpio
#   DEVICES=usb-hub: an xHCI controller with a USB hub (id hub1), and the
#   QEMU monitor driven by the guest: a line "@@DLKHMP command" from the
#   guest on ttyS1 is given to the monitor (for hot-unplug and plug).
#   KARGS='...': more kernel command line.  QEMU_EXTRA='...': more QEMU
#   options.
#   LOGDIR=dir: receives console.log (ttyS0, the kernel's), guest.log
#   (ttyS1, the programs' output), qemu.log and status.
# Exit status: 124 when the guest did not finish in time (it is killed, the
# logs stay); in run mode the command's own status; else QEMU's.
. "$(dirname "$0")/lib.sh"

KERNEL=${KERNEL:-ours}
DEBUG=${DEBUG:-0}
SMP=${SMP:-2}
ICOUNT=${ICOUNT:-}
MODE=${MODE:-test}
TIMEOUT=${TIMEOUT:-600}
INITRD=${INITRD:?INITRD is the base initramfs}
LOGDIR=${LOGDIR:?LOGDIR is where the logs go}

# The last run's logs go first: nothing may parse them as this run's.
mkdir -p "$LOGDIR"
rm -f "$LOGDIR"/console.log "$LOGDIR"/guest.log "$LOGDIR"/status
image=$(kernel_image "$KERNEL" "$DEBUG")
[ -f "$image" ] || die "no kernel at $image (make kernels)"

# The per-boot archive: the RUN command and the ADD directory.
over=$LOGDIR/overlay
rm -rf "$over"
mkdir -p "$over/etc/dlk"
if [ -n "${ADD:-}" ]; then
	[ -d "$ADD" ] || die "ADD=$ADD is not a directory"
	cp -a "$ADD"/. "$over"/
fi
printf '%s\n' "${RUN:-true}" >"$over/etc/dlk/run.sh"
# The test modules built against this kernel (build-kernel.sh).
mods=$VDIR/modules/$(kernel_name "$KERNEL" "$DEBUG")/root
[ -d "$mods" ] && cp -a "$mods"/. "$over"/
cat "$INITRD" >"$LOGDIR/initrd.cpio"
cpio_pack "$over" >>"$LOGDIR/initrd.cpio"

# Tell the guest which implementations this kernel runs: the tree's own
# (classic) when its configuration chose it or has no choice at all (the
# pristine tree), else ours; the tree's own with the fixes of
# patches/classic-fixes (fixed) on that kernel, where the suites' known
# defects of the classic implementations are ordinary checks
# (tests/lib/tap.h).
impl() {
	if [ "$KERNEL" = fixed ]; then
		echo fixed
		return
	fi
	config=$(dirname "$image")/../../../.config
	if grep -qs "^CONFIG_$1_CLASSIC=y" "$config" ||
		! grep -qs "CONFIG_$1_CLASSIC[= ]" "$config"; then
		echo classic
	else
		echo ours
	fi
}

mem=512
[ "$DEBUG" = 1 ] && mem=2048
append="console=ttyS0 panic=-1 oops=panic dlk.mode=$MODE dlk.cpus=$SMP"
append="$append dlk.dl=$(impl SCHED_DL) dlk.component=$(impl COMPONENT)"
append="$append dlk.hostcpus=$NPROC"
append="$append dlk.debug=$DEBUG"
# The TSC of a TCG guest is the host's clock, the same on every vCPU;
# the clocksource watchdog, comparing it with the HPET across a vCPU the
# host did not run, took it for unstable in every long two-vCPU boot and
# moved the clock to the HPET, whose every read is an emulated MMIO
# access: gedf's tasks then lost 15% to 25% of their work to stalls.
append="$append tsc=reliable"
# A guest that does not finish in time gets an NMI from the monitor
# (where_hung below): it then panics and prints the state and kernel
# stack of every task in D state (a log buffer that holds them all: the
# panic prints faster than the console).  Not every task (0x1): that
# dump ends with the scheduler's debug output, which takes runqueue
# locks, and a panic inside the scheduler holds one: it hung instead of
# ending the boot.
append="$append unknown_nmi_panic=1 panic_print=0x80 log_buf_len=8M"
[ -n "$ICOUNT" ] && append="$append dlk.icount=$ICOUNT"
# Turning a trace event on or off patches kernel text, and a guest of
# several vCPUs under multi-threaded TCG (no -icount) has twice executed
# the patching breakpoint after the patch was done ("Oops: int3", the
# tree's text_poke_bp() on both kernels, in __schedule() and in
# ttwu_do_activate()).  Such a guest, when it runs the suites, turns the
# events the tests read on at boot, before its other CPUs start; the
# tests leave them on (tests/lib/trace.c) and the guest's init stops
# their recording.  Not the benchmarks' guests: the probes run at every
# switch even when nothing records, some 1500 kernel instructions a job.
if [ "$MODE" = test ] && [ "$SMP" -gt 1 ] && [ -z "$ICOUNT" ]; then
	ev=sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new
	ev=$ev,sched:sched_migrate_task,timer:hrtimer_start
	append="$append trace_event=$ev,timer:hrtimer_expire_entry"
fi
[ -n "${SUITES:-}" ] && append="$append dlk.suites=$SUITES"
[ -n "${KARGS:-}" ] && append="$append $KARGS"
# QEMU's PCI interrupt routing (_PRT) is an AML loop that a debug
# kernel's ACPI interpreter takes 20 to 30 s for under TCG, and ACPICA
# aborts a loop after 30 s: the xHCI controller was then left without an
# interrupt and its hub never came.  The BIOS's $PIR table routes it too.
if [ "${DEVICES:-}" = usb-hub ] && [ "$DEBUG" = 1 ]; then
	append="$append acpi=noirq"
fi
set -- -nodefaults -no-reboot -display none -accel tcg -cpu ${QCPU:-max} \
	-m "$mem" -smp "$SMP" -kernel "$image" -initrd "$LOGDIR/initrd.cpio" \
	-append "$append"
[ -n "$ICOUNT" ] && set -- "$@" -icount "shift=$ICOUNT,sleep=off"
# More QEMU options, split at blanks (harness/prof-switch.sh: a TCG plugin).
# shellcheck disable=SC2086
[ -n "${QEMU_EXTRA:-}" ] && set -- "$@" $QEMU_EXTRA

if [ "$MODE" = shell ]; then
	exec qemu-system-x86_64 "$@" -serial mon:stdio -serial "file:$LOGDIR/guest.log"
fi
# The QEMU monitor on a pair of FIFOs: the guest may drive it (usb-hub),
# and a guest that does not finish in time has its vCPUs' registers
# taken before it is killed (hang.log: where each vCPU was).
rm -f "$LOGDIR/mon.in" "$LOGDIR/mon.out" "$LOGDIR/monitor.log" "$LOGDIR/hang.log"
mkfifo "$LOGDIR/mon.in" "$LOGDIR/mon.out"
set -- "$@" -chardev "pipe,id=mon,path=$LOGDIR/mon" \
	-mon chardev=mon,mode=readline
watcher=
case ${DEVICES:-} in
usb-hub)
	set -- "$@" -device qemu-xhci,id=xhci \
		-device usb-hub,bus=xhci.0,port=1,id=hub1
	: >"$LOGDIR/guest.log"
	# The guest asks: its requests go to the monitor.  tail ends when
	# this script does.
	(
		tail --pid=$$ -n +1 -f "$LOGDIR/guest.log" |
			sed -u -n -e 's/\x0d$//' -e 's/^@@DLKHMP //p' >"$LOGDIR/mon.in"
	) &
	watcher=$!
	;;
"") ;;
*) die "DEVICES=$DEVICES: unknown (usb-hub)" ;;
esac
# The monitor's answers go to monitor.log.
cat "$LOGDIR/mon.out" >"$LOGDIR/monitor.log" &
reader=$!
# Our own requests go through fd 9, open read-write: opening the FIFO
# for writing alone would block for ever once QEMU, its reader, is gone.
exec 9<>"$LOGDIR/mon.in"

# where_hung: each vCPU's instruction pointer, three times a second
# apart, named from the kernel's System.map (kernel addresses only);
# then an NMI, and the guest's own account of its tasks (see above) in
# console.log, waited for until the console is quiet for 5 s (up to 60).
where_hung() {
	for i in 1 2 3; do
		echo 'info registers -a' >&9
		sleep 1
	done
	echo nmi >&9
	size=-1
	for i in $(seq 12); do
		sleep 5
		now=$(wc -c <"$LOGDIR/console.log")
		[ "$now" = "$size" ] && break
		size=$now
	done
	map=$(dirname "$image")/../../../System.map
	sed -n 's/^RIP=\([0-9a-f]*\) .*/\1/p' "$LOGDIR/monitor.log" |
		awk -v map="$map" '
		BEGIN { while ((getline l < map) > 0) { split(l, f, " ")
			n++; addr[n] = f[1]; name[n] = f[3] } }
		{ s = "user or unknown"
		  if (substr($1, 1, 4) == "ffff")
			for (i = n; i > 0; i--)
				if (addr[i] <= $1) { s = name[i]; break }
		  printf "sample %d, vCPU %d: RIP %s %s\n",
			int((NR - 1) / cpus) + 1, (NR - 1) % cpus, $1, s }' \
		cpus="$SMP" >"$LOGDIR/hang.log"
}

rc=0
rm -f "$LOGDIR/timed-out" "$LOGDIR/qemu-done"
qemu-system-x86_64 "$@" \
	-serial "file:$LOGDIR/console.log" -serial "file:$LOGDIR/guest.log" \
	</dev/null >"$LOGDIR/qemu.log" 2>&1 &
qpid=$!
# The clock: polls, so that nothing is left sleeping after QEMU ends.
(
	t=0
	while kill -0 $qpid 2>/dev/null; do
		if [ $t -ge "$TIMEOUT" ]; then
			# First: the NMI's panic ends QEMU.
			: >"$LOGDIR/timed-out"
			where_hung
			# Not a pid the main script has reaped, maybe reused.
			[ -f "$LOGDIR/qemu-done" ] && exit 0
			kill $qpid 2>/dev/null
			sleep 5
			[ -f "$LOGDIR/qemu-done" ] || kill -9 $qpid 2>/dev/null
			exit 0
		fi
		sleep 1
		t=$((t + 1))
	done
) &
clock=$!
wait $qpid || rc=$?
: >"$LOGDIR/qemu-done"
# A guest that timed out has ended in its panic: the clock is writing
# hang.log.
if [ -f "$LOGDIR/timed-out" ]; then
	wait $clock || true
else
	kill $clock 2>/dev/null || true
fi
[ -z "$watcher" ] || kill "$watcher" 2>/dev/null || true
kill "$reader" 2>/dev/null || true
if [ -f "$LOGDIR/timed-out" ]; then
	echo "timeout $TIMEOUT" >"$LOGDIR/status"
	echo "error: the guest did not finish within ${TIMEOUT}s and was killed;" \
	     "logs in $LOGDIR" >&2
	sed 's/^/  /' "$LOGDIR/hang.log" >&2
	exit 124
fi
echo "qemu $rc" >"$LOGDIR/status"
[ $rc = 0 ] || { cat "$LOGDIR/qemu.log" >&2; exit "$rc"; }
if [ "$MODE" = run ]; then
	st=$(tr -d '\r' <"$LOGDIR/guest.log" | sed -n 's/^@@DLK exit \([0-9]*\)$/\1/p')
	[ -n "$st" ] || { echo "error: the command's exit status is missing" >&2; exit 1; }
	exit "$st"
fi
exit 0
