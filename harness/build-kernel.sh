#!/bin/sh
# build-kernel.sh KERNEL [DEBUG]: configure and build stock, ours or fixed.
# For check.sh's bisection builds, BUILD_SRC and BUILD_NAME override the
# tree and the build directory, and LENIENT=1 accepts config symbols that
# a prefix of the series does not define yet.
#
# The kernels get the same configuration: tinyconfig's fragments, then
# configs/base.config (and configs/debug.config for DEBUG=1); ours adds
# configs/ours.config, which only sets the series' Kconfig choices.  Fixed
# (the pristine tree with patches/classic-fixes) is configured as stock.  The
# configuration is generated in a scratch directory and copied into the
# build directory only when it differs, so an unchanged configuration
# never makes Kbuild rebuild anything.
. "$(dirname "$0")/lib.sh"
cache_lock

kernel=$1
debug=${2:-0}
src=${BUILD_SRC:-$(kernel_src "$kernel")}
name=${BUILD_NAME:-$(kernel_name "$kernel" "$debug")}
build=$VDIR/build/$name
scratch=$VDIR/build/$name.kconfig

[ -f "$src/Makefile" ] || die "$src is missing (run harness/tree.sh)"
frags="$src/kernel/configs/tiny-base.config $src/kernel/configs/tiny.config"
frags="$frags $src/arch/x86/configs/tiny.config $TOP/configs/base.config"
[ "$kernel" = ours ] && frags="$frags $TOP/configs/ours.config"
[ "$debug" = 1 ] && frags="$frags $TOP/configs/debug.config"

# tree_state: the tree's commit and any uncommitted change in it; empty
# when the tree is not a git checkout.
tree_state() {
	head=$(git -C "$src" rev-parse HEAD 2>/dev/null) || return 0
	echo "$head"
	git -C "$src" status --porcelain --untracked-files=all
	# A file edited again stays "M": its content has to be in the state.
	git -C "$src" diff HEAD | sha256sum
	git -C "$src" ls-files -z --others --exclude-standard |
		(cd "$src" && xargs -0r sha256sum)
}

mkdir -p "$build" "$scratch"
tree=$(tree_state)
# The merged configuration depends only on the fragments, the tree and
# this script; merging again costs some 3 s.
# shellcheck disable=SC2086
inputs=$(printf '%s\n' "$tree"; cat $frags "$0")
if [ -z "$tree" ] || [ ! -f "$scratch/.config" ] ||
	[ "$inputs" != "$(cat "$scratch/inputs" 2>/dev/null)" ]; then
	rm -f "$scratch/inputs"
	(
		cd "$src"
		# -n: start from allnoconfig, as tinyconfig does.
		scripts/kconfig/merge_config.sh -n -O "$scratch" $frags
	) >"$scratch/merge.log" 2>&1 || {
		cat "$scratch/merge.log" >&2
		die "configuring $name failed"
	}
	[ -z "$tree" ] || printf '%s\n' "$inputs" >"$scratch/inputs"
fi
# merge_config.sh only warns when a requested value is dropped.  Ours is a
# bug (a fragment must say what the kernel gets), so fail on those; the
# tree's tiny fragments carry 32-bit-only lines, which are ignored.
dropped=$(sed -n 's/^Value requested for \(CONFIG_[A-Za-z0-9_]*\) not in.*/\1/p' \
	"$scratch/merge.log")
[ "${LENIENT:-0}" = 1 ] && dropped=
for sym in $dropped; do
	# shellcheck disable=SC2086
	if grep -q "^$sym=\|^# $sym is not set" $(echo $frags | tr ' ' '\n' | grep "^$TOP/configs/"); then
		grep -A2 "^Value requested for $sym " "$scratch/merge.log" >&2
		die "$name: $sym from configs/ is not in the final .config"
	fi
