#!/bin/sh
# deps.sh [deb]: install with apt-get whatever the harness needs and is
# missing, the kernel package at the version patches/BASE pins; with
# "deb", what make deb needs too.  Quiet and quick when everything is there.
. "$(dirname "$0")/lib.sh"

pkgs="build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils
kmod git ccache perl python3 python3-ply python3-git qemu-system-x86
busybox-static"
# make deb: dpkg-deb and dpkg-shlibdeps, lintian for the tools' package;
# the tree's bindeb-pkg checks its build dependencies, debhelper and rsync
# among them.  No fakeroot: dpkg-deb --root-owner-group, and the tree's
# packaging says Rules-Requires-Root: no.
for group; do
	case $group in
	deb) pkgs="$pkgs dpkg-dev lintian debhelper rsync" ;;
	*) die "deps.sh: unknown group '$group' (deb)" ;;
	esac
done

missing=
for p in $pkgs; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing="$missing $p"
done
have=$(dpkg-query -W -f='${Status} ${Version}' "$BASE_PKG" 2>/dev/null || true)
case $have in
"install ok installed $BASE_VER") ;;
"install ok installed "*)
	die "$BASE_PKG ${have##* } is installed but patches/BASE pins $BASE_VER;" \
	    "install it with: apt-get install $BASE_PKG=$BASE_VER"
	;;
*) missing="$missing $BASE_PKG=$BASE_VER" ;;
esac
[ -z "$missing" ] && exit 0

[ "$(id -u)" = 0 ] || die "missing packages:$missing (run as root, or install them)"
say "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || die "apt-get update failed"
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing ||
	die "apt-get install failed (is $BASE_PKG=$BASE_VER still in the archive?)"
