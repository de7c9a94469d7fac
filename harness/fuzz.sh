#!/bin/sh
# fuzz.sh: the body of 'make fuzz', the differential fuzzer of the
# scheduling ABI (tests/guest/dlfuzz.c).  Each boot runs one seed on
# stock and then on ours, one vCPU under -icount; their checkpoints
# ("ck INDEX HASH") must agree.  On the first divergence it finds the
# first op whose record differs (a rerun with -v over the last window),
# then shrinks the sequence up to that op (a window search, then
# removing chunks; every trial boots both kernels) and prints the
# shortest replayable command it found with both kernels' records.
#   FUZZ_OPS=1000000 (ops per kernel, summed over boots)
#   FUZZ_SEED=1 (the first boot's; the next boots take the next seeds)
#   FUZZ_CHUNK=250000 (ops per boot)  FUZZ_ARGS='-K abc' (more options)
#   FUZZ_TRIALS=24 (shrinking's cap on trials)  SMP=1 ICOUNT=4
#   (SMP=2 adds -H to FUZZ_ARGS: CPU 1's hotplug, more cpuset ops)
#   INITRD=base initramfs with /tests/bin/dlfuzz
# 'fuzz.sh compare-test BOOT SUITE' is make test's host step: it
# compares the checkpoints the guest suite SUITE ("fuzz" by default)
# printed on each kernel in boot BOOT ("icount1") and writes TAP on
# stdout, one test: SUITE_same_as_stock ('-' as '_').
. "$(dirname "$0")/lib.sh"

out=$DLK_OUT/fuzz
mkdir -p "$out"

# ck_lines FILE: the checkpoint and end lines of a run, in order
ck_lines() {
	tr -d '\r' <"$1" | sed -n -e 's/^# //' -e '/^ck /p' -e '/^end /p' \
		-e '/^reaped /p'
}

if [ "${1:-}" = compare-test ]; then
	# make test: a guest suite of dlfuzz on both kernels, one TAP test.
	suite=${3:-fuzz}
	s=$DLK_OUT/logs/stock/${2:-icount1}/guest.log
	o=$DLK_OUT/logs/ours/${2:-icount1}/guest.log
	t=$(echo "$suite" | tr - _)_same_as_stock
	f=$out/test-$suite
	echo "TAP version 13"
	echo "1..1"
	ran() { tr -d '\r' <"$1" 2>/dev/null | grep -qx "@@DLK suite $suite"; }
	if ! ran "$s" || ! ran "$o"; then
		echo "ok 1 $t # SKIP the suite did not run on both kernels"
		exit 0
	fi
	sfx() {
		tr -d '\r' <"$1" |
			sed -n "/^@@DLK suite $suite\$/,/^@@DLK end $suite /p"
	}
	sfx "$s" >"$f-stock.log"
	sfx "$o" >"$f-ours.log"
	ck_lines "$f-stock.log" >"$f-stock.ck"
	ck_lines "$f-ours.log" >"$f-ours.ck"
	if [ -s "$f-stock.ck" ] && cmp -s "$f-stock.ck" "$f-ours.ck"; then
		echo "ok 1 $t # $(wc -l <"$f-stock.ck") checkpoints"
	else
		diff "$f-stock.ck" "$f-ours.ck" | head -6 | sed 's/^/# /'
		n=$(sed 's/#.*//' "$TOP/tests/guest/boots" |
			awk -v b="${2:-icount1}" '$1 == b { print $2 }')
		echo "# replay: make fuzz FUZZ_SEED=<the suite's seed>" \
			"$([ "${n:-1}" = 1 ] || echo "SMP=$n ")shrinks it"
		echo "not ok 1 $t"
	fi
	exit 0
fi

: "${INITRD:?INITRD is the base initramfs}"
ops=${FUZZ_OPS:-1000000}
seed=${FUZZ_SEED:-1}
chunk=${FUZZ_CHUNK:-250000}
args=${FUZZ_ARGS:-}
trials=${FUZZ_TRIALS:-24}
smp=${SMP:-1}
icount=${ICOUNT:-4}
# Two CPUs: the ops of several CPUs too (suite fuzz-smp2's sequence).
if [ "$smp" = 2 ]; then
	case " $args " in *" -H "*) ;; *) args="$args -H" ;; esac
fi

# guest KERNEL NAME ARGS: runs dlfuzz ARGS in one boot; output in
# $out/NAME-KERNEL.txt, the boot's host seconds in $out/NAME-KERNEL.secs
guest() {
	log=$DLK_OUT/logs/fuzz-$2-$1
	g0=$(date +%s)
	KERNEL=$1 DEBUG=0 SMP=$smp ICOUNT=$icount MODE=run \
		RUN="dlfuzz $3" TIMEOUT=${TIMEOUT:-7200} LOGDIR=$log \
		sh "$TOP/harness/boot.sh" >/dev/null 2>&1 ||
		say "$1: boot for $2 ended with an error; logs in $log"
	tr -d '\r' <"$log/guest.log" >"$out/$2-$1.txt"
	echo $(( $(date +%s) - g0 )) >"$out/$2-$1.secs"
}

# both NAME ARGS: stock and ours at once, in half the time.  Under -icount
# the guests' time follows their instructions, not the host; the host's
# load can still reach a guest through the timing of its I/O, as it can
# for one boot alone.
both() {
	guest stock "$1" "$2" &
	guest ours "$1" "$2"
	wait
}

# recs NAME KERNEL: the records of a run
recs() {
	sed -n 's/^rec //p' "$out/$1-$2.txt"
}

