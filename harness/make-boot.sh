#!/bin/sh
# make-boot.sh: the body of 'make boot'.  With RUN, runs the command in the
# guest, prints its output and exits with its status; without RUN on a
# terminal, gives a shell; otherwise boots and powers off.
. "$(dirname "$0")/lib.sh"

name=$(kernel_name "${KERNEL:-ours}" "${DEBUG:-0}")
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
	tr -d '\r' <"$LOGDIR/guest.log" | grep -v '^@@DLK exit [0-9]*$' || true
fi
[ "$st" = 0 ] || say "exit status $st; the kernel's log: $LOGDIR/console.log"
exit "$st"
