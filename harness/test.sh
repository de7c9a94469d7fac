#!/bin/sh
# test.sh: the body of 'make test'.  Builds the kernels, boots each with
# the guest suites (KUnit runs during its boot), runs the harness's own
# self-tests, and prints the verdict.  Settings from the environment:
#   KERNELS="stock ours"  DEBUG=0|1  SMP=2  ICOUNT=  SUITE=a,b  TIMEOUT=900
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

results=$DLK_OUT/results
rm -rf "$results"
mkdir -p "$results"
for k in $KERNELS; do
	name=$(kernel_name "$k" "$DEBUG")
	logs=$DLK_OUT/logs/$name
	say "booting $name (SMP=${SMP:-2}${ICOUNT:+ ICOUNT=$ICOUNT})"
	st=0
	KERNEL=$k MODE=test SUITES=${SUITE:-} TIMEOUT=$TIMEOUT LOGDIR=$logs \
		sh "$TOP/harness/boot.sh" || st=$?
	set -- -k "$name" -o "$results/$name.tsv" -c "$logs/console.log" \
		-g "$logs/guest.log" -D
	grep -q '^CONFIG_KUNIT=y' "$VDIR/build/$name/.config" && set -- "$@" -K
	[ $st = 124 ] && set -- "$@" -T "$TIMEOUT"
	"$KTAPSUM" parse "$@"
	say "$name: logs in $logs"
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
