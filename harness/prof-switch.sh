#!/bin/sh
# prof-switch.sh: the body of 'make prof-switch'.  Where the guest time
# of bench-dl's switch figure goes, kernel function by kernel function,
# on stock and on ours.  Each kernel boots twice on one vCPU under
# -icount with a TCG plugin (harness/tbcount.c) that counts the
# instructions each block of kernel text executes: once with R1 rounds
# of dlbench's ping-pong, once with R2.  Under -icount an instruction is
# guest time and a boot repeats exactly, so the difference of the two,
# over 2 (R2 - R1) switches, is what one switch costs: boot, start and
# end cancel out.  It prints the instructions per switch in each
# kernel's functions, those that differ first, and the totals.
# PROF_SCALE=N profiles a job of dlbench's scale figure instead: N
# periodic tasks run PROF_MS1 ms, then PROF_MS2 ms, in two boots, and
# the difference over the difference of their jobs is one job's cost.
# PROF_SETATTR=N profiles one sched_setattr() call with N deadline tasks
# admitted: PROF_R1 calls, then PROF_R2.
# PROF_SMP=C boots C vCPUs (still under -icount, the vCPUs in turn),
# with admission off and the tasks pinned to CPU 0: the other CPUs' text
# is counted apart, as FUNCTION@cpuK, what they run for the work on CPU
# 0 (pull attempts at newidle, IPIs, timers); only between dlbench's
# marks, before and after its measured span: where the boot's work falls
# differs from one boot of several vCPUs to the next.
#   PROF_R1=10000 PROF_R2=30000 (rounds)  PROF_TOP=40 (lines)
#   PROF_SCALE=N  PROF_MS1=500 PROF_MS2=2500  PROF_SETATTR=N  PROF_SMP=1
#   PROF_KERNELS="stock ours" (two builds; the second may be an
#   experiment's, BUILD_NAME=exp in harness/build-kernel.sh)
#   ICOUNT=4  INITRD=base initramfs  DLBENCH=the dlbench binary
. "$(dirname "$0")/lib.sh"

: "${INITRD:?INITRD is the base initramfs}" "${DLBENCH:?DLBENCH is dlbench}"
r1=${PROF_R1:-10000}
r2=${PROF_R2:-30000}
[ "$r2" -gt "$r1" ] || die "PROF_R2 must be more than PROF_R1"
top=${PROF_TOP:-40}
icount=${ICOUNT:-4}
smp=${PROF_SMP:-1}
scale=${PROF_SCALE:-}
setattr=${PROF_SETATTR:-}
[ -n "$scale" ] && [ -n "$setattr" ] && die "PROF_SCALE or PROF_SETATTR, not both"
if [ -n "$scale" ]; then
	r1=${PROF_MS1:-500}
	r2=${PROF_MS2:-2500}
	[ "$r2" -gt "$r1" ] || die "PROF_MS2 must be more than PROF_MS1"
fi
# The guest's command for a length of @1 (rounds, or ms of the scale run).
# On several vCPUs the shell too is pinned to CPU 0, so that dlbench's
# exec and page faults, the same in both runs, fall on the same CPU and
# cancel in each CPU's figures.
prof_run() {
	[ "$smp" -gt 1 ] && echo "echo -1 >/proc/sys/kernel/sched_rt_runtime_us
taskset -p 1 \$\$ >/dev/null"
	echo "echo 1 >/proc/sys/kernel/printk"
	if [ -n "$scale" ]; then
		echo "dlbench scale $scale cpus=1 ms=$1 tries=1"
	elif [ -n "$setattr" ]; then
		echo "dlbench setattr $setattr calls=$1"
	else
		echo "dlbench switch $1"
	fi
}
split=
[ "$smp" -gt 1 ] && split=,vcpus=1,mark=0x10000000
unit=switch
[ -n "$scale" ] && unit=job
[ -n "$setattr" ] && unit=call
out=$DLK_OUT/prof
add=$out/add
mkdir -p "$add/usr/local/bin"
cp "$DLBENCH" "$add/usr/local/bin/dlbench"
plugin=$out/tbcount.so
gcc -O2 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
	-o "$plugin" "$TOP/harness/tbcount.c" || die "cannot build the plugin"

