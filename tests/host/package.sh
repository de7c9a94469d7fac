#!/bin/sh
# package: the toolkit as a user installs it.  Builds the Debian package
# as make deb-tools does (tools/Makefile's deb, lintian included when it
# is installed) in a scratch directory, installs it into a scratch root
# with dpkg --root (a database of its own: the host's is not touched),
# runs the installed tools (dlctl --version, dlgen --help, dlchart on the
# host suites' recorded trace, tests/host/fixtures/dl3-smp2) and removes
# it; then checks that make install DESTDIR= puts the same tools and
# manual pages under PREFIX.  TAP on stdout, as the other host suites.
#
# DLK_TOP is the checkout (default: the one holding this script),
# DLK_FIXTURES the fixtures' directory (default tests/host/fixtures).
set -u

top=${DLK_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
fixtures=${DLK_FIXTURES:-$top/tests/host/fixtures}
# Whatever make or run called this, the makes here are its own.
unset MAKEFLAGS MFLAGS MAKELEVEL DLK_OUT
s=$(mktemp -d) || exit 1
trap 'rm -rf "$s"' EXIT
trap 'exit 1' INT TERM
root=$s/root
tools="dlctl dlgen dlchart"
version=$(make -s -C "$top/tools" version)
arch=$(dpkg --print-architecture)
deb=$s/deb/dlk-tools_$version-1_$arch.deb
n=0

# check NAME FUNCTION: one test; what the function prints is its
# diagnostic, shown when it fails.
check() {
	n=$((n + 1))
	if "$2" >"$s/log" 2>&1; then
		echo "ok $n $1"
	else
		echo "not ok $n $1"
		sed 's/^/# /' "$s/log"
	fi
}

# want MESSAGE COMMAND...: COMMAND succeeds, or MESSAGE and status 1.
want() {
	msg=$1
	shift
	"$@" && return 0
	echo "$msg"
	return 1
}

# same FILE EXPECTED: FILE holds EXPECTED (lines), or a diff.
same() {
	if [ -n "$2" ]; then
		printf '%s\n' "$2" >"$s/want"
	else
		: >"$s/want"
	fi
	diff -u "$s/want" "$1"
}

# The files the package and make install put there, under PREFIX $1.
files_under() {
	for t in $tools; do
		echo "$1/bin/$t"
	done
	for t in $tools; do
		echo "$1/share/man/man1/$t.1.gz"
	done
}

deb_built() {
	make -C "$top/tools" --no-print-directory deb O="$s/build" \
		DEBDIR="$s/deb" || return 1
	want "no $deb" test -f "$deb" || return 1
	ls "$s/deb" >"$s/list"
	same "$s/list" "${deb##*/}"
}

deb_control() {
	dpkg-deb -f "$deb" Package Version Architecture >"$s/ctl" || return 1
	same "$s/ctl" "Package: dlk-tools
Version: $version-1
Architecture: $arch" || return 1
	dep=$(dpkg-deb -f "$deb" Depends)
	min=$(echo "$dep" | sed -n 's/^libc6 (>= \([^)]*\))$/\1/p')
	want "Depends: $dep, not libc6 (>= VERSION) alone" test -n "$min" ||
		return 1
	have=$(dpkg-query -W -f '${Version}' libc6)
	want "libc6 $have here, the package wants >= $min" \
		dpkg --compare-versions "$have" ge "$min"
}

# Every file, its mode and owner: root's, dpkg-deb --root-owner-group.
deb_files() {
	dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $1, $2, $6 }' |
		LC_ALL=C sort -k3 >"$s/files" || return 1
	{
		for t in $tools; do
			echo "-rwxr-xr-x root/root ./usr/bin/$t"
		done
		for f in changelog.Debian.gz copyright; do
			echo "-rw-r--r-- root/root ./usr/share/doc/dlk-tools/$f"
		done
		echo "-rw-r--r-- root/root ./usr/share/lintian/overrides/dlk-tools"
		for t in $tools; do
			echo "-rw-r--r-- root/root ./usr/share/man/man1/$t.1.gz"
		done
	} | LC_ALL=C sort -k3 >"$s/want-files"
	diff -u "$s/want-files" "$s/files"
}

# dpkg --root: the package in a scratch root, recorded in that root's
# database, without its dependency (libc6 is the host's, not the root's).
# dpkg sets owners, which needs root; otherwise dpkg-deb -x unpacks it.
deb_installs() {
	mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
	: >"$root/var/lib/dpkg/status"
	: >"$root/var/lib/dpkg/available"
	if [ "$(id -u)" != 0 ]; then
		echo "not root: dpkg-deb -x"
		dpkg-deb -x "$deb" "$root"
		return
	fi
	dpkg --root="$root" --log=/dev/null --force-depends -i "$deb" ||
		return 1
	st=$(dpkg --root="$root" -s dlk-tools | sed -n 's/^Status: //p')
	want "status '$st'" test "$st" = "install ok installed" || return 1
	for f in $(files_under /usr); do
		want "no $f in the root" test -f "$root$f" || return 1
	done
}

# run NAME ARG...: the installed tool; its status, stdout, stderr.
run() {
	st=0
	t=$1
	shift
	"$root/usr/bin/$t" "$@" >"$s/stdout" 2>"$s/stderr" || st=$?
}

