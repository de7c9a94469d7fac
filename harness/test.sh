#!/bin/sh
# test.sh: the body of 'make test'.  Builds the kernels, boots each with
# the guest suites (KUnit runs during its boot), runs the harness's own
# self-tests, and prints the verdict.  Settings from the environment:
#   KERNELS="stock ours" (or fixed: the pristine tree with the fixes of
#   patches/classic-fixes)  DEBUG=0|1  SUITE=a,b
#   TIMEOUT=seconds for each boot (default: its suites' limits + 120)
#   SMP=N ICOUNT=SHIFT: one boot of that shape instead of tests/guest/boots
#   INITRD=base initramfs  KTAPSUM=parser binary  SELFTEST_ADD=dir
#   HOST_TESTS="prog..."  the host suites (tests/host), each named by
#   its program; DLCHART=the host build of the chart tool they test
. "$(dirname "$0")/lib.sh"

KERNELS=${KERNELS:-stock ours}
DEBUG=${DEBUG:-0}
: "${INITRD:?}" "${KTAPSUM:?}"
export DEBUG INITRD

sh "$TOP/harness/tree.sh"
# The third kernel, on demand only (KERNELS=fixed): the pristine tree with
# patches/classic-fixes.
case " $KERNELS " in
*" fixed "*) sh "$TOP/harness/tree.sh" fixed ;;
esac
for k in $KERNELS; do
	sh "$TOP/harness/build-kernel.sh" "$k" "$DEBUG"
done

# boots_of: the boot configurations, "NAME SMP ICOUNT SUITES [DEVICES]",
# from tests/guest/boots; SMP= or ICOUNT= on the command line make it one
# boot of that shape with every suite.
boots_of() {
	if [ -n "${SMP:-}" ] || [ -n "${ICOUNT:-}" ]; then
		all=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' \
			"$TOP/tests/guest/suites" | awk '{print $1}' | paste -sd, -)
		echo "custom ${SMP:-2} ${ICOUNT:--} $all -"
	else
		sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/tests/guest/boots"
	fi
}

# suite_names: every suite tests/guest/suites defines
suite_names() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/tests/guest/suites" |
		awk '{print $1}'
}

# is_host_suite NAME: NAME is one of HOST_TESTS
is_host_suite() {
	for t in ${HOST_TESTS:-}; do
		[ "${t##*/}" = "$1" ] && return 0
	done
	return 1
}

# check_lists: boots name only defined suites, every suite has a boot,
# and SUITE= names only suites that exist.
check_lists() {
	known=$(suite_names)
	in_boots=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/tests/guest/boots" |
		awk '{print $4}' | tr , '\n')
	for x in $in_boots; do
		echo "$known" | grep -qx "$x" ||
			die "tests/guest/boots runs '$x', which tests/guest/suites does not define"
	done
	for x in $known; do
		echo "$in_boots" | grep -qx "$x" ||
			die "suite '$x' is in no boot of tests/guest/boots"
	done
	for x in $(echo "${SUITE:-}" | tr , ' '); do
		[ "$x" = harness ] || [ "$x" = compat ] ||
			echo "$known" | grep -qx "$x" ||
			is_host_suite "$x" ||
			die "SUITE=$x: no such suite (see tests/guest/suites, tests/host)"
	done
}

# only_wanted LIST: the suites of LIST that SUITE= asks for (all if unset)
only_wanted() {
	[ -z "${SUITE:-}" ] && { echo "$1"; return; }
	echo "$1" | tr , '\n' | grep -Fx "$(echo "$SUITE" | tr , '\n')" |
		paste -sd, - || true
}

# limit_of LIST: the boot's time limit: its suites' limits and 120 s more
# for booting and the checks after them, unless TIMEOUT= says otherwise.
limit_of() {
	if [ -n "${TIMEOUT:-}" ]; then
		echo "$TIMEOUT"
		return
	fi
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/tests/guest/suites" |
		awk -v list=",$1," 'index(list, "," $1 ",") { t += $2 }
			END { print t + 120 }'
}

# boot_and_parse KERNEL BOOT SMP ICOUNT SUITES FIRST DEVICES
boot_and_parse() {
	name=$(kernel_name "$1" "$DEBUG")
	logs=$DLK_OUT/logs/$name/$2
	icount=$4
	is_first=$6
	devices=${7:--}
	[ "$devices" = - ] && devices=
	[ "$icount" = - ] && icount=
	limit=$(limit_of "$5")
	say "booting $name: $2 (SMP=$3${icount:+ ICOUNT=$icount}, ${limit}s): $5"
	st=0
	KERNEL=$1 MODE=test SMP=$3 ICOUNT=$icount SUITES=$5 TIMEOUT=$limit \
		DEVICES=$devices \
		LOGDIR=$logs sh "$TOP/harness/boot.sh" 2>"$logs.err" || st=$?
	set -- -k "$name" -o "$results/$name.tsv" -p "$2" -e "$5" \
		-c "$logs/console.log" -g "$logs/guest.log" -D
	# KUnit runs at every boot; its results are counted from the first.
	if [ "$is_first" = 1 ]; then
		grep -q '^CONFIG_KUNIT=y' "$VDIR/build/$name/.config" && set -- "$@" -K
	else
		set -- "$@" -N
	fi
	if [ $st = 124 ]; then
		set -- "$@" -T "$limit"
	elif [ $st != 0 ]; then
		set -- "$@" -B "boot.sh exit $st: $(tail -1 "$logs.err" 2>/dev/null)"
	fi
	"$KTAPSUM" parse "$@"
}

