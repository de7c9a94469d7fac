#!/bin/sh
# deb-kernel.sh [CONFIG]: Debian packages of ours, made by the tree's
# bindeb-pkg, into $DLK_OUT/deb: linux-image-RELEASE and
# linux-headers-RELEASE (the tree's linux-libc-dev and -dbg packages are
# left out: a machine keeps its distribution's).
#
# Without CONFIG: from the harness's build of ours (build-kernel.sh ours,
# run first by 'make deb'), the lean configuration the tests boot in QEMU
# (configs/): release 6.12.N-ours, with the same make variables as that
# build, so Kbuild only relinks (the package's revision is in uname -v).
# It has no disk or network drivers: it is for QEMU and for trying the
# package, not for a real machine.
#
# With CONFIG, a distribution's configuration (make deb
# KCONFIG=/boot/config-$(uname -r)): a build of its own, in
# $VDIR/build/ours-distro, of that configuration with the series' choices
# (configs/ours.config without its KUnit suite, which would run at every
# boot), no debug info and no trusted keys of the distribution's; release
# 6.12.N-ours-distro.  A full distribution kernel: an hour or more on a
# few cores, the first time.
. "$(dirname "$0")/lib.sh"

config=${1:-}
src=$SRC_OURS
[ -f "$src/Makefile" ] || die "$src is missing (run harness/tree.sh)"
maint=$(sed -n 's/^Maintainer: //p' "$TOP/tools/debian/control")
out=$DLK_OUT/deb
mkdir -p "$out"

cache_lock
if [ -z "$config" ]; then
	name=ours
	build=$VDIR/build/$name
	[ -f "$build/arch/x86/boot/bzImage" ] ||
		die "no build of ours in $build (make kernels KERNELS=ours)"
else
	[ -f "$config" ] || die "$config: no such configuration"
	name=ours-distro
	build=$VDIR/build/$name
	mkdir -p "$build"
	# The series' choices over the distribution's, as build-kernel.sh
	# merges configs/ours.config; olddefconfig below fills in the rest.
	frag=$build/dlk-distro.config
	{
		grep -v KUNIT "$TOP/configs/ours.config"
		echo '# CONFIG_SCHED_DL_EDF_CBS_KUNIT_TEST is not set'
		echo '# CONFIG_LOCALVERSION_AUTO is not set'
		echo 'CONFIG_LOCALVERSION=""'
		echo 'CONFIG_SYSTEM_TRUSTED_KEYS=""'
		echo 'CONFIG_SYSTEM_REVOCATION_KEYS=""'
		echo 'CONFIG_DEBUG_INFO_NONE=y'
		echo '# CONFIG_DEBUG_INFO_DWARF5 is not set'
		echo '# CONFIG_DEBUG_INFO_DWARF4 is not set'
		echo '# CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT is not set'
	} >"$frag"
	(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$build" \
		"$config" "$frag") >"$build/merge.log" 2>&1 || {
		cat "$build/merge.log" >&2
		die "merging $config failed"
	}
fi

# make_ours TARGET...: make in the tree with the variables of
# build-kernel.sh's build: any other CC or LOCALVERSION would rebuild it all.
make_ours() {
	make -C "$src" O="$build" -j"$NPROC" --no-print-directory \
		CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION="-$name" \
		KBUILD_BUILD_USER=dlk KBUILD_BUILD_HOST=dlk "$@"
}

if [ -n "$config" ]; then
	make_ours -s olddefconfig
	for sym in SCHED_DL_EDF_CBS COMPONENT_INDEXED; do
		grep -q "^CONFIG_$sym=y" "$build/.config" ||
			die "$config: CONFIG_$sym is not in the final .config"
	done
fi
release=$(make_ours -s kernelrelease)
say "packaging $release ($build)"
# bindeb-pkg writes the packages, .buildinfo and .changes beside the
# build directory: cleared first, so that only this run's are moved.
rm -f "$VDIR/build/"linux-*_*.deb "$VDIR/build/"linux-upstream_*
log=$DLK_OUT/logs/deb-kernel-$name.log
mkdir -p "${log%/*}"
DEBFULLNAME=${maint% <*} DEBEMAIL=$(echo "$maint" | sed 's/.*<\(.*\)>/\1/') \
	KDEB_CHANGELOG_DIST=unstable make_ours bindeb-pkg >"$log" 2>&1 || {
	tail -n 30 "$log" >&2
	die "bindeb-pkg of $release failed (whole log: $log)"
}
rm -f "$out/linux-image-${release}_"*.deb "$out/linux-headers-${release}_"*.deb
image=
for deb in "$VDIR/build/linux-image-${release}_"*.deb \
	"$VDIR/build/linux-headers-${release}_"*.deb; do
	# No match: no headers package (no CONFIG_MODULES), or no image.
	[ -f "$deb" ] || continue
	case $deb in */linux-image-*) image=$deb ;; esac
	mv "$deb" "$out/"
	echo "$out/${deb##*/}"
done
rm -f "$VDIR/build/"linux-*_*.deb "$VDIR/build/"linux-upstream_*
[ -n "$image" ] || die "bindeb-pkg made no linux-image-$release package (see $log)"
