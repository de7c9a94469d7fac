#!/bin/sh
# mkdeb.sh: the Debian package of the toolkit, dlk-tools, built with
# dpkg-deb (no debhelper, no source package), then checked by lintian
# when it is installed.  Run by 'make -C tools deb' (or the top 'make
# deb'), which sets:
#   VERSION  the toolkit's version (tools/lib/version.h)
#   O        a scratch directory for the build and the package's tree
#   DEBDIR   where the .deb goes
#   MAKE     the make that runs tools/Makefile
# The package: the three tools in /usr/bin, built with Debian's build
# flags and every hardening feature, stripped; their manual pages
# gzip -9n; /usr/share/doc/dlk-tools/copyright and changelog.Debian.gz;
# DEBIAN/control from tools/debian/control, with Depends computed by
# dpkg-shlibdeps, and md5sums.  Files belong to root (dpkg-deb
# --root-owner-group), so neither root nor fakeroot is needed.
set -eu

: "${VERSION:?}" "${O:?}" "${DEBDIR:?}"
MAKE=${MAKE:-make}
here=$(cd "$(dirname "$0")" && pwd)
tools=${here%/*}
pkg=dlk-tools
# The packaging's revision of VERSION: back to 1 when VERSION changes.
revision=1
debver=$VERSION-$revision
arch=$(dpkg --print-architecture)
root=$O/root
doc=$root/usr/share/doc/$pkg

die() {
	echo "mkdeb: $*" >&2
	exit 1
}

for c in dpkg-deb dpkg-shlibdeps dpkg-buildflags; do
	command -v "$c" >/dev/null || die "$c is missing (apt-get install dpkg-dev)"
done
umask 022
rm -rf "$O"
mkdir -p "$root/DEBIAN" "$doc" "$O/src/debian" "$DEBDIR"

# A reproducible package: the time of the last commit, not the build's,
# in the changelog and (dpkg-deb clamps mtimes to it) the archive.
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git -C "$tools" log -1 --format=%ct 2>/dev/null ||
		date +%s)
fi
export SOURCE_DATE_EPOCH

# Debian's flags, with bindnow and PIE too (hardening=+all), as
# lintian's hardening checks want.
eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)"
$MAKE -C "$tools" --no-print-directory O="$O/build" PREFIX=/usr \
	DESTDIR="$root" CFLAGS="$CFLAGS" CPPFLAGS="$CPPFLAGS" \
	LDFLAGS="$LDFLAGS" install >"$O/build.log" 2>&1 || {
	cat "$O/build.log" >&2
	die "building the tools failed"
}
bins=$(find "$root/usr/bin" -type f | sort)
# As dh_strip does: no debug symbols, no compiler comments.
# shellcheck disable=SC2086
strip --remove-section=.comment --remove-section=.note $bins

install -m 644 "$here/copyright" "$doc/copyright"
# The tags lintian reports that do not apply, each with its reason.
install -d "$root/usr/share/lintian/overrides"
install -m 644 "$here/lintian-overrides" \
	"$root/usr/share/lintian/overrides/$pkg"
maint=$(sed -n 's/^Maintainer: //p' "$here/control")
date=$(date -u -R -d "@$SOURCE_DATE_EPOCH")
{
	echo "$pkg ($debver) unstable; urgency=medium"
	echo
	echo "  * dlctl, dlgen and dlchart $VERSION, packaged by make deb"
	echo "    (tools/debian/mkdeb.sh).  What changed is in the project's"
	echo "    git history."
	echo
	echo " -- $maint  $date"
} | gzip -9n >"$doc/changelog.Debian.gz"
chmod 644 "$doc/changelog.Debian.gz"

# dpkg-shlibdeps wants a source tree's debian/control to name the package.
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$pkg" "$pkg" \
	>"$O/src/debian/control"
# shellcheck disable=SC2086
depends=$(cd "$O/src" && dpkg-shlibdeps -O $bins |
	sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || die "dpkg-shlibdeps found no dependency"

size=$(du -k -s --exclude=DEBIAN "$root" | cut -f1)
{
	sed -n '/^Package:/,/^Maintainer:/p' "$here/control"
	echo "Version: $debver"
	echo "Architecture: $arch"
	echo "Installed-Size: $size"
	echo "Depends: $depends"
	sed -n '/^Description:/,$p' "$here/control"
} >"$root/DEBIAN/control"
(cd "$root" && find usr -type f | LC_ALL=C sort | xargs md5sum) \
	>"$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

deb=$DEBDIR/${pkg}_${debver}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"

# lintian, if it is there (make deps installs it), with its pedantic and
# informational tags: a warning or an error fails the build.  The
# package's overrides (debian/lintian-overrides) say why each tag they
# silence does not apply.
if command -v lintian >/dev/null; then
	st=0
	lintian --pedantic --info --fail-on warning,error "$deb" \
		>"$O/lintian.log" 2>&1 || st=$?
	# Its advice to root is no finding about the package.
	grep -v '^running with root privileges is not recommended!$' \
		"$O/lintian.log" >&2 || true
	[ "$st" = 0 ] || die "lintian: $deb has warnings or errors"
	echo "lintian: no warning, no error"
else
	echo "mkdeb: lintian is not installed: the package is not checked" >&2
fi
