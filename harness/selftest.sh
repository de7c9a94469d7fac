#!/bin/sh
# selftest.sh: the harness's own tests, as TAP on stdout.  Each boots a
# kernel with something that goes wrong on purpose (a failing test, a
# suite with no plan, one that stops short, one past its time limit, a
# hung guest, a kernel crash) and checks that the parser turns it into the
# failure it is, by name, and that the verdict is a failure.  Known
# defects count only where the defect's own check fired (or its expected
# panic came); the skips of a run must be the listed ones.
. "$(dirname "$0")/lib.sh"
# Failures are what this script looks for: it checks every status itself.
set +e

: "${KTAPSUM:?}" "${INITRD:?}" "${SELFTEST_ADD:?}"
KERNEL=${KERNEL:-ours}
export KERNEL
work=$DLK_OUT/logs/selftest
rm -rf "$work"
mkdir -p "$work"
n=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
	fi
}

# expect NAME FILE PATTERN: FILE has a line matching PATTERN
expect() {
	grep -q -- "$3" "$2"
	r=$?
	[ $r = 0 ] || echo "# $1: no line matching '$3' in $2"
	ok $r "$1"
}

# verdict DIR [PARSE ARGS...]: parse a boot's logs, summarise into DIR/summary
verdict() {
	d=$1
	shift
	rm -f "$d/r.tsv"
	"$KTAPSUM" parse -k st -o "$d/r.tsv" -c "$d/console.log" \
		-g "$d/guest.log" "$@"
	"$KTAPSUM" summary "$d/r.tsv" >"$d/summary" 2>&1
	echo $? >"$d/summary.rc"
}

echo "TAP version 13"
echo "1..42"

# 1. Guest suites that go wrong, in one boot (st-missing is expected but
# not in the list the guest has; the panics have boots of their own).
d=$work/suites
MODE=test ADD=$SELFTEST_ADD TIMEOUT=120 LOGDIR=$d \
	SUITES=st-tap,st-noplan,st-short,st-slow,st-good,st-kmark \
	sh "$TOP/harness/boot.sh" >/dev/null 2>&1
verdict "$d" -D -e st-tap,st-noplan,st-short,st-slow,st-good,st-kmark,st-missing
s=$d/summary
expect "a failing test is named" "$s" "^FAIL  st/st-tap: deliberate_failure"
expect "its diagnostic is shown" "$s" "this test fails on purpose"
expect "a test killed by a signal fails" "$s" "^FAIL  st/st-tap: dies_of_a_signal"
expect "passes, skips and known defects are counted" "$s" "st-tap  *2 passed, 8 failed, 1 skipped, 1 known defects"
expect "a defect check that fired is a known defect" "$s" "^KNOWN st/st-tap: defect_fires"
expect "with the defect's reason" "$s" "^        yes SELFTEST: fires on purpose"
expect "a marked test whose defect check did not fire fails" "$s" "^FAIL  st/st-tap: defect_does_not_fire"
expect "an unrelated failing check in a marked test fails" "$s" "^FAIL  st/st-tap: defect_and_other_failure"
expect "a REQUIRE before the defect check fails" "$s" "^FAIL  st/st-tap: require_before_defect"
expect "a signal after the defect check fired fails" "$s" "^FAIL  st/st-tap: defect_then_signal"
expect "an expected panic that did not come fails" "$s" "^FAIL  st/st-tap: panic_that_does_not_come"
expect "a defect check of another kind is a check" "$s" "^FAIL  st/st-tap: defect_check_elsewhere_fails"
expect "a suite with no plan fails" "$s" "^FAIL  st/st-noplan: st-noplan printed no plan"
expect "a suite short of its plan fails" "$s" "^FAIL  st/st-short: st-short planned 3 tests but reported 2"
expect "a suite past its time limit fails" "$s" "^FAIL  st/st-slow: killed after its time limit of 3s"
expect "the suites after it still run" "$s" "st-good  *1 passed, 0 failed"
expect "a suite that never started fails" "$s" "^FAIL  st/st-missing: never started"
expect "a KUnit case whose defect check fired is a known defect" "$s" "^KNOWN st/st-kmark: a/fired"
expect "a KUnit case whose defect check fired and another failed fails" "$s" "^FAIL  st/st-kmark: b/fired_and_other_failed"
! grep -q "failed without a failing test" "$s"
ok $? "a suite failing only by known defects is not a failure of its own"
[ "$(cat "$d/summary.rc")" = 1 ]
ok $? "the verdict of a run with failures is a failure"

# 2. A guest that never powers off is killed at its time limit.
d=$work/hang
st=0
MODE=run RUN='sleep 1000' TIMEOUT=8 LOGDIR=$d sh "$TOP/harness/boot.sh" >/dev/null 2>&1 || st=$?
[ $st = 124 ]
ok $? "a hung guest is killed at its time limit (boot.sh exit $st)"
verdict "$d" -D -T 8
expect "a hung guest is a failure" "$d/summary" "^FAIL  st/boot: the guest hung: killed after 8s"

# 3. A kernel crash is found in the console log.
d=$work/crash
MODE=run RUN='echo c >/proc/sysrq-trigger' TIMEOUT=60 LOGDIR=$d sh "$TOP/harness/boot.sh" >/dev/null 2>&1
verdict "$d"
expect "a kernel panic in the console log is a failure" "$d/summary" "^FAIL  st/kernel-log: console line [0-9]*: Kernel panic"