# diverges NAME OP: 0 if op OP's record differs between the kernels
diverges() {
	a=$(recs "$1" stock | awk -v d="$2" '$1 == d')
	b=$(recs "$1" ours | awk -v d="$2" '$1 == d')
	[ -n "$a" ] && [ "$a" != "$b" ]
}

# trial LIST OP: boots both with -k LIST; 0 if op OP still diverges
ntrial=0
trial() {
	ntrial=$((ntrial + 1))
	echo "$ntrial" >"$out/ntrial"
	printf '%s\n' "$1" >"$out/trial.k"
	both trial "-s $cur $args -k $1 -v $2-$2 -c 1000000000"
	if diverges trial "$2"; then
		say "trial $ntrial: ${#1} chars of op list: diverges"
		return 0
	fi
	say "trial $ntrial: ${#1} chars of op list: same"
	return 1
}

# shrink OP: the shortest list ending in OP that still diverges
shrink() {
	d=$1
	# The smallest window d-w+1..d that diverges, w = 1, 4, 16, ...
	w=1
	list=
	while [ $ntrial -lt "$trials" ]; do
		lo=$((d - w + 1))
		[ $lo -lt 0 ] && lo=0
		if trial "$lo-$d" "$d"; then
			list=$(seq "$lo" "$d" | paste -sd, -)
			break
		fi
		[ $lo = 0 ] && break
		w=$((w * 4))
	done
	[ -n "$list" ] || { say "no window up to op $d diverges alone"; return 1; }
	# Remove chunks of the list (never op d), halving the chunk size.
	n=$(echo "$list" | tr , '\n' | wc -l)
	size=$(( (n + 1) / 2 ))
	while [ "$size" -ge 1 ] && [ $ntrial -lt "$trials" ]; do
		i=1
		while [ $i -lt "$n" ] && [ $ntrial -lt "$trials" ]; do
			cand=$(echo "$list" | tr , '\n' |
				awk -v a=$i -v b=$((i + size)) -v n="$n" \
					'NR < a || NR >= b || NR == n' | paste -sd, -)
			if [ "$cand" != "$list" ] && trial "$cand" "$d"; then
				list=$cand
				n=$(echo "$list" | tr , '\n' | wc -l)
			else
				i=$((i + size))
			fi
		done
		size=$((size / 2))
	done
	echo "$list"
}

total=0
boot=0
start=$(date +%s)
status=0
while [ $total -lt "$ops" ]; do
	n=$chunk
	[ $((ops - total)) -lt "$n" ] && n=$((ops - total))
	cur=$((seed + boot))
	say "seed $cur: $n ops on stock and on ours (SMP=$smp, -icount shift=$icount)"
	both "run$boot" "-s $cur -n $n $args"
	ts=$(cat "$out/run$boot-stock.secs")
	to=$(cat "$out/run$boot-ours.secs")
	for k in stock ours; do
		ck_lines "$out/run$boot-$k.txt" >"$out/run$boot-$k.ck"
		grep -q '^ck end' "$out/run$boot-$k.ck" ||
			die "$k did not finish seed $cur; see $out/run$boot-$k.txt"
	done
	echo "seed $cur: $n ops; stock $ts s ($((n / (ts + 1))) ops/s)," \
		"ours $to s ($((n / (to + 1))) ops/s), side by side"
	grep '^stat\|^waits' "$out/run$boot-stock.txt" | sed 's/^/  stock: /'
	total=$((total + n))
	if ! cmp -s "$out/run$boot-stock.ck" "$out/run$boot-ours.ck"; then
		status=1
		first=$(diff "$out/run$boot-stock.ck" "$out/run$boot-ours.ck" |
			sed -n 's/^< ck \([0-9]*\) .*/\1/p' | head -1)
		prev=$(awk -v f="$first" '$1 == "ck" && $2 ~ /^[0-9]+$/ && $2 < f { p = $2 }
			END { print p + 0 }' "$out/run$boot-stock.ck")
		[ -n "$first" ] || first=$((n - 1))
		say "seed $cur diverges between ops $prev and $first: finding the first op"
		both first "-s $cur -n $((first + 1)) $args -v $prev-$first -c 1000000000"
		d=$(diff "$out/first-stock.txt" "$out/first-ours.txt" |
			sed -n 's/^< rec \([0-9]*\) .*/\1/p' | head -1)
		[ -n "$d" ] || die "no record differs between ops $prev and $first on a rerun"
		echo
		echo "DIVERGENCE: seed $cur, first at op $d:"
		echo "  stock: $(recs first stock | awk -v d="$d" '$1 == d')"
		echo "  ours:  $(recs first ours | awk -v d="$d" '$1 == d')"
		list=$(shrink "$d") || list=
		if [ -n "$list" ]; then
			both shrunk "-s $cur $args -k $list -v 0-$d -c 1000000000"
			echo "shrunk to $(echo "$list" | tr , '\n' | wc -l) ops in" \
				"$(cat "$out/ntrial" 2>/dev/null) trials:"
			echo "  dlfuzz -s $cur $args -k $list -v 0-$d"
			for k in stock ours; do
				echo "  $k:"
				recs shrunk $k | sed 's/^/    /'
			done
		fi
		break
	fi
	boot=$((boot + 1))
done
echo
echo "fuzz: $total ops per kernel in $(( $(date +%s) - start )) s;" \
	"$([ $status = 0 ] && echo 'no divergence' || echo 'DIVERGED')"
exit $status
