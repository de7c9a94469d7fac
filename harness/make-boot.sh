#!/bin/sh
# make-boot.sh: the body of 'make boot'.  With RUN, runs the command in the
# guest, prints its output and exits with its status; without RUN on a
# terminal, gives a shell; otherwise boots and powers off.  It can be run
# directly (KERNEL=ours RUN='cmd' sh harness/make-boot.sh) where the exact
# exit status matters: make turns every failure into 2.
. "$(dirname "$0")/lib.sh"

KERNEL=${KERNEL:-ours}
name=$(kernel_name "$KERNEL" "${DEBUG:-0}")
if [ "${DLK_PREPARED:-0}" != 1 ]; then
	# Run directly: build what is missing first.
	make -s --no-print-directory -C "$TOP" kernels initramfs KERNELS="$KERNEL" >&2
	INITRD=$DLK_OUT/base.cpio
fi
export KERNEL INITRD
export LOGDIR=$DLK_OUT/logs/boot-$name
if [ -z "${RUN:-}" ] && [ -t 0 ] && [ -t 1 ]; then
	say "booting $name with a shell on the console (exit it to power off)"
	MODE=shell exec sh "$TOP/harness/boot.sh"
fi
if [ -z "${RUN:-}" ]; then
	say "no RUN= and not on a terminal: booting $name and powering off"
	RUN=true
fi
export MODE=run RUN
st=0
TIMEOUT=${TIMEOUT:-900} sh "$TOP/harness/boot.sh" || st=$?
if [ -f "$LOGDIR/guest.log" ]; then
	# The marker's line and the empty line init puts before it.
	tr -d '\r' <"$LOGDIR/guest.log" | sed -e '/^@@DLK exit [0-9]*$/d' |
		sed -e '$!b' -e '/^$/d' || true
fi
[ "$st" = 0 ] || say "exit status $st; the kernel's log: $LOGDIR/console.log"
exit "$st"
