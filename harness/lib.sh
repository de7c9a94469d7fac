# shellcheck shell=sh
# Settings and helpers shared by the harness scripts; sourced, not run.
#
# Everything big (the extracted tree, its git repository, the kernel build
# directories, ccache) lives in $DLK_CACHE, outside the checkout, keyed by
# the base package version.  Logs of runs go to $DLK_OUT (default out/ in
# the checkout, ignored by git).

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)

die() {
	echo "error: $*" >&2
	exit 1
}

say() {
	echo ">> $*" >&2
}

# base_get KEY: a value from patches/BASE
base_get() {
	sed -n "s/^$1=//p" "$TOP/patches/BASE"
}

BASE_PKG=$(base_get package)
BASE_VER=$(base_get version)
BASE_TAR=$(base_get tarball)
BASE_SHA=$(base_get sha256)
[ -n "$BASE_PKG" ] && [ -n "$BASE_VER" ] || die "patches/BASE lacks package= or version="

DLK_CACHE=${DLK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dlk}
DLK_OUT=${DLK_OUT:-$TOP/out}
# Kbuild dislikes unusual characters in paths: '~' becomes '_'.
VDIR=$DLK_CACHE/$(echo "$BASE_VER" | tr '~:' '__')
GITDIR=$VDIR/src/stock
SRC_STOCK=$VDIR/src/stock
SRC_APPLY=$VDIR/src/apply
SRC_OURS=$VDIR/src/ours
SRC_DEV=$VDIR/src/dev
# The pristine tree with the fixes for its own implementation
# (patches/classic-fixes), and their developer's tree.
SRC_FIXED=$VDIR/src/fixed
SRC_CLASSIC_DEV=$VDIR/src/classic-dev

export CCACHE_DIR=${CCACHE_DIR:-$DLK_CACHE/ccache}
export CCACHE_BASEDIR=$VDIR
NPROC=$(nproc)

# git in the cache's repository, with an identity for git am's commits.
# gc.auto=0: an automatic gc after the tree's import runs detached for
# minutes, and would hold the cache lock (fd 9) it inherited meanwhile.
cgit() {
	git -c user.name="dlk harness" -c user.email=harness@dlk.invalid \
	    -c advice.detachedHead=false -c gc.auto=0 "$@"
}

# series_files [DIR]: the patch files listed in DIR/series (default
# patches/series), in order.
series_files() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' \
		"${1:-$TOP/patches}/series"
}

# The fixes for the tree's own implementation: a series of its own,
# applied to the same base as patches/series.
CLASSIC_DIR=$TOP/patches/classic-fixes

# kernel_src KERNEL: the source tree of stock, ours or fixed
kernel_src() {
	case $1 in
	stock) echo "$SRC_STOCK" ;;
	ours) echo "$SRC_OURS" ;;
	fixed) echo "$SRC_FIXED" ;;
	*) die "unknown kernel '$1' (stock, ours or fixed)" ;;
	esac
}

# cache_lock: hold the cache's lock until this script ends, so that two
# runs (make test beside make boot, say) never check out or build the
# same tree at once: the second waits for the first.
cache_lock() {
	mkdir -p "$VDIR"
	exec 9>"$VDIR/.lock"
	if ! flock -n 9; then
		say "waiting for another run's build in $VDIR"
		flock 9
	fi
}

# kernel_name KERNEL DEBUG: the name of a build variant
kernel_name() {
	if [ "${2:-0}" = 1 ]; then
		echo "$1-debug"
	else
		echo "$1"
	fi
}

kernel_image() {
	echo "$VDIR/build/$(kernel_name "$1" "${2:-0}")/arch/x86/boot/bzImage"
}

# cpio_pack DIR: DIR as a newc archive on stdout, owned by root
cpio_pack() {
	(cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet)
}
