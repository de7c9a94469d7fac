#!/bin/sh
# mkinitramfs.sh OUT.cpio SUITES PROGRAM... [-- TOOL...]: the base
# initramfs of every boot: static busybox, the harness's init, the guest
# programs (in /tests/bin), the toolkit (in /usr/local/bin) and the suite
# list (as /etc/dlk/suites).  Per-boot files
# (a RUN command, an ADD directory) go into a second archive that boot.sh
# appends; the kernel unpacks both, later files replacing earlier ones.
. "$(dirname "$0")/lib.sh"

out=$1
suites=$2
shift 2
busybox=/bin/busybox
ldd "$busybox" 2>&1 | grep -q 'not a dynamic' ||
	die "$busybox is not a static busybox (install busybox-static)"

root=$out.root
rm -rf "$root"
mkdir -p "$root/bin" "$root/tests/bin" "$root/usr/local/bin" "$root/etc/dlk" \
	"$root/root"
cp "$busybox" "$root/bin/busybox"
cp "$TOP/harness/init" "$root/init"
chmod 755 "$root/init"
dest=$root/tests/bin
for prog in "$@"; do
	if [ "$prog" = -- ]; then
		dest=$root/usr/local/bin
		continue
	fi
	cp "$prog" "$dest/"
done
cp "$suites" "$root/etc/dlk/suites"
cpio_pack "$root" >"$out.tmp"
mv "$out.tmp" "$out"
rm -rf "$root"