done
if ! cmp -s "$scratch/.config" "$build/.config"; then
	say "$name: configuration changed"
	cp "$scratch/.config" "$build/.config"
fi

# progress NAME: Kbuild's output on stdin, one line per 500 build steps
# instead of a line per step; anything else (warnings, errors) as it is.
progress() {
	awk -v name="$1" '
		/^  [A-Z][A-Z0-9_]* / {
			if (++n % 500 == 0)
				printf ">> %s: %d build steps\n", name, n
			next
		}
		{ print }
		END { if (n) printf ">> %s: %d build steps, done\n", name, n }' >&2
}

# build_state: what the last build was made from: the tree's state, the
# configuration, the compiler and this script.  When it is unchanged, Kbuild is not run at all: walking the
# tree only to find nothing to do costs some 10 s per kernel.  Without
# git (a tree that is not a checkout) there is no state and Kbuild runs.
build_state() {
	[ -n "$tree" ] || return 0
	printf '%s\n' "$tree"
	cat "$build/.config" "$0"
	gcc --version | head -1
}
state=$(build_state)
image=$build/arch/x86/boot/bzImage
if [ -n "$state" ] && [ -f "$image" ] &&
	[ "$state" = "$(cat "$build/.dlk-state" 2>/dev/null)" ]; then
	say "$name: up to date ($image)"
	rebuilt=0
else
	rm -f "$build/.dlk-state"
	say "building $name ($src)"
	# LOCALVERSION names the kernel in uname -r (and keeps setlocalversion
	# from looking at git); fixed user and host keep the build
	# reproducible.
	# set -e would end the group at a failing make, before its status
	# is written: catch it, and never read a status left by another run.
	rm -f "$scratch/make.rc"
	{
		rc=0
		make -C "$src" O="$build" -j"$NPROC" --no-print-directory \
			CC="ccache gcc" HOSTCC="ccache gcc" \
			LOCALVERSION="-$name" KBUILD_BUILD_USER=dlk \
			KBUILD_BUILD_HOST=dlk olddefconfig bzImage modules 2>&1 ||
			rc=$?
		echo "$rc" >"$scratch/make.rc"
	} | progress "$name"
	[ "$(cat "$scratch/make.rc" 2>/dev/null)" = 0 ] || die "building $name failed"
	[ -z "$state" ] || printf '%s\n' "$state" >"$build/.dlk-state"
	say "$name: $image"
	rebuilt=1
fi

# The tests built as modules against this kernel (tests/modules: KUnit
# suites that must run unchanged on the pristine tree).  Kbuild writes its
# objects beside the sources, so they are copied out of the repository
# first; only changed files are copied, so an unchanged module is not
# rebuilt.  The .ko files land in $VDIR/modules/NAME/root/lib/modules/dlk,
# which boot.sh puts into the guest.
mods=$VDIR/modules/$name
mkdir -p "$mods/src" "$mods/root/lib/modules/dlk"
for f in "$TOP"/tests/modules/*; do
	cmp -s "$f" "$mods/src/${f##*/}" && continue
	cp "$f" "$mods/src/"
	rebuilt=1
done
# Likewise, unchanged modules for an unchanged kernel are not rebuilt.
if [ "$rebuilt" = 0 ] && [ -f "$mods/built" ]; then
	say "test modules for $name: up to date"
	exit 0
fi
rm -f "$mods/built"
say "building test modules for $name"
# DLK_KERNEL tells them which kernel they are for (tests/modules/Kbuild).
make -C "$build" M="$mods/src" -j"$NPROC" -s CC="ccache gcc" \
	KBUILD_BUILD_USER=dlk KBUILD_BUILD_HOST=dlk DLK_KERNEL="$kernel" modules ||
	die "$name: the test modules in tests/modules do not build"
rm -f "$mods"/root/lib/modules/dlk/*.ko
cp "$mods"/src/*.ko "$mods/root/lib/modules/dlk/"
: >"$mods/built"