# 3b. A crash in pick_task_fair() is named as the tree's sched/debug race.
d=$work/eevdf
mkdir -p "$d"
printf '%s\n' '[    6.5] BUG: kernel NULL pointer dereference, address: 0000000000000051' \
	'[    6.5] Oops: Oops: 0000 [#1] PREEMPT SMP' \
	'[    6.5] RIP: 0010:pick_task_fair+0x38/0xc0' >"$d/console.log"
: >"$d/guest.log"
verdict "$d"
expect "a NULL pick in pick_task_fair() is named as the tree's race" "$d/summary" "RIP in pick_task_fair(): likely the 6.12.118 tree's race"

# 4. make boot passes the command's exit status on.
d=$work/status
st=0
MODE=run RUN='echo hello; exit 3' TIMEOUT=60 LOGDIR=$d sh "$TOP/harness/boot.sh" >/dev/null 2>&1 || st=$?
[ $st = 3 ] && grep -q '^hello' "$d/guest.log"
ok $? "boot RUN= returns the command's status and output (got $st)"

# 5. A panic a test expects (tests/lib/tap.h: tap_expect_panic()) is that
# known defect, and the boot it ended is no failure; another panic is one.
d=$work/panic
MODE=test ADD=$SELFTEST_ADD SUITES=st-panic TIMEOUT=60 LOGDIR=$d \
	sh "$TOP/harness/boot.sh" >/dev/null 2>&1
verdict "$d" -D -e st-panic
expect "an expected panic is a known defect" "$d/summary" "^KNOWN st/st-panic: expected_panic_comes"
! grep -q "^FAIL" "$d/summary" && [ "$(cat "$d/summary.rc")" = 0 ]
ok $? "the boot an expected panic ended is no failure"
d=$work/panic-other
MODE=test ADD=$SELFTEST_ADD SUITES=st-panic-other TIMEOUT=60 LOGDIR=$d \
	sh "$TOP/harness/boot.sh" >/dev/null 2>&1
verdict "$d" -D -e st-panic-other
expect "a panic other than the expected one is a failure" "$d/summary" "^FAIL  st/kernel-log: console line [0-9]*: Kernel panic - not syncing: sysrq triggered crash"
expect "the suite it cut short fails" "$d/summary" "^FAIL  st/st-panic-other: did not finish"
! grep -q "^KNOWN" "$d/summary"
ok $? "another panic is no known defect"

# 6. The skips a run expects (ktapsum summary -m): a skip the list does not
# have fails, and so does a listed one that did not happen; the kernels it
# holds are those its "kernels" line names, with or without skips; another
# is not checked, and the summary says so.
d=$work/skips
mkdir -p "$d"
printf '%s\t%s\t%s\t%s\t%s\n' \
	k b1/s SKIP listed 'needs 2 CPUs' \
	k b1/s SKIP unlisted 'needs 2 CPUs' \
	k b1/s SKIP other_reason 'the host was slow' \
	k b1/s PASS ran '' \
	k kunit:x SKIP case 'one CPU' \
	k2 b1/s SKIP any 'needs 2 CPUs' \
	k-debug b1/s SKIP unlisted 'needs 2 CPUs' >"$d/r.tsv"
printf '%s\n' '# kernel boot suite/test reason' 'kernels k k2' \
	'k b1 s/listed needs * CPUs' 'k b1 s/other_reason needs 2 CPUs' \
	'k b1 s/ran needs 2 CPUs' 'k - kunit:x/case one CPU' \
	'k b2 s/elsewhere the suite did not run' \
	'k b1 ?s/ran the host was slow' 'k b1 ?s/maybe needs 2 CPUs' \
	'k - ?kunit:x/case one CPU' >"$d/skips"
"$KTAPSUM" summary -m "$d/skips" "$d/r.tsv" >"$d/summary" 2>&1
echo $? >"$d/summary.rc"
s=$d/summary
expect "a listed skip is a skip" "$s" "^  b1/s  *1 passed, 4 failed, 1 skipped"
expect "an unlisted skip fails" "$s" "^FAIL  k/b1/s: unlisted"
expect "a skip for another reason than the listed one fails" "$s" "^FAIL  k/b1/s: other_reason"
expect "a listed skip that did not happen fails" "$s" "^FAIL  k/b1/s: ran"
expect "a skip of a suite of no boot is listed with -" "$s" "^  kunit:x  *0 passed, 0 failed, 1 skipped"
! grep -q "elsewhere" "$s"
ok $? "a listed skip of a suite that did not run is no failure"
! grep -q ": maybe" "$s"
ok $? "a skip listed as one that may happen need not"
expect "a kernel listed without skips is checked" "$s" "^FAIL  k2/b1/s: any"
expect "a kernel the list does not hold is not checked, and said so" "$s" "^k-debug's 1 skips are not checked"
[ "$(cat "$s.rc")" = 1 ]
ok $? "the verdict of a run with unlisted skips is a failure"

# make help: each .PHONY target of the Makefile has its line (the
# comment block at the Makefile's top, which help prints).
help=$(MAKEFLAGS= make -s --no-print-directory -C "$TOP" help 2>&1)
missing=
for t in $(sed -e :a -e '/\\$/N; s/\\\n//; ta' "$TOP/Makefile" |
	sed -n 's/^\.PHONY://p'); do
	printf '%s\n' "$help" | grep -Eq "(^|[^a-z-])make $t([^a-z-]|\$)" ||
		missing="$missing $t"
done
[ -z "$missing" ] || echo "# make help has no line for:$missing"
[ -z "$missing" ]
ok $? "make help lists every .PHONY target"
