#!/bin/sh
# test.sh: the body of 'make test'.  Builds the kernels, boots each with
# the guest suites (KUnit runs during its boot), runs the harness's own
# self-tests, and prints the verdict.  Settings from the environment:
#   KERNELS="stock ours"  DEBUG=0|1  SUITE=a,b  TIMEOUT=900
#   SMP=N ICOUNT=SHIFT: one boot of that shape instead of tests/guest/boots
#   INITRD=base initramfs  KTAPSUM=parser binary  SELFTEST_ADD=dir
. "$(dirname "$0")/lib.sh"

KERNELS=${KERNELS:-stock ours}
DEBUG=${DEBUG:-0}
TIMEOUT=${TIMEOUT:-900}
: "${INITRD:?}" "${KTAPSUM:?}"
export DEBUG INITRD

sh "$TOP/harness/tree.sh"
for k in $KERNELS; do
	sh "$TOP/harness/build-kernel.sh" "$k" "$DEBUG"
done

# boots_of: the boot configurations, "NAME SMP ICOUNT SUITES" per line,
# from tests/guest/boots; SMP= or ICOUNT= on the command line make it one
# boot of that shape with every suite.
boots_of() {
	if [ -n "${SMP:-}" ] || [ -n "${ICOUNT:-}" ]; then
		all=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' \
			"$TOP/tests/guest/suites" | awk '{print $1}' | paste -sd, -)
		echo "custom ${SMP:-2} ${ICOUNT:--} $all"
	else
		sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/tests/guest/boots"
	fi
}

# only_wanted LIST: the suites of LIST that SUITE= asks for (all if unset)
only_wanted() {
	[ -z "${SUITE:-}" ] && { echo "$1"; return; }
	echo "$1" | tr , '\n' | grep -Fx "$(echo "$SUITE" | tr , '\n')" |
		paste -sd, - || true
}

# boot_and_parse KERNEL BOOT SMP ICOUNT SUITES FIRST
boot_and_parse() {
	name=$(kernel_name "$1" "$DEBUG")
	logs=$DLK_OUT/logs/$name/$2
	icount=$4
	is_first=$6
	[ "$icount" = - ] && icount=
	say "booting $name: $2 (SMP=$3${icount:+ ICOUNT=$icount}): $5"
	st=0
	KERNEL=$1 MODE=test SMP=$3 ICOUNT=$icount SUITES=$5 TIMEOUT=$TIMEOUT \
		LOGDIR=$logs sh "$TOP/harness/boot.sh" || st=$?
	set -- -k "$name" -o "$results/$name.tsv" -p "$2" \
		-c "$logs/console.log" -g "$logs/guest.log" -D
	# KUnit runs at every boot; its results are counted from the first.
	if [ "$is_first" = 1 ]; then
		grep -q '^CONFIG_KUNIT=y' "$VDIR/build/$name/.config" && set -- "$@" -K
	else
		set -- "$@" -N
	fi
	[ $st = 124 ] && set -- "$@" -T "$TIMEOUT"
	"$KTAPSUM" parse "$@"
}

results=$DLK_OUT/results
rm -rf "$results"
mkdir -p "$results"
for k in $KERNELS; do
	first=1
	boots_of | while read -r boot smp icount list; do
		list=$(only_wanted "$list")
		[ -n "$list" ] || continue
		boot_and_parse "$k" "$boot" "$smp" "$icount" "$list" $first
		first=0
	done
	say "$(kernel_name "$k" "$DEBUG"): logs in $DLK_OUT/logs/$(kernel_name "$k" "$DEBUG")"
done

if [ -z "${SUITE:-}" ] || [ "${SUITE:-}" = harness ]; then
	say "harness self-tests"
	KERNEL=$(echo "$KERNELS" | awk '{print $NF}') \
		sh "$TOP/harness/selftest.sh" >"$DLK_OUT/logs/selftest.tap" || true
	"$KTAPSUM" parse -k host -o "$results/host.tsv" \
		-t "$DLK_OUT/logs/selftest.tap" -s harness-selftest
fi

echo
set --
for k in $KERNELS; do
	set -- "$@" "$results/$(kernel_name "$k" "$DEBUG").tsv"
done
[ -f "$results/host.tsv" ] && set -- "$@" "$results/host.tsv"
"$KTAPSUM" summary "$@"
