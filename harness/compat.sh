#!/bin/sh
# compat.sh: the userspace people use with SCHED_DEADLINE, as Debian
# packages it, run unchanged on each kernel: chrt (util-linux),
# cyclicdeadline and deadline_test (rt-tests), rt-app, stress-ng.  Installs
# what is missing, copies the binaries with their libraries and loader into
# the guest (paths kept), boots each kernel with tests/compat/guest.sh and
# keeps its TAP in $DLK_OUT/compat/KERNEL.tap.  Exits 1 if a test failed,
# the TAP is short of its plan, or the kernel reported a problem.
#   KERNELS="stock ours"  DEBUG=0|1  SMP=2  TIMEOUT=seconds for each boot
#   INITRD=base initramfs (default $DLK_OUT/base.cpio)
. "$(dirname "$0")/lib.sh"

KERNELS=${KERNELS:-stock ours}
INITRD=${INITRD:-$DLK_OUT/base.cpio}
out=$DLK_OUT/compat
pkgs="util-linux rt-tests rt-app stress-ng"
bins="/usr/bin/chrt /usr/bin/cyclicdeadline /usr/bin/deadline_test
/usr/bin/rt-app /usr/bin/stress-ng"

[ -f "$INITRD" ] || die "no base initramfs at $INITRD (make initramfs)"

missing=
for p in $pkgs; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing="$missing $p"
done
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] ||
		die "missing packages:$missing (run as root, or install them)"
	say "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null || die "apt-get update failed"
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing ||
		die "apt-get install failed"
fi

# put FILE: FILE into the guest's tree at the same path, symlinks
# followed (the loader and most libraries are links on the host).
put() {
	mkdir -p "$add$(dirname "$1")"
	cp -L "$1" "$add$1"
}

# The programs are only copied and read here, never run on the host
# beyond ldd.
add=$out/add
rm -rf "$add"
mkdir -p "$add/compat"
for b in $bins; do
	[ -x "$b" ] || die "$b is missing (is its package installed?)"
	put "$b"
	libs=$(ldd "$b" | awk '{ for (i = 1; i <= NF; i++)
		if ($i ~ /^\//) print $i }') || die "ldd $b failed"
	for l in $libs; do
		[ -e "$add$l" ] || put "$l"
	done
done
# glibc loads libgcc_s when a thread ends with pthread_exit (rt-app and
# rt-tests do), where ldd cannot see it.
gcc_s=$(ldconfig -p |
	sed -n 's/^[[:space:]]*libgcc_s\.so\.1 (libc6,x86-64) => //p')
[ -n "$gcc_s" ] || die "libgcc_s.so.1 is not in ldconfig's cache"
put "$gcc_s"
cp "$TOP/tests/compat/guest.sh" "$add/compat/guest.sh"

# reports LOG: the kernel's reports in a console log, as ktapsum finds
# them; one is a failure whatever the TAP says.
reports() {
	sed 's/^\[[ 0-9.]*\] *//' "$1" |
		grep -E -e '^(BUG|WARNING|Oops|UBSAN):' \
		-e '^(Kernel panic|kernel BUG at|general protection fault)' \
		-e '^(INFO: task|INFO: possible|Unable to handle kernel)' \
		-e '^(watchdog: BUG:|rcu: INFO:)'
}

# boot KERNEL: one kernel's run; its TAP in $out/NAME.tap, its exit status
# in $out/NAME.status
boot() {
	name=$(kernel_name "$1" "${DEBUG:-0}")
	st=0
	DLK_PREPARED=1 KERNEL=$1 DEBUG=${DEBUG:-0} INITRD=$INITRD ADD=$add \
		SMP=${SMP:-2} ICOUNT='' TIMEOUT=${TIMEOUT:-300} \
		RUN='sh /compat/guest.sh' sh "$TOP/harness/make-boot.sh" \
		>"$out/$name.tap" || st=$?
	echo "$st" >"$out/$name.status"
}

# The kernels boot side by side: what the suite asserts is what the tools
# do and say (exit statuses, parameters, refusals, that jobs ran), which a
# busy host slows down but does not change; it halves the suite's time.
say "booting $KERNELS (SMP=${SMP:-2}) with the deadline userspace"
pids=
for k in $KERNELS; do
	rm -f "$out/$(kernel_name "$k" "${DEBUG:-0}").status"
	boot "$k" &
	pids="$pids $!"
done
for p in $pids; do
	wait "$p" || true
done

all_pass=0
all_fail=0
for k in $KERNELS; do
	name=$(kernel_name "$k" "${DEBUG:-0}")
	tap=$out/$name.tap
	st=$(cat "$out/$name.status" 2>/dev/null || echo missing)
	cp "$DLK_OUT/logs/boot-$name/console.log" "$out/$name.console.log" ||
		true
	pass=$(grep -c '^ok ' "$tap" || true)
	fail=$(grep -c '^not ok ' "$tap" || true)
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tap")
	grep '^not ok ' "$tap" | sed "s/^/  $name: /" >&2 || true
	if [ -z "$plan" ] || [ $((pass + fail)) != "$plan" ]; then
		say "$name: $((pass + fail)) results, plan ${plan:-missing}"
		fail=$((fail + 1))
	elif [ "$st" != 0 ] && [ "$fail" = 0 ]; then
		say "$name: the guest script exited with status $st"
		fail=$((fail + 1))
	fi
	rep=$(reports "$out/$name.console.log" || true)
	if [ -n "$rep" ]; then
		echo "$rep" | sed "s/^/  $name: /" >&2
		fail=$((fail + 1))
	fi
	echo "compat $name: $pass passed, $fail failed ($tap)"
	all_pass=$((all_pass + pass))
	all_fail=$((all_fail + fail))
done
echo "compat: $all_pass passed, $all_fail failed"
[ "$all_fail" = 0 ]
