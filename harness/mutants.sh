#!/bin/sh
# mutants.sh: the body of 'make mutants'.  Each file of tests/mutants/ is
# a deliberate defect, a small diff against ours; its header names the
# guest suites that claim the behaviour it breaks ("# Suites: a,b").
# For each mutant: ours's tree is checked out afresh in a scratch
# worktree, the diff applied, the kernel built incrementally into a
# build directory of its own, and every boot of tests/guest/boots that
# runs one of those suites is booted with just them, judged as make
# test judges a boot (results, kernel reports, a hung guest; KUnit at
# the first boot).  A mutant is killed by a failure, or by a skip that
# tests/guest/skips does not list for ours in that boot: the first failure
# of a guest suite ends its boots; KUnit's alone lets them go on.  One
# line per mutant, then "N killed, N survived or broken"; exits 1 if
# one survived or did not apply or build.
#   MUTANTS=a,b  only these (names without .diff)
#   MUTANT_JOBS=1  mutants at once (a worktree and build directory each,
#                  the first build of each from scratch; builds take the
#                  cache's lock in turn)
#   MUTANT_BASELINE=1  first the same boots of ours unchanged, which
#                  must pass: else no kill would mean anything
#   INITRD=base initramfs  KTAPSUM=parser binary
. "$(dirname "$0")/lib.sh"

: "${INITRD:?INITRD is the base initramfs}" "${KTAPSUM:?KTAPSUM is the parser}"
jobs=${MUTANT_JOBS:-1}
work=$DLK_OUT/mutants
dir=$TOP/tests/mutants

sh "$TOP/harness/tree.sh"
commit=$(cgit -C "$SRC_OURS" rev-parse HEAD)

# mutant_names: the mutants to run, in name order
mutant_names() {
	if [ -n "${MUTANTS:-}" ]; then
		for m in $(echo "$MUTANTS" | tr , ' '); do
			[ -f "$dir/$m.diff" ] || die "MUTANTS=$m: no $dir/$m.diff"
			echo "$m"
		done
	else
		for f in "$dir"/*.diff; do
			basename "$f" .diff
		done
	fi
}

# suites_of NAME: the suites its header names
suites_of() {
	sed -n 's/^# Suites: *//p' "$dir/$1.diff" | head -1 | tr -d ' '
}

# boots_for SUITES: "BOOT SMP ICOUNT LIST DEVICES" for each boot of
# tests/guest/boots that runs some of SUITES, LIST being those
boots_for() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/tests/guest/boots" |
		while read -r boot smp icount list devices; do
			mine=$(echo "$list" | tr , '\n' |
				grep -Fx "$(echo "$1" | tr , '\n')" |
				paste -sd, - || true)
			if [ -n "$mine" ]; then
				echo "$boot $smp $icount $mine ${devices:--}"
			fi
		done
}

# limit_of LIST: as harness/test.sh, the suites' limits and 120 s more
limit_of() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/tests/guest/suites" |
		awk -v list=",$1," 'index(list, "," $1 ",") { t += $2 }
			END { print t + 120 }'
}

# prepare SLOT NAME: the slot's worktree at ours's commit with NAME's
# diff applied ("none": unchanged), and its kernel built.  Worktrees
# are made and moved under the cache's lock, the build takes it itself.
prepare() {
	src=$VDIR/src/mutant-$1
	(
		cache_lock
		if [ ! -d "$src" ]; then
			cgit -C "$GITDIR" worktree prune
			cgit -C "$GITDIR" worktree add -q --detach "$src" "$commit"
		fi
		# -f puts back what the last mutant changed, and only that:
		# the next build recompiles those files and the new ones.
		cgit -C "$src" checkout -q -f --detach "$commit"
		[ "$2" = none ] || cgit -C "$src" apply "$dir/$2.diff"
	) || return 1
	BUILD_SRC=$src BUILD_NAME=mutant-$1 sh "$TOP/harness/build-kernel.sh" ours 0
}

# killer RESULTS guest|any: the first failure of RESULTS (of a guest
# suite, or of anything, KUnit included), and how many more there are
killer() {
	awk -F'\t' -v want="$2" '$3 == "FAIL" {
		if (want == "guest" && $2 ~ /^kunit:/)
			next
		if (!n++)
			f = $2 " " $4
	}
	END {
		if (n > 1)
			f = f " (and " n - 1 " more)"
		if (n)
			print f
	}' "$1"
}

# odd_skip RESULTS: the first skip of RESULTS that tests/guest/skips does
# not hold for ours in that boot (or a listed one that did not happen):
# a test that asserted nothing where it asserts something on ours
# unchanged.  ktapsum judges it, as for make test, with the results
# taken as ours'.
odd_skip() {
	sed 's/^[^	]*	/ours	/' "$1" >"$1.ours"
	"$KTAPSUM" summary -m "$TOP/tests/guest/skips" "$1.ours" | awk '
		/^FAIL / { f = substr($0, 7); next }
		f != "" && /skip/ { sub(/^ +/, ""); print f " (" $0 ")"; exit }
		{ f = "" }'
}