check_lists
results=$DLK_OUT/results
rm -rf "$results"
mkdir -p "$results" "$DLK_OUT/logs"
# The harness's self-tests (harness/selftest.sh), on the last kernel.
selftests_wanted() {
	[ -z "${SUITE:-}" ] || echo ",$SUITE," | grep -q ",harness,"
}
run_selftests() {
	say "harness self-tests"
	KERNEL=$(echo "$KERNELS" | awk '{print $NF}') \
		sh "$TOP/harness/selftest.sh" >"$DLK_OUT/logs/selftest.tap" || true
}

# kind_of SMP ICOUNT: how a boot shares the host: "icount" (guest time
# follows instructions), "one" (one vCPU on the host's clock: a core
# each for two of them) or "host" (several vCPUs on the host's clock)
kind_of() {
	if [ "$2" != - ]; then
		echo icount
	elif [ "$1" = 1 ]; then
		echo one
	else
		echo host
	fi
}

# kind_wanted KIND: some boot of that kind has a suite SUITE= asks for
kind_wanted() {
	boots_of | while read -r boot smp icount list devices; do
		[ "$(kind_of "$smp" "$icount")" = "$1" ] &&
			[ -n "$(only_wanted "$list")" ] && echo yes && break
	done | grep -q yes
}

# kind_has_smp KIND: some wanted boot of that kind has several vCPUs
kind_has_smp() {
	boots_of | while read -r boot smp icount list devices; do
		[ "$(kind_of "$smp" "$icount")" = "$1" ] && [ "$smp" -gt 1 ] &&
			[ -n "$(only_wanted "$list")" ] && echo yes && break
	done | grep -q yes
}

# first_kind: the kind of boot KUnit's results are counted from: the
# first with several vCPUs (with one, the CPU heap's KUnit case skips),
# or, when SUITE= leaves none, the first there is.
first_kind() {
	for k in host one icount; do
		kind_wanted "$k" && echo "$k" && return
	done
	echo host
}

# run_boots KERNEL KIND: KERNEL's boots of that kind, in the order of
# tests/guest/boots.
run_boots() {
	mkdir -p "$DLK_OUT/logs/$(kernel_name "$1" "$DEBUG")"
	boots_of | while read -r boot smp icount list devices; do
		list=$(only_wanted "$list")
		[ -n "$list" ] || continue
		[ "$(kind_of "$smp" "$icount")" = "$2" ] || continue
		first=0
		# KUnit's boot: the kind's first with several vCPUs, if any
		if [ ! -f "$marks/$1" ] && [ "$2" = "$kunit_kind" ] &&
			{ [ "$smp" -gt 1 ] || ! kind_has_smp "$2"; }; then
			first=1
			: >"$marks/$1"
		fi
		boot_and_parse "$1" "$boot" "$smp" "$icount" "$list" $first \
			"$devices"
	done
}

# run_side_by_side KIND [selftests]: every kernel's boots of KIND at
# once (and the self-tests beside them), all joined before going on
run_side_by_side() {
	kind_wanted "$1" || return 0
	pids=
	for k in $KERNELS; do
		run_boots "$k" "$1" &
		pids="$pids $!"
	done
	if [ "${2:-}" = selftests ] && selftests_wanted; then
		run_selftests &
		pids="$pids $!"
		selftests_done=1
	fi
	for p in $pids; do
		wait "$p" || true
	done
}

marks=$DLK_OUT/logs/first-boot
rm -rf "$marks"
mkdir -p "$marks"
kunit_kind=$(first_kind)
selftests_done=0
# First the boots under -icount, every kernel's at once, and the
# self-tests beside them: guest time there follows instructions, so a
# busy host slows them down but cannot change their results.  Then the
# one-vCPU boots on the host's clock, every kernel's at once: each has a
# core of its own.  Last the others, one at a time.
run_side_by_side icount selftests
run_side_by_side one
for k in $KERNELS; do
	run_boots "$k" host
	say "$(kernel_name "$k" "$DEBUG"): logs in $DLK_OUT/logs/$(kernel_name "$k" "$DEBUG")"
done

