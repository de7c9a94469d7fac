#!/bin/sh
# Prepare the kernel trees in the cache:
#   stock  the pristine tree of the pinned package, and the git repository
#          whose first commit ("base") is that tree;
#   apply  a scratch worktree where the series is applied with git am;
#   ours   the worktree ours is built from.  It is moved to the commit git
#          am produced with git checkout, which rewrites only the files
#          whose content differs, so a change to one patch leaves the mtime
#          of every other file alone and the rebuild stays small.
# With the argument "fixed" (make test KERNELS=fixed), the tree of the
# third kernel instead, made in the same way: the pristine tree with the
# fixes for its own implementation (patches/classic-fixes/series).
. "$(dirname "$0")/lib.sh"
cache_lock

check_package() {
	have=$(dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null || true)
	[ -n "$have" ] || die "$BASE_PKG is not installed (run: make deps)"
	[ "$have" = "$BASE_VER" ] ||
		die "$BASE_PKG $have is installed but patches/BASE pins $BASE_VER;" \
		    "install it with: apt-get install $BASE_PKG=$BASE_VER"
	[ -f "$BASE_TAR" ] || die "$BASE_TAR is missing; reinstall $BASE_PKG"
}

extract_stock() {
	[ -f "$VDIR/src/.stock-done" ] && return 0
	say "extracting $BASE_PKG $BASE_VER into $SRC_STOCK"
	sum=$(sha256sum "$BASE_TAR" | cut -d' ' -f1)
	[ "$sum" = "$BASE_SHA" ] ||
		die "$BASE_TAR has sha256 $sum, patches/BASE expects $BASE_SHA"
	rm -rf "$VDIR/src"
	mkdir -p "$VDIR/src/tmp"
	tar -xf "$BASE_TAR" -C "$VDIR/src/tmp"
	mv "$VDIR/src/tmp"/linux-source-* "$SRC_STOCK"
	rmdir "$VDIR/src/tmp"
	say "importing the tree into git (base commit)"
	# The tarball's .gitignore ignores everything but debian/: -f.
	cgit -C "$SRC_STOCK" init -q -b base-branch
	cgit -C "$SRC_STOCK" add -A -f
	cgit -C "$SRC_STOCK" commit -q -m "base: $BASE_PKG $BASE_VER"
	cgit -C "$SRC_STOCK" tag base
	touch "$VDIR/src/.stock-done"
}

# series_hash DIR: identifies the content of the series in DIR, to skip
# re-applying it
series_hash() {
	{
		cat "$1/series"
		series_files "$1" | while read -r p; do
			cat "$1/$p"
		done
	} | sha256sum | cut -d' ' -f1
}

# apply_series DIR: the series in DIR applied to base in $SRC_APPLY; prints
# the commit it ends at
apply_series() {
	if [ ! -d "$SRC_APPLY" ]; then
		cgit -C "$GITDIR" worktree prune
		cgit -C "$GITDIR" worktree add -q --detach "$SRC_APPLY" base
	fi
	cd "$SRC_APPLY"
	if [ -d "$(cgit rev-parse --git-path rebase-apply)" ]; then
		cgit am --abort >/dev/null 2>&1 || true
	fi
	cgit checkout -q -f --detach base
	cgit clean -q -f -d -x
	rel=${1#"$TOP"/}
	for p in $(series_files "$1"); do
		f=$1/$p
		[ -f "$f" ] || die "$rel/series lists $p, which does not exist"
		if ! cgit am -q --whitespace=error-all "$f" >"$VDIR/am.log" 2>&1; then
			cat "$VDIR/am.log" >&2
			cgit am --abort >/dev/null 2>&1 || true
			die "$rel/$p does not apply to $BASE_PKG $BASE_VER without fuzz"
		fi
	done
	cgit rev-parse HEAD
}

# update_tree TREE COMMIT: the generated worktree TREE moved to COMMIT
update_tree() {
	if [ ! -d "$1" ]; then
		cgit -C "$GITDIR" worktree prune
		cgit -C "$GITDIR" worktree add -q --detach "$1" "$2"
		return 0
	fi
	cd "$1"
	[ -z "$(cgit status --porcelain --untracked-files=no)" ] ||
		die "$1 has local changes; the tree is generated (work in the" \
		    "developer's tree: make dev-tree, or harness/series.sh classic-dev)"
	cgit checkout -q --detach "$2"
}

check_package
extract_stock
case ${1:-ours} in
ours) name=ours dir=$TOP/patches tree=$SRC_OURS ;;
fixed) name=fixed dir=$CLASSIC_DIR tree=$SRC_FIXED ;;
*) die "usage: tree.sh [fixed]" ;;
esac
want=$(series_hash "$dir")
if [ -d "$tree" ] && [ "$(cat "$VDIR/src/.$name-series" 2>/dev/null)" = "$want" ]; then
	exit 0
fi
say "applying ${dir#"$TOP"/}/series with git am"
commit=$(apply_series "$dir")
update_tree "$tree" "$commit"
echo "$want" >"$VDIR/src/.$name-series"
say "$name is at $(cgit -C "$tree" log -1 --format='%h %s')"
