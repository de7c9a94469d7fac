#!/bin/sh
# bench-dl.sh: the SCHED_DEADLINE benchmark (tests/bench/dlbench.c) on
# stock and ours.  Context switches between two deadline tasks, the
# scheduler's overhead per job with N periodic tasks, and sched_setattr's
# cost with N tasks admitted are measured on one vCPU under -icount, where
# guest time counts instructions, and so is the wakeup latency under load
# (latency-cpus1: the path from the timer's interrupt to the task, the
# same on every run); the overhead per job on several CPUs and the
# latency with a load on each of several CPUs need vCPUs running in
# parallel, so those boots run without -icount and their figures are as
# noisy as the host is busy; the overhead per job on several CPUs is
# also counted in kernel instructions (kinsn-), which the host's load
# does not move.  Each boot runs every subcommand R times (the counts: R
# boots); the table gives the medians and the ratio stock/ours (> 1:
# ours is faster), and they go, tab-separated (figure, stock, ours,
# ratio), to $DLK_OUT/bench/dl.tsv.
# The SCHED_OTHER ping-pong (switch-other) runs beside the deadline one on
# the same kernel, the bound of what a deadline switch can cost.  Guests
# of several vCPUs under -icount (BENCH_DL_PINNED) run with admission off
# and every task pinned to CPU 0 (switch-ofM, scale-nN-cpus1-ofM): there
# the instructions the other, idle, CPUs run for the jobs on CPU 0 (pull
# attempts, IPIs, timers) take guest time too, and are in the figures.
#   BENCH_DL_R=3 (runs)  BENCH_DL_N='1 16 64 256 1024' (task counts)
#   BENCH_DL_SMP='2 4' (the boots without -icount, free sets; '' for none)
#   BENCH_DL_PINNED='2 4' (pinned boots under -icount, or '' for none)
#   BENCH_DL_KR=5 (boots per kernel and N for the kernel instruction counts)
#   ICOUNT=4  DLBENCH=path (a built dlbench; else it is built here)
. "$(dirname "$0")/lib.sh"

: "${INITRD:?INITRD is the base initramfs}"
r=${BENCH_DL_R:-3}
ns=${BENCH_DL_N:-1 16 64 256 1024}
smps=${BENCH_DL_SMP-2 4}
pinned=${BENCH_DL_PINNED-2 4}
icount=${ICOUNT:-4}
out=$DLK_OUT/bench
add=$out/dl-add
mkdir -p "$add/usr/local/bin"
if [ -n "${DLBENCH:-}" ]; then
	cp "$DLBENCH" "$add/usr/local/bin/dlbench"
else
	gcc -static -O2 -Wall -Wextra -Werror -I"$TOP/tests/lib" \
		-I"$TOP/tools/lib" -Wl,--section-start=.dlk_mark=0x10000000 \
		-o "$add/usr/local/bin/dlbench" "$TOP/tests/bench/dlbench.c" \
		"$TOP/tests/lib/dl.c" "$TOP/tests/lib/spin.c" \
		"$TOP/tests/lib/file.c" "$TOP/tools/lib/dlabi.c" \
		"$TOP/tools/lib/dlbw.c" -lpthread ||
		die "cannot build dlbench"
fi

# The guest's commands: the console would cost each kernel the same time
# per message; keep it out of the figures.
head="echo 1 >/proc/sys/kernel/printk
for i in \$(seq $r); do"
run_icount="$head
	dlbench switch || exit 1
	dlbench switch policy=other || exit 1
	for n in $ns; do dlbench scale \$n cpus=1 || exit 1; done
	for n in $ns; do dlbench setattr \$n || exit 1; done
	dlbench setattr 16 cg=1 || exit 1
	dlbench setattr 16 cg=3 || exit 1
	dlbench latency || exit 1
done"
run_pinned="echo -1 >/proc/sys/kernel/sched_rt_runtime_us
$head
	dlbench switch || exit 1
	dlbench switch policy=other || exit 1
	for n in $ns; do dlbench scale \$n cpus=1 || exit 1; done
