#!/bin/sh
# bench.sh: the component framework benchmark (tests/modules/component_bench.c)
# on stock and ours, in one run, one vCPU under -icount so that guest time
# counts instructions and both kernels are measured alike.  Prints each
# figure of both and the ratio stock/ours, and writes them, tab-separated,
# to $DLK_OUT/bench/component.tsv; then the boot time of the USB scenario.
#   BENCH_MAX=4096 (largest n)  BENCH_OWN_MAX=1024 (largest n with the
#   driver's own compare function)  ICOUNT=4
. "$(dirname "$0")/lib.sh"

: "${INITRD:?INITRD is the base initramfs}"
max=${BENCH_MAX:-4096}
own_max=${BENCH_OWN_MAX:-1024}
out=$DLK_OUT/bench
mkdir -p "$out"
# The console would cost each kernel the same time per message; keep it
# out of the figures.
run="echo 1 >/proc/sys/kernel/printk
insmod /lib/modules/dlk/component_bench.ko max=$max own_max=$own_max
rmmod component_bench
dmesg | grep 'dlk-bench n='"

for k in stock ours; do
	say "benchmarking $k (one vCPU, -icount shift=${ICOUNT:-4})"
	KERNEL=$k DEBUG=0 SMP=1 ICOUNT=${ICOUNT:-4} MODE=run RUN=$run \
		TIMEOUT=${TIMEOUT:-1800} LOGDIR=$DLK_OUT/logs/bench-$k \
		sh "$TOP/harness/boot.sh" >/dev/null ||
		die "the benchmark failed on $k; logs in $DLK_OUT/logs/bench-$k"
	tr -d '\r' <"$DLK_OUT/logs/bench-$k/guest.log" |
		sed -n 's/.*dlk-bench n=\([0-9]*\) order=\([a-z]*\) compare=\([a-z]*\) ns=\(-*[0-9]*\)$/\1\t\2\t\3\t\4/p' \
		>"$out/$k.tsv"
	[ -s "$out/$k.tsv" ] || die "no figures from $k"
done

# n order compare stock_ns ours_ns ratio; per-element cost growth of ours
awk -F '\t' -v OFS='\t' '
	NR == FNR { s[$1 FS $2 FS $3] = $4; next }
	{
		k = $1 FS $2 FS $3
		r = ($4 > 0) ? s[k] / $4 : 0
		print $1, $2, $3, s[k], $4, r
	}' "$out/stock.tsv" "$out/ours.tsv" >"$out/component.tsv"

echo
echo "Assembling one aggregate of n components, random order (guest time, -icount):"
printf '%6s %-9s %-7s %14s %14s %9s\n' n aggregate compare "stock (us)" \
	"ours (us)" stock/ours
awk -F '\t' '{ printf "%6d %-9s %-7s %14.1f %14.1f %9.2f\n", $1, $2, $3,
	$4 / 1000, $5 / 1000, $6 }' "$out/component.tsv"
echo
echo "Cost per component, relative to n = 16 (n log n grows as log n):"
awk -F '\t' '
	$1 == 16 { base[$2 $3 "s"] = $4 / 16; base[$2 $3 "o"] = $5 / 16 }
	$1 > 16 && base[$2 $3 "o"] > 0 {
		printf "%6d %-9s %-7s stock x%.1f  ours x%.1f  (log2 n / log2 16 = %.2f)\n",
			$1, $2, $3, ($4 / $1) / base[$2 $3 "s"],
			($5 / $1) / base[$2 $3 "o"], log($1) / log(16)
	}' "$out/component.tsv"

# The USB scenario: guest time from boot until the hub of DEVICES=usb-hub
# has registered all its port components (drivers/usb/core/port.c).
usb_run="p=/sys/bus/usb/devices/1-1:1.0/1-1-port8
while [ ! -e \$p ]; do usleep 1000; done
echo dlk-usb-ready \$(cut -d' ' -f1 /proc/uptime)"
for k in stock ours; do
	say "booting $k with the USB hub (one vCPU, -icount)"
	KERNEL=$k DEBUG=0 SMP=1 ICOUNT=${ICOUNT:-4} MODE=run RUN=$usb_run \
		DEVICES=usb-hub TIMEOUT=300 LOGDIR=$DLK_OUT/logs/bench-usb-$k \
		sh "$TOP/harness/boot.sh" >/dev/null ||
		die "the USB boot failed on $k; logs in $DLK_OUT/logs/bench-usb-$k"
	tr -d '\r' <"$DLK_OUT/logs/bench-usb-$k/guest.log" |
		sed -n 's/^dlk-usb-ready \([0-9.]*\)$/\1/p' >"$out/usb-$k"
	[ -s "$out/usb-$k" ] || die "no USB figure from $k"
done
echo
echo "USB scenario: guest time from boot to the hub's 8 port components:"
printf '%14s %14s %9s\n' "stock (s)" "ours (s)" stock/ours
awk 'NR == FNR { s = $1; next } { printf "%14.2f %14.2f %9.3f\n", s, $1, s / $1 }' \
	"$out/usb-stock" "$out/usb-ours"
echo
say "figures in $out/component.tsv, $out/usb-stock, $out/usb-ours"
