#!/bin/sh
# stress.sh: the body of 'make stress'.  Boots each kernel (the debug
# variants by default: lockdep, KASAN, UBSAN, kmemleak) once with the
# guest suite "stress" (tests/guest/stress.c) run for STRESS_SECONDS of
# guest time instead of make test's short slice, and judges the boot as
# make test does: every TAP result, and every oops, WARNING, lockdep,
# KASAN, UBSAN, RCU stall or kmemleak report in the kernel's log.
#   KERNELS="stock ours"  DEBUG=1  SMP=4  STRESS_SECONDS=600
#   STRESS_TASKS=200 (deadline tasks at once)  STRESS_SEED (default: time)
#   INITRD=base initramfs  KTAPSUM=parser binary
. "$(dirname "$0")/lib.sh"

: "${INITRD:?INITRD is the base initramfs}" "${KTAPSUM:?KTAPSUM is the parser}"
KERNELS=${KERNELS:-stock ours}
debug=${DEBUG:-1}
smp=${SMP:-4}
secs=${STRESS_SECONDS:-600}
tasks=${STRESS_TASKS:-200}
seed=${STRESS_SEED:-$(date +%s)}
# The run, the quiescing and the checks after it (their waits are longer
# on a debug kernel, and the last one waits out the latest 0-lag time,
# up to 5 minutes), booting, and kmemleak's scan.
limit=$((secs + 900))

sh "$TOP/harness/tree.sh"
for k in $KERNELS; do
	sh "$TOP/harness/build-kernel.sh" "$k" "$debug"
done

results=$DLK_OUT/results-stress
rm -rf "$results"
mkdir -p "$results"
# The suite list of this boot, in place of the initramfs's own.
over=$DLK_OUT/stress-overlay
rm -rf "$over"
mkdir -p "$over/etc/dlk"
printf 'stress\t%s\tstress -d %s -n %s -s %s\n' "$limit" "$secs" "$tasks" \
	"$seed" >"$over/etc/dlk/suites"

set --
for k in $KERNELS; do
	name=$(kernel_name "$k" "$debug")
	logs=$DLK_OUT/logs/$name/stress
	mkdir -p "$logs"
	say "stress on $name: SMP=$smp, $secs s, $tasks tasks, seed $seed"
	t0=$(date +%s)
	st=0
	# The RCU grace-period kthread is in the fair class by default:
	# with the CPUs that are left full of deadline work and the FIFO
	# controller, it would get only the fair server's 5% (shared), and
	# everything that waits for a grace period (CPU hotplug first)
	# would stall for minutes under TCG.  Real-time systems raise it
	# so; here above the controller, below the deadline class.
	KARGS="rcutree.kthread_prio=20" \
	KERNEL=$k DEBUG=$debug MODE=test SMP=$smp ICOUNT= SUITES=stress \
		TIMEOUT=$((limit + 300)) ADD=$over LOGDIR=$logs \
		sh "$TOP/harness/boot.sh" 2>"$logs.err" || st=$?
	say "$name: $(( $(date +%s) - t0 )) s of host time; logs in $logs"
	set -- -k "$name" -o "$results/$name.tsv" -p stress -e stress \
		-c "$logs/console.log" -g "$logs/guest.log" -D -N
	if [ $st = 124 ]; then
		set -- "$@" -T $((limit + 300))
	elif [ $st != 0 ]; then
		set -- "$@" -B "boot.sh exit $st: $(tail -1 "$logs.err" 2>/dev/null)"
	fi
	"$KTAPSUM" parse "$@" || true
	# The figures: the suite's diagnostics, without the per-task lines.
	tr -d '\r' <"$logs/guest.log" | sed -n '/^@@DLK suite stress/,/^@@DLK end/p' |
		grep -v 'did no job' | sed "s/^/$name: /"
	set --
done
set --
for f in "$results"/*.tsv; do
	[ -f "$f" ] && set -- "$@" "$f"
done
[ $# -gt 0 ] || die "no results"
"$KTAPSUM" summary "$@"