# per_symbol MAP COUNTS: "SYMBOL INSNS" lines, one per kernel text symbol
# (and vCPU other than 0: SYMBOL@cpuK)
per_symbol() {
	{
		awk '$2 ~ /^[tTwW]$/ { print $1, "S", $3 }' "$1"
		awk '{ print $1, "C", $2, $3 + 0 }' "$2"
	} | LC_ALL=C sort -k1,1 -k2,2r | awk '
		$2 == "S" { sym = $3; next }
		{ tot[sym ($4 ? "@cpu" $4 : "")] += $3 }
		END { for (s in tot) printf "%s %.0f\n", s, tot[s] }' |
		LC_ALL=C sort
}

set -- ${PROF_KERNELS:-stock ours}
[ $# = 2 ] || die "PROF_KERNELS names two kernels"
ka=$1 kb=$2
for k in "$ka" "$kb"; do
	map=$(dirname "$(kernel_image "$k" 0)")/../../../System.map
	[ -f "$map" ] || die "no System.map for $k (make kernels)"
	for r in "$r1" "$r2"; do
		log=$DLK_OUT/logs/prof-$k-$r
		say "profiling $k: $(prof_run "$r" | tail -1) on $smp vCPU(s)"
		QEMU_EXTRA="-plugin $plugin,out=$out/$k-$r.tb$split" \
		KERNEL=$k DEBUG=0 SMP=$smp ICOUNT=$icount MODE=run ADD=$add \
			RUN="$(prof_run "$r")" TIMEOUT=${TIMEOUT:-900} \
			LOGDIR=$log sh "$TOP/harness/boot.sh" >/dev/null ||
			die "the profile boot failed on $k; logs in $log"
		[ -s "$out/$k-$r.tb" ] || die "the plugin wrote nothing ($k)"
		! grep -q '^dropped' "$out/$k-$r.tb" ||
			die "the plugin's table filled: $(head -1 "$out/$k-$r.tb") blocks ($k)"
		per_symbol "$map" "$out/$k-$r.tb" >"$out/$k-$r.sym"
		units=$((2 * r))
		[ -n "$setattr" ] && units=$r
		if [ -n "$scale" ]; then
			units=$(tr -d '\r' <"$log/guest.log" |
				sed -n 's/^dlbench scale.* jobs=\([0-9]*\).*/\1/p')
			[ -n "$units" ] || die "no job count from $k; logs in $log"
		fi
		eval "units_$r=\$units"
	done
	eval "n=\$((units_$r2 - units_$r1))"
	[ "$n" -gt 0 ] || die "no more jobs in the longer run ($k)"
	say "$k: $n ${unit}s more in the longer run"
	# Per switch (or job): the difference over the units between them.
	LC_ALL=C join -a1 -a2 -e 0 -o 0,1.2,2.2 "$out/$k-$r1.sym" "$out/$k-$r2.sym" |
		awk -v n="$n" '{ printf "%s %.1f\n", $1, ($3 - $2) / n }' \
		>"$out/$k.per-switch"
done

LC_ALL=C join -a1 -a2 -e 0 -o 0,1.2,2.2 "$out/$ka.per-switch" "$out/$kb.per-switch" |
	awk -v top="$top" -v ns=$((1 << icount)) '
	{ s += $2; o += $3; d = $3 - $2; if (d < 0) d = -d
	  c = "cpu0"; if (match($1, /@cpu[0-9]+$/)) c = substr($1, RSTART + 1)
	  cs[c] += $2; co[c] += $3
	  if ($2 >= 1 || $3 >= 1) printf "%.1f %s %.1f %.1f\n", d, $1, $2, $3 }
	END {
		printf "TOTAL %.1f %.1f %d\n", s, o, ns > "/dev/stderr"
		if (length(cs) > 1)
			for (c in cs)
				printf "CPU %s %.1f %.1f\n", c, cs[c], co[c] > "/dev/stderr"
	}' \
	2>"$out/total" | sort -rn | head -n "$top" >"$out/table"
echo "instructions per $unit${scale:+ of $scale tasks}${setattr:+ with $setattr tasks admitted} on $smp vCPU(s) (kernel text; an instruction is $((1 << icount)) ns of guest time)"
printf '%-40s %10s %10s %10s\n' function "$ka" "$kb" "$kb-$ka"
awk '{ printf "%-40s %10.1f %10.1f %+10.1f\n", $2, $3, $4, $4 - $3 }' "$out/table"
sort "$out/total" | awk '
	$1 == "CPU" { printf "%-40s %10.1f %10.1f %+10.1f\n", "kernel text on " $2, $3, $4, $4 - $3 }
	$1 == "TOTAL" { printf "%-40s %10.1f %10.1f %+10.1f\n", "all kernel text", $2, $3, $3 - $2 }'
