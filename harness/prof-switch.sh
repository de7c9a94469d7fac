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
#   PROF_R1=10000 PROF_R2=30000 (rounds)  PROF_TOP=40 (lines)
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
out=$DLK_OUT/prof
add=$out/add
mkdir -p "$add/usr/local/bin"
cp "$DLBENCH" "$add/usr/local/bin/dlbench"
plugin=$out/tbcount.so
gcc -O2 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
	-o "$plugin" "$TOP/harness/tbcount.c" || die "cannot build the plugin"

# per_symbol MAP COUNTS: "SYMBOL INSNS" lines, one per kernel text symbol
per_symbol() {
	{
		awk '$2 ~ /^[tTwW]$/ { print $1, "S", $3 }' "$1"
		awk '{ print $1, "C", $2 }' "$2"
	} | LC_ALL=C sort -k1,1 -k2,2r | awk '
		$2 == "S" { sym = $3; next }
		{ tot[sym] += $3 }
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
		say "profiling $k: $r rounds of dlbench switch"
		QEMU_EXTRA="-plugin $plugin,out=$out/$k-$r.tb" \
		KERNEL=$k DEBUG=0 SMP=1 ICOUNT=$icount MODE=run ADD=$add \
			RUN="dlbench switch $r" TIMEOUT=${TIMEOUT:-900} \
			LOGDIR=$log sh "$TOP/harness/boot.sh" >/dev/null ||
			die "the profile boot failed on $k; logs in $log"
		[ -s "$out/$k-$r.tb" ] || die "the plugin wrote nothing ($k)"
		! grep -q '^dropped' "$out/$k-$r.tb" ||
			die "the plugin's table filled: $(head -1 "$out/$k-$r.tb") blocks ($k)"
		per_symbol "$map" "$out/$k-$r.tb" >"$out/$k-$r.sym"
	done
	# Per switch: the difference over 2 (r2 - r1) switches.
	LC_ALL=C join -a1 -a2 -e 0 -o 0,1.2,2.2 "$out/$k-$r1.sym" "$out/$k-$r2.sym" |
		awk -v n=$((2 * (r2 - r1))) '{ printf "%s %.1f\n", $1, ($3 - $2) / n }' \
		>"$out/$k.per-switch"
done

LC_ALL=C join -a1 -a2 -e 0 -o 0,1.2,2.2 "$out/$ka.per-switch" "$out/$kb.per-switch" |
	awk -v top="$top" -v ns=$((1 << icount)) '
	{ s += $2; o += $3; d = $3 - $2; if (d < 0) d = -d
	  if ($2 >= 1 || $3 >= 1) printf "%.1f %s %.1f %.1f\n", d, $1, $2, $3 }
	END { printf "TOTAL %.1f %.1f %d\n", s, o, ns > "/dev/stderr" }' \
	2>"$out/total" | sort -rn | head -n "$top" >"$out/table"
echo "instructions per switch (kernel text; an instruction is $((1 << icount)) ns of guest time)"
printf '%-40s %10s %10s %10s\n' function "$ka" "$kb" "$kb-$ka"
awk '{ printf "%-40s %10.1f %10.1f %+10.1f\n", $2, $3, $4, $4 - $3 }' "$out/table"
awk '{ printf "%-40s %10.1f %10.1f %+10.1f\n", "all kernel text", $2, $3,
	 $3 - $2 }' "$out/total"