done"
# Without -icount a stopped vCPU leaves tasks in debt, whose bandwidth
# comes back only at their 0-lag times, seconds on (a debt of 100 ms on
# a task of 500 us / 64 ms is 12.8 s): each set waits for the root
# domain's total to come back to what it was before the first set, or
# the next one's admission could be refused.  Up to 2 minutes: the
# classic class can keep some of it for longer (stock's 4-vCPU boot,
# after N = 256).  That base is taken once every CPU has run a fair task
# (the fair servers' reservations come as each CPU first runs one) and
# the total has stayed the same for a second.
run_smp() {
	printf '%s\n' "mount -t debugfs none /sys/kernel/debug 2>/dev/null
total() { grep -m1 'dl_bw->total_bw' /sys/kernel/debug/sched/debug |
	sed 's/.*: *//'; }
c=0
while [ \$c -lt $1 ]; do taskset -c \$c true; c=\$((c + 1)); done
i=0 last=
while [ \"\$(total)\" != \"\$last\" ] && [ \$i -lt 60 ]; do
	last=\$(total); sleep 1; i=\$((i + 1))
done
base=\$last
settle() {
	i=0
	while [ \"\$(total)\" -gt \"\$base\" ] && [ \$i -lt 120 ]; do
		sleep 1; i=\$((i + 1))
	done
	[ \$i -eq 0 ] ||
		echo \"bench: \$i s for the total to come back to \$base: \$(total)\"
}
$head
	for n in $ns; do settle; dlbench scale \$n cpus=$1 || exit 1; done
	settle
	dlbench latency || exit 1
done"
}

# bench_boot KERNEL NAME SMP ICOUNT RUN: the result lines of one boot,
# added to $out/dl-KERNEL.raw
bench_boot() {
	log=$DLK_OUT/logs/bench-dl-$2-$1
	say "benchmarking $1: $2 (SMP=$3${4:+, -icount shift=$4})"
	KERNEL=$1 DEBUG=0 SMP=$3 ICOUNT=$4 MODE=run RUN=$5 ADD=$add \
		TIMEOUT=${TIMEOUT:-1800} LOGDIR=$log \
		sh "$TOP/harness/boot.sh" >/dev/null ||
		die "the benchmark failed on $1 ($2); logs in $log"
	tr -d '\r' <"$log/guest.log" | grep '^dlbench ' >>"$out/dl-$1.raw" ||
		die "no figures from $1 ($2); logs in $log"
}

for k in stock ours; do
	: >"$out/dl-$k.raw"
	bench_boot "$k" icount1 1 "$icount" "$run_icount"
	for s in $pinned; do
		bench_boot "$k" "icount$s-pinned" "$s" "$icount" "$run_pinned"
	done
	for s in $smps; do
		bench_boot "$k" "smp$s" "$s" "" "$(run_smp "$s")"
	done
done

# The overhead per job on several vCPUs once more, in kernel instructions
# (kinsn-): the figure in guest time above follows the host's load, which
# on a host of 2 cores is larger than what it measures; the count of the
# instructions the kernel runs does not.  A TCG plugin (harness/tbcount.c,
# total=1) counts them on all vCPUs, and takes the sum each time dlbench's
# marker (dlk_mark(), at 0x10000000) runs: before and after the set's
# run, its threads created.  Each boot runs the set for 500 ms and for
# 4500 ms; the difference of the two spans' counts over the difference of
# their jobs is one job's cost, its release, switches, timers and ticks
# (about one a job), with the set's start and end cancelling.  The
# second run waits until the first one's bandwidth is back (its tasks
# give it back at their 0-lag times, up to a period and their debts
# later), or its admission would be refused.
# BENCH_DL_KR boots per kernel and N (5), the kernels' boots in turn.
plugin=$out/tbcount.so
gcc -O2 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
	-o "$plugin" "$TOP/harness/tbcount.c" || die "cannot build the plugin"
kinsn_boot() {
	tot=$out/kinsn-$1-$2-$3.tot
	log=$DLK_OUT/logs/bench-dl-kinsn-$1-smp$2-n$3
	say "counting $1: scale $3 on $2 vCPUs (kernel instructions)"
	rm -f "$tot"
	QEMU_EXTRA="-plugin $plugin,out=$tot,total=1,mark=0x10000000" \
	KERNEL=$1 DEBUG=0 SMP=$2 ICOUNT= MODE=run ADD=$add \
		RUN="echo 1 >/proc/sys/kernel/printk
mount -t debugfs none /sys/kernel/debug 2>/dev/null
total() { grep -m1 'dl_bw->total_bw' /sys/kernel/debug/sched/debug; }
idle=\$(total)
dlbench scale $3 cpus=$2 ms=500 tries=1 || exit 1
i=0
while [ \"\$(total)\" != \"\$idle\" ] && [ \$i -lt 60 ]; do
	sleep 1; i=\$((i + 1))
done
dlbench scale $3 cpus=$2 ms=4500 tries=1" \
		TIMEOUT=${TIMEOUT:-1800} LOGDIR=$log \
		sh "$TOP/harness/boot.sh" >/dev/null ||
		die "the count failed on $1 (scale $3, $2 vCPUs); logs in $log"
	jobs=$(tr -d '\r' <"$log/guest.log" |
		sed -n 's/^dlbench scale.* jobs=\([0-9]*\).*/\1/p')
	marks=$(awk '$1 == "mark" { print $2 }' "$tot")
	echo $jobs $marks | awk -v n="$3" -v c="$2" '
		NF != 6 || $2 <= $1 { exit 1 }
		{ printf "dlbench kinsn-n%d-cpus%d jobs=%d insns_per_job=%d\n",
			  n, c, $2 - $1, (($6 - $5) - ($4 - $3)) / ($2 - $1) }' \
		>>"$out/dl-$1.raw" ||
		die "no count from $1 (scale $3, $2 vCPUs): jobs $jobs, marks $marks"
}
for s in $smps; do
	for i in $(seq "${BENCH_DL_KR:-5}"); do
		for n in $ns; do
			for k in stock ours; do
				kinsn_boot "$k" "$s" "$n"
			done
		done
	done
done

# figures KERNEL: "figure median clean-runs runs", in the order they came.
# A figure is a result line's name, and its metric's for latency.  The
# median is of the clean runs if there are any (scale marks a run in which
# a task was throttled for a debt, on a busy host, as not clean).
figures() {
	awk '
	function median(f, want,    a, n, i, j, v) {
		n = 0
		for (i = 1; i <= cnt[f]; i++)
			if (!want || ok[f, i])
				a[++n] = val[f, i]
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				v = a[j]; a[j] = a[j - 1]; a[j - 1] = v
			}
		return n % 2 ? a[(n + 1) / 2] : int((a[n / 2] + a[n / 2 + 1]) / 2)
	}
	{
		clean = 1
		for (i = 3; i <= NF; i++)
			if ($i == "clean=0")
				clean = 0
		for (i = 3; i <= NF; i++) {
			k = $i; sub(/=.*/, "", k)
			v = $i; sub(/^[^=]*=/, "", v)
			if (k ~ /^(ns_per_switch|overhead_ns_per_job|ns_per_call|insns_per_job)$/)
				f = $2
			else if (k ~ /^(p50|p99|max)_ns$/)
				f = $2 "-" substr(k, 1, length(k) - 3)
			else
				continue
			if (!(f in cnt))
				order[++nf] = f
			n = ++cnt[f]
			val[f, n] = v + 0
			ok[f, n] = clean
			good[f] += clean
		}
	}
	END {
		for (i = 1; i <= nf; i++) {
			f = order[i]
			print f, median(f, good[f] > 0), good[f], cnt[f]
		}
	}' "$out/dl-$1.raw"
}
figures stock >"$out/dl-stock.med"
figures ours >"$out/dl-ours.med"

awk -v OFS='\t' '
	NR == FNR { s[$1] = $2; next }
	$1 in s {
		r = (s[$1] > 0 && $2 > 0) ? sprintf("%.3f", s[$1] / $2) : "-"
		print $1, s[$1], $2, r
	}' "$out/dl-stock.med" "$out/dl-ours.med" >"$out/dl.tsv"

echo
echo "SCHED_DEADLINE, medians of $r runs (kinsn: of ${BENCH_DL_KR:-5} boots; guest ns, kinsn: kernel instructions;" \
	"cpus1: one vCPU under -icount, else without):"
printf '%-26s %14s %14s %11s\n' figure stock ours stock/ours
# A '*' where a kernel's runs were not all clean; named under the table.
awk -F '\t' '
	FILENAME ~ /\.med$/ { split($0, w, " "); if (w[3] < w[4]) note[w[1]] = 1; next }
	{ printf "%-26s %14d %14d %11s%s\n", $1, $2, $3, $4, note[$1] ? " *" : "" }
	' "$out/dl-stock.med" "$out/dl-ours.med" "$out/dl.tsv"
for k in stock ours; do
	awk -v k="$k" '$3 < $4 { printf "* %s: %d of %d runs clean on %s\n", $1, $3, $4, k }' \
		"$out/dl-$k.med"
done
# Figures of ours alone (setattr under capped cgroups: the classic class
# has no cpu.dl.max), each against ours' figure of the same name without
# its -cgD suffix.
awk '
	NR == FNR { s[$1] = 1; next }
	{ o[$1] = $2 }
	!($1 in s) { only[++n] = $1 }
	END {
		for (i = 1; i <= n; i++) {
			f = only[i]; b = f; sub(/-cg[0-9]+$/, "", b)
			printf "%-26s %14s %14d %11s\n", f, "-", o[f],
				(b in o && o[b] > 0) ? sprintf("x%.3f of %s", o[f] / o[b], b) : ""
		}
	}' "$out/dl-stock.med" "$out/dl-ours.med"
echo
say "figures in $out/dl.tsv; result lines in $out/dl-stock.raw, $out/dl-ours.raw"