dlctl_version() {
	run dlctl --version
	want "status $st" test "$st" = 0 || return 1
	same "$s/stdout" "dlctl $version" || return 1
	same "$s/stderr" ""
}

dlgen_help() {
	run dlgen --help
	want "status $st" test "$st" = 0 || return 1
	same "$s/stderr" "" || return 1
	want "no usage line" grep -q '^usage: dlgen .*-t PERIOD:RUN' "$s/stdout" ||
		return 1
	for o in "-t, --task SPEC" "-D, --duration TIME" "-V, --version"; do
		want "no '$o' in the help" grep -q -e "$o" "$s/stdout" || return 1
	done
}

versions() {
	for t in dlgen dlchart; do
		run "$t" --version
		want "$t: status $st" test "$st" = 0 || return 1
		same "$s/stdout" "$t $version" || return 1
	done
}

# dlchart on the recorded run, with its job log: the chart of the log's
# tasks, and the summary of what it drew, figures taken from the log.
dlchart_fixture() {
	csv=$fixtures/dl3-smp2.jobs.csv
	run dlchart --jobs "$csv" -o "$s/chart.svg" "$fixtures/dl3-smp2.trace"
	want "status $st" test "$st" = 0 || return 1
	same "$s/stdout" "" || return 1
	# shellcheck disable=SC2046
	set -- $(awk -F, 'NR > 1 { jobs++; miss += $NF
		if (!($1 in seen)) { seen[$1] = 1; tasks++ } }
		END { print tasks, jobs, miss }' "$csv")
	want "the log has no job" test "${2:-0}" -gt 0 || return 1
	want "summary: $(cat "$s/stderr"), want $1 tasks, $2 jobs, $3 misses" \
		grep -qx "dlchart: $1 tasks, $2 jobs, $3 misses, [1-9][0-9]* events parsed, 0 lines skipped" \
		"$s/stderr" || return 1
	want "not an SVG" grep -q '^<svg xmlns="http://www.w3.org/2000/svg"' \
		"$s/chart.svg" || return 1
	want "no </svg> at its end" test "$(tail -n 1 "$s/chart.svg")" = "</svg>" ||
		return 1
	cut -d, -f1 "$csv" | sed 1d | sort -u >"$s/tasks"
	while read -r task; do
		want "no lane of task '$task'" \
			grep -q "<title>$task (pid [0-9]*) on CPU" "$s/chart.svg" ||
			return 1
	done <"$s/tasks"
}

# The manual pages: gzip without a name or a time, each its tool's page.
man_pages() {
	for t in $tools; do
		gz=$root/usr/share/man/man1/$t.1.gz
		want "$gz: not gzip -n" test "$(od -An -tx1 -j3 -N5 "$gz" |
			tr -d ' \n')" = 0000000000 || return 1
		up=$(echo "$t" | tr '[:lower:]' '[:upper:]')
		want "$gz: no .TH $up 1" sh -c "gzip -dc '$gz' | grep -q '^\.TH $up 1 '" ||
			return 1
	done
}

deb_removes() {
	[ "$(id -u)" = 0 ] || { echo "not root: not installed by dpkg"; return 0; }
	dpkg --root="$root" --log=/dev/null -r dlk-tools || return 1
	left=$(find "$root/usr" -type f)
	want "left: $left" test -z "$left"
}

# make install at the top: the default PREFIX, /usr/local.
make_install() {
	make -C "$top" --no-print-directory install DESTDIR="$s/inst" \
		DLK_OUT="$s/out" || return 1
	(cd "$s/inst" && find . -type f | LC_ALL=C sort) >"$s/found"
	same "$s/found" "$(files_under ./usr/local | LC_ALL=C sort)" || return 1
	for t in $tools; do
		want "$t: not 755" test "$(stat -c %a "$s/inst/usr/local/bin/$t")" = 755 ||
			return 1
		want "$t.1.gz: not 644" \
			test "$(stat -c %a "$s/inst/usr/local/share/man/man1/$t.1.gz")" = 644 ||
			return 1
	done
	"$s/inst/usr/local/bin/dlctl" --version >"$s/out.v" || return 1
	same "$s/out.v" "dlctl $version"
}

# tools/Makefile alone, PREFIX=/usr; then uninstall leaves nothing.
make_install_prefix() {
	make -C "$top/tools" --no-print-directory install PREFIX=/usr \
		DESTDIR="$s/inst2" O="$s/out/tools/host" || return 1
	(cd "$s/inst2" && find . -type f | LC_ALL=C sort) >"$s/found"
	same "$s/found" "$(files_under ./usr | LC_ALL=C sort)" || return 1
	make -C "$top/tools" --no-print-directory uninstall PREFIX=/usr \
		DESTDIR="$s/inst2" || return 1
	left=$(find "$s/inst2" -type f)
	want "left: $left" test -z "$left"
}

echo "TAP version 13"
echo "1..12"
check deb_built deb_built
grep '^lintian\|^mkdeb' "$s/log" | sed 's/^/# /'
check deb_control deb_control
check deb_files deb_files
check deb_installs deb_installs
check dlctl_version dlctl_version
check dlgen_help dlgen_help
check versions versions
check dlchart_fixture dlchart_fixture
check man_pages man_pages
check deb_removes deb_removes
check make_install make_install
check make_install_prefix make_install_prefix
