#!/bin/sh
# gedf-compare.sh: global EDF's timing on several vCPUs, stock against
# ours in one run.  The gedf suite's GFB-feasible set (2M + 1 periodic
# tasks on M vCPUs, tests/guest/gedf.c) is run GEDF_RUNS counted times
# in each of GEDF_BOOTS boots per kernel, the kernels' boots in turn so
# that the host's load falls on both alike.  A run is counted when its
# tasks lost at most 10% of their work to host stalls (the suite's own
# rule).  For each kernel the median of the counted runs' miss ratio and
# worst tardiness; ours passes when its median miss ratio is within one
# percentage point of stock's and its median worst tardiness within 20%
# plus 1 ms of stock's (issue 5's acceptance).  Without -icount: the
# figures follow the host, hence medians over many runs.  One TAP line,
# the figures in $DLK_OUT/bench/gedf.tsv.
#   GEDF_BOOTS=8  GEDF_RUNS=5  SMP=2  INITRD=base initramfs
. "$(dirname "$0")/lib.sh"

# 'gedf-compare.sh compare-test BOOT' is make test's host step: the gedf
# suite's unpartitionable set on each kernel in boot BOOT of the same
# run, its "figures" line compared, TAP on stdout, one test.  The time a
# CPU idles beside a task queued on a busy CPU may be at most 10 points
# above stock's, and what the tasks had together at most 10 points below
# stock's: the host's noise between two boots is within that, a class
# that never moves tasks is not (37% idle on 2 CPUs, 69% on 4).
if [ "${1:-}" = compare-test ]; then
	b=${2:?compare-test BOOT}
	t=gedf_${b}_beside_stock
	fig() {
		{ tr -d '\r' <"$DLK_OUT/logs/$1/$b/guest.log"; } 2>/dev/null |
			sed -n 's/^# figures unpartitionable_set //p' | tail -1
	}
	s=$(fig stock)
	o=$(fig ours)
	echo "TAP version 13"
	echo "1..1"
	echo "# stock: ${s:-no figures}"
	echo "# ours: ${o:-no figures}"
	if [ -z "$s" ] || [ -z "$o" ]; then
		echo "not ok 1 $t # no figures from both kernels' $b boots"
		exit 0
	fi
	# val FIGURES KEY
	val() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
	if awk -v si="$(val "$s" idle_queued_pct)" \
	    -v oi="$(val "$o" idle_queued_pct)" \
	    -v st="$(val "$s" together_pct)" -v ot="$(val "$o" together_pct)" \
	    'BEGIN { exit !(oi != "" && ot != "" && \
		oi + 0 <= si + 10 && ot + 0 >= st - 10) }'; then
		echo "ok 1 $t"
	else
		echo "not ok 1 $t # ours beyond 10 points of stock's"
	fi
	exit 0
fi

: "${INITRD:?INITRD is the base initramfs}"
boots=${GEDF_BOOTS:-8}
runs=${GEDF_RUNS:-5}
smp=${SMP:-2}
out=$DLK_OUT/bench
mkdir -p "$out"
tsv=$out/gedf.tsv
: >"$out/gedf-runs.raw"

# one KERNEL I: a boot's counted runs, as "KERNEL missed_pct tardiness_ms"
one() {
	log=$DLK_OUT/logs/gedf-compare-$1-$2
	say "gedf figures: $1, boot $2 (SMP=$smp, $runs counted runs)"
	KERNEL=$1 DEBUG=0 SMP=$smp ICOUNT= MODE=run \
		RUN="echo 1 >/proc/sys/kernel/printk
GEDF_FIGURES=$runs TAP_ONLY=gfb_feasible_set /tests/bin/gedf" \
		TIMEOUT=${TIMEOUT:-600} LOGDIR=$log \
		sh "$TOP/harness/boot.sh" >/dev/null ||
		die "the gedf boot failed on $1; logs in $log"
	# "# run R: J jobs, M missed (P%), worst tardiness T ms, ..." and,
	# for a counted run, "# run R counted" after it.
	tr -d '\r' <"$log/guest.log" | awk -v k="$1" '
		/^# run [0-9]+: / {
			r = $3; sub(":", "", r)
			p[r] = $8; gsub(/[(%),]/, "", p[r])
			t[r] = $11
		}
		/^# run [0-9]+ counted$/ { print k, p[$3], t[$3] }' \
		>>"$out/gedf-runs.raw"
}

i=0
while [ $i -lt "$boots" ]; do
	i=$((i + 1))
	one stock $i
	one ours $i
done

# median KERNEL COLUMN
median() {
	awk -v k="$1" -v c="$2" '$1 == k { print $c }' "$out/gedf-runs.raw" |
		sort -g | awk '{ v[NR] = $1 } END {
			if (!NR) { print "none"; exit }
			print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

ns=$(awk '$1 == "stock"' "$out/gedf-runs.raw" | wc -l)
no=$(awk '$1 == "ours"' "$out/gedf-runs.raw" | wc -l)
sm=$(median stock 2)
om=$(median ours 2)
st=$(median stock 3)
ot=$(median ours 3)
printf 'figure\tstock\tours\n' >"$tsv"
printf 'counted runs\t%s\t%s\n' "$ns" "$no" >>"$tsv"
printf 'miss ratio median (%%)\t%s\t%s\n' "$sm" "$om" >>"$tsv"
printf 'worst tardiness median (ms)\t%s\t%s\n' "$st" "$ot" >>"$tsv"
say "gedf on $smp vCPUs, $ns and $no counted runs: miss ratio median stock $sm%, ours $om%; worst tardiness median stock $st ms, ours $ot ms"
if [ "$sm" = none ] || [ "$om" = none ]; then
	echo "ok 1 gedf_timing_no_worse_than_stock # SKIP too few counted runs (the host)"
	exit 0
fi
if awk -v sm="$sm" -v om="$om" -v st="$st" -v ot="$ot" \
	'BEGIN { exit !(om <= sm + 1 && ot <= st * 1.2 + 1) }'; then
	echo "ok 1 gedf_timing_no_worse_than_stock # misses $om% vs $sm%, tardiness $ot vs $st ms"
else
	echo "not ok 1 gedf_timing_no_worse_than_stock # misses $om% vs $sm% (+1 allowed), tardiness $ot vs $st ms (x1.2 + 1 ms allowed)"
	exit 1
fi