# judge SLOT NAME: boots NAME's kernel (slot SLOT's) with its suites;
# prints "killed BOOT SUITE TEST", "survived" or "broken WHY"
judge() {
	slot=$1
	name=$2
	out=$work/$name
	rm -rf "$out"
	mkdir -p "$out"
	if [ "$name" = none ]; then
		suites=$(sed -n 's/^# Suites: *//p' "$dir"/*.diff | tr -d ' ' |
			tr , '\n' | sort -u | paste -sd, -)
	else
		suites=$(suites_of "$name")
	fi
	[ -n "$suites" ] || { echo "broken no '# Suites:' line"; return; }
	prepare "$slot" "$name" >"$out/build.log" 2>&1 || {
		echo "broken does not apply or build (see $out/build.log)"
		return
	}
	kunit=-K
	grep -q '^CONFIG_KUNIT=y' "$VDIR/build/mutant-$slot/.config" || kunit=-N
	boots_for "$suites" >"$out/boots"
	[ -s "$out/boots" ] || { echo "broken no boot runs $suites"; return; }
	while read -r boot smp icount list devices; do
		[ "$icount" = - ] && icount=
		[ "$devices" = - ] && devices=
		limit=$(limit_of "$list")
		st=0
		KERNEL=mutant-$slot DEBUG=0 MODE=test SMP=$smp ICOUNT=$icount \
			SUITES=$list TIMEOUT=$limit DEVICES=$devices \
			LOGDIR=$out/$boot sh "$TOP/harness/boot.sh" \
			2>"$out/$boot.err" || st=$?
		set -- -k "$name" -o "$out/results.tsv" -p "$boot" -e "$list" \
			-c "$out/$boot/console.log" -g "$out/$boot/guest.log" -D \
			"$kunit"
		kunit=-N
		if [ $st = 124 ]; then
			set -- "$@" -T "$limit"
		elif [ $st != 0 ]; then
			set -- "$@" -B "boot.sh exit $st"
		fi
		"$KTAPSUM" parse "$@"
		# A guest suite's failure ends the mutant's boots.  KUnit (the
		# class's own cases, not run on stock) alone does not: the
		# boots go on, to show whether the suites see it too.
		killer "$out/results.tsv" guest >"$out/killer"
		[ -s "$out/killer" ] || odd_skip "$out/results.tsv" >"$out/killer"
		if [ -s "$out/killer" ]; then
			echo "killed $(cat "$out/killer")"
			return
		fi
	done <"$out/boots"
	killer "$out/results.tsv" any >"$out/killer"
	if [ -s "$out/killer" ]; then
		echo "killed $(cat "$out/killer")"
	else
		echo "survived"
	fi
}

# run_slot SLOT: the mutants of this slot (every JOBS-th, from SLOT),
# one verdict line each in $work/slot-SLOT
run_slot() {
	i=0
	: >"$work/slot-$1"
	mutant_names | while read -r name; do
		i=$((i + 1))
		[ $(( (i - 1) % jobs )) = "$1" ] || continue
		t0=$(date +%s)
		verdict=$(judge "$1" "$name")
		t=$(( $(date +%s) - t0 ))
		printf '%s\t%s\t%s\n' "$name" "$t" "$verdict" >>"$work/slot-$1"
		say "mutant $name (${t}s): $verdict"
	done
}

mkdir -p "$work"
rm -f "$work"/slot-*
start=$(date +%s)
if [ "${MUTANT_BASELINE:-0}" = 1 ]; then
	say "baseline: ours unchanged, with every suite a mutant names"
	verdict=$(judge 0 none)
	[ "$verdict" = survived ] ||
		die "ours unchanged does not pass its suites: $verdict (logs in $work/none)"
fi
say "$(mutant_names | wc -l) mutants, $jobs at once; logs in $work"
s=0
pids=
while [ $s -lt "$jobs" ]; do
	run_slot $s &
	pids="$pids $!"
	s=$((s + 1))
done
for p in $pids; do
	wait "$p" || true
done

echo
killed=0
bad=0
for name in $(mutant_names); do
	line=$(grep -h "^$name	" "$work"/slot-* | head -1)
	t=$(echo "$line" | cut -f2)
	verdict=$(echo "$line" | cut -f3)
	case $verdict in
	killed*)
		killed=$((killed + 1))
		printf 'killed    %-28s %5ss  by %s\n' "$name" "$t" "${verdict#killed }"
		;;
	survived)
		bad=$((bad + 1))
		printf 'SURVIVED  %-28s %5ss  (suites %s)\n' "$name" "$t" "$(suites_of "$name")"
		;;
	*)
		bad=$((bad + 1))
		printf 'BROKEN    %-28s %5ss  %s\n' "$name" "$t" "${verdict#broken }"
		;;
	esac
done
echo "mutants: $killed killed, $bad survived or broken, in $(( $(date +%s) - start ))s"
[ $bad = 0 ]
