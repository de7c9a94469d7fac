#!/bin/sh
# check.sh: the checks of the series, 'make check'.
#  - patches/series and the patch files agree, each patch is a git
#    format-patch mail with a "subsystem: summary" subject and a
#    Signed-off-by, and the series applies to the pinned tree;
#  - scripts/checkpatch.pl --strict reports nothing (no error, warning or
#    check) on any patch;
#  - with BISECT=1, every prefix of the series builds (ours' configuration),
#    incrementally in one build directory.
# The same checks but the build for the fixes of the tree's own
# implementation, patches/classic-fixes/ (a series of its own).
. "$(dirname "$0")/lib.sh"

bad=0
fail() {
	echo "FAIL  $*"
	bad=$((bad + 1))
}

# check_files DIR: DIR/series and DIR's patch files agree
check_files() {
	for p in $(series_files "$1"); do
		[ -f "$1/$p" ] || fail "${1#"$TOP"/}/series lists $p, which does not exist"
	done
	for f in "$1"/*.patch; do
		[ -e "$f" ] || continue
		# The cover letter (series.sh export) is no patch.
		[ "${f##*/}" = 0000-cover-letter.patch ] && continue
		series_files "$1" | grep -qx "$(basename "$f")" ||
			fail "$(basename "$f") is not in ${1#"$TOP"/}/series"
	done
}

check_files "$TOP/patches"
if [ -f "$CLASSIC_DIR/series" ]; then
	check_files "$CLASSIC_DIR"
fi

sh "$TOP/harness/tree.sh"
if [ -f "$CLASSIC_DIR/series" ]; then
	sh "$TOP/harness/tree.sh" fixed
fi

# check_patches DIR [OPTIONS]: each patch of DIR/series is a mail with a subject
# and a Signed-off-by, and checkpatch --strict clean
check_patches() {
	for p in $(series_files "$1"); do
		f=$1/$p
		n=${f#"$TOP"/patches/}
		subj=$(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$f")
		printf '%s\n' "$subj" | grep -q '^[a-z0-9/_ -]*: [A-Za-z]' ||
			fail "$n: subject '$subj' is not 'subsystem: Summary'"
		grep -q '^Signed-off-by: ' "$f" || fail "$n: no Signed-off-by"
		# Clean means exit 0 and a total of nothing: a checkpatch that
		# crashed or printed nothing is not a clean one.  Its SPDX check
		# runs python3, which must be Debian's (with python3-ply), not
		# one that an earlier PATH entry puts first; a traceback from it
		# is not clean either.  $2 is more options: the series for
		# the tree's code names the commits it fixes, which the pinned
		# tree, a release without its history, cannot look up.
		st=0
		out=$(cd "$SRC_STOCK" && PATH=/usr/bin:/bin:$PATH \
			perl scripts/checkpatch.pl --strict ${2:-} \
			--show-types --summary-file "$f" 2>&1) || st=$?
		if [ $st = 0 ] && printf '%s\n' "$out" |
			grep -q 'total: 0 errors, 0 warnings, 0 checks' &&
			! printf '%s\n' "$out" | grep -q '^Traceback'; then
			echo "ok    $n: checkpatch --strict clean"
		else
			printf '%s\n' "$out"
			fail "$n: checkpatch --strict is not clean (exit $st)"
		fi
	done
}

check_patches "$TOP/patches"
if [ -f "$CLASSIC_DIR/series" ]; then
	check_patches "$CLASSIC_DIR" "--ignore UNKNOWN_COMMIT_ID"
fi

if [ "${BISECT:-0}" = 1 ]; then
	i=0
	cd "$SRC_APPLY"
	cgit checkout -q -f --detach base
	for p in $(series_files); do
		i=$((i + 1))
		cgit am -q "$TOP/patches/$p" || { cgit am --abort; fail "$p does not apply"; break; }
		if BUILD_SRC=$SRC_APPLY BUILD_NAME=bisect LENIENT=1 \
			sh "$TOP/harness/build-kernel.sh" ours >"$VDIR/bisect.log" 2>&1; then
			echo "ok    builds with patches 1-$i ($p)"
		else
			tail -20 "$VDIR/bisect.log"
			fail "the series does not build at patch $i ($p)"
		fi
	done
fi

[ $bad = 0 ] || die "$bad check(s) failed"
say "all checks passed"
