#!/bin/sh
# run.sh: the body of 'make run'.  Boots KERNEL (ours by default) with the
# demonstration, demo/guest.sh, showing its output as it comes; then
# writes what the guest sent (job logs, the trace, the tools' output), the
# schedule chart drawn from them and a summary into $DLK_OUT/run/, and
# ends with a one-screen summary.  Exits 1 when a claim of the
# demonstration does not hold or the guest failed.
#   KERNEL=stock|ours  SMP=N (default 2)  ICOUNT=SHIFT (default off:
#   with more than one vCPU, QEMU's -icount runs them in turn, and a task
#   is charged the time its vCPU waited for the other: budgets overrun by
#   milliseconds)  INITRD=base initramfs
#   DLCHART=the host build of tools/dlchart
. "$(dirname "$0")/lib.sh"

: "${INITRD:?}" "${DLCHART:?}"
KERNEL=${KERNEL:-ours}
name=$(kernel_name "$KERNEL" 0)
out=$DLK_OUT/run
logs=$DLK_OUT/logs/run-$name
rm -rf "$out"
mkdir -p "$out" "$logs"

add=$logs/add
rm -rf "$add"
mkdir -p "$add/usr/local/share/dlk"
cp "$TOP/demo/guest.sh" "$TOP/demo/three-tasks.json" "$add/usr/local/share/dlk/"

# show: the guest's output without the files it sends
show() {
	awk '
		{ sub(/\r$/, "") }
		/^@@DLKFILE / { infile = 1 }
		!infile && !/^@@DLK/ { print; fflush() }
		/^@@DLKEND/ { infile = 0 }'
}

icount=${ICOUNT:-}
say "booting $name (SMP=${SMP:-2}${icount:+ ICOUNT=$icount}) for the demonstration"
rm -f "$logs/guest.log"
KERNEL=$KERNEL DEBUG=0 SMP=${SMP:-2} ICOUNT=$icount MODE=run ADD=$add \
	RUN='sh /usr/local/share/dlk/guest.sh' TIMEOUT=${TIMEOUT:-600} \
	LOGDIR=$logs sh "$TOP/harness/boot.sh" >/dev/null &
boot=$!
# The output as it comes; tail reads what is left once the boot is over.
tail --pid=$boot -s 0.2 -F -n +1 "$logs/guest.log" 2>/dev/null | show
st=0
wait "$boot" || st=$?

# The files: base64 between @@DLKFILE NAME and @@DLKEND.
tr -d '\r' <"$logs/guest.log" | awk -v dir="$out" '
	/^@@DLKFILE / { f = dir "/" $2 ".b64"; next }
	/^@@DLKEND/ { if (f) close(f); f = ""; next }
	f { print > f }'
for b in "$out"/*.b64; do
	[ -f "$b" ] || continue
	base64 -d <"$b" >"${b%.b64}" || die "a file from the guest is damaged: $b"
	rm -f "$b"
done
tr -d '\r' <"$logs/guest.log" | sed -n 's/^@@DLKCLAIM //p' >"$out/claims"

chart=
if [ -s "$out/trace.txt" ] && [ -s "$out/jobs.csv" ]; then
	"$DLCHART" --jobs "$out/jobs.csv" -o "$out/schedule.svg" \
		--title "Three deadline tasks on $name, one overrunning its budget" \
		"$out/trace.txt" 2>"$out/chart.log" && chart=$out/schedule.svg
fi

# The one-screen summary, kept in summary.txt too.
{
	echo "== the demonstration on $name, ${SMP:-2} vCPUs =="
	while read -r verdict text; do
		printf '  %-4s %s\n' "$verdict" "$text"
	done <"$out/claims"
	[ -s "$out/claims" ] || echo "  FAIL the guest reported no results"
	[ "$st" = 0 ] || echo "  FAIL the guest's demonstration exited with status $st"
	echo "files in $out:"
	for f in "$out"/*; do
		[ "$f" = "$out/claims" ] || echo "  ${f##*/}"
	done
	[ -n "$chart" ] || echo "  (no chart: $(cat "$out/chart.log" 2>/dev/null))"
	echo "the kernel's log: $logs/console.log"
} >"$out/summary.txt"
echo
cat "$out/summary.txt"
[ "$st" = 0 ] && [ -s "$out/claims" ] && ! grep -q '^FAIL' "$out/claims"