# The fuzz suites' checkpoints, stock's against ours (harness/fuzz.sh):
# "fuzz" (one vCPU) and "fuzz-smp2" (two), each in the first boot that
# runs it.
if [ "$KERNELS" = "stock ours" ] && [ "$DEBUG" = 0 ]; then
	for fs in fuzz fuzz-smp2; do
		[ -z "${SUITE:-}" ] || echo ",$SUITE," | grep -q ",$fs," ||
			continue
		b=$(boots_of | awk -v s="$fs" \
			'index("," $4 ",", "," s ",") { print $1; exit }')
		[ -n "$b" ] || continue
		sh "$TOP/harness/fuzz.sh" compare-test "$b" "$fs" \
			>"$DLK_OUT/logs/$fs-compare.tap" 2>&1 || true
		"$KTAPSUM" parse -k host -o "$results/host-$fs.tsv" \
			-t "$DLK_OUT/logs/$fs-compare.tap" -s "$fs-compare"
	done
fi

# Global EDF's unpartitionable set, ours beside stock's figures of this
# run, in each boot that runs gedf on several vCPUs (harness/gedf-compare.sh).
if [ "$KERNELS" = "stock ours" ] && [ "$DEBUG" = 0 ] &&
	{ [ -z "${SUITE:-}" ] || echo ",$SUITE," | grep -q ",gedf,"; }; then
	for b in $(boots_of | awk '$2 > 1 && index("," $4 ",", ",gedf,") {
		print $1 }'); do
		sh "$TOP/harness/gedf-compare.sh" compare-test "$b" \
			>"$DLK_OUT/logs/gedf-$b-compare.tap" 2>&1 || true
		"$KTAPSUM" parse -k host -o "$results/host-gedf-$b.tsv" \
			-t "$DLK_OUT/logs/gedf-$b-compare.tap" -s "gedf-compare"
	done
fi

if selftests_wanted; then
	[ "$selftests_done" = 1 ] || run_selftests
	"$KTAPSUM" parse -k host -o "$results/host.tsv" \
		-t "$DLK_OUT/logs/selftest.tap" -s harness-selftest
fi

# The host suites: the tools that run on the host, on recorded inputs.
for t in ${HOST_TESTS:-}; do
	name=${t##*/}
	[ -z "${SUITE:-}" ] || echo ",$SUITE," | grep -q ",$name," || continue
	say "host suite $name"
	DLCHART=${DLCHART:-} DLK_FIXTURES=$TOP/tests/host/fixtures "$t" \
		>"$DLK_OUT/logs/host-$name.tap" 2>&1 || true
	"$KTAPSUM" parse -k host -o "$results/host-$name.tsv" \
		-t "$DLK_OUT/logs/host-$name.tap" -s "$name"
done

# The userspace people run with SCHED_DEADLINE (chrt, rt-tests, rt-app,
# stress-ng), as Debian packages them, on each kernel: tests/compat.
if [ -z "${SUITE:-}" ] || echo ",$SUITE," | grep -q ",compat,"; then
	say "compat suite (Debian's deadline userspace)"
	st=0
	KERNELS=$KERNELS DEBUG=$DEBUG INITRD=$INITRD \
		sh "$TOP/harness/compat.sh" >"$DLK_OUT/logs/compat.log" 2>&1 || st=$?
	for k in $KERNELS; do
		n=$(kernel_name "$k" "$DEBUG")
		tap=$DLK_OUT/compat/$n.tap
		[ -s "$tap" ] || printf '1..1\nnot ok 1 compat_ran # no TAP\n' >"$tap"
		"$KTAPSUM" parse -k "$n" -o "$results/compat-$n.tsv" -t "$tap" \
			-s compat
	done
	# A kernel report or a broken run, with every test passing.
	if [ "$st" != 0 ] && ! grep -qs '^not ok' "$DLK_OUT"/compat/*.tap; then
		printf '1..1\nnot ok 1 compat_clean # see %s\n' \
			"$DLK_OUT/logs/compat.log" >"$DLK_OUT/logs/compat-run.tap"
		"$KTAPSUM" parse -k host -o "$results/host-compat.tsv" \
			-t "$DLK_OUT/logs/compat-run.tap" -s compat
	fi
fi

echo
set --
for k in $KERNELS; do
	f=$results/$(kernel_name "$k" "$DEBUG").tsv
	[ -f "$f" ] && set -- "$@" "$f"
	f=$results/compat-$(kernel_name "$k" "$DEBUG").tsv
	[ -f "$f" ] && set -- "$@" "$f"
done
for f in "$results"/host.tsv "$results"/host-*.tsv; do
	[ -f "$f" ] && set -- "$@" "$f"
done
[ $# -gt 0 ] || die "no results: SUITE=${SUITE:-} selected nothing"
# The skips expected of the boots of tests/guest/boots (not of a boot of
# SMP=/ICOUNT='s shape): any other, or a listed one that did not happen,
# fails (harness/ktapsum.c: read_manifest()).
if [ -z "${SMP:-}" ] && [ -z "${ICOUNT:-}" ]; then
	set -- -m "$TOP/tests/guest/skips" "$@"
fi
"$KTAPSUM" summary "$@"
