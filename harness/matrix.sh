#!/bin/sh
# matrix.sh [NAME...]: build ours's kernel/sched (and what it needs) in the
# configurations distributions use, each from configs/matrix/NAME.config
# on top of the lean config (tinyconfig, base.config, ours.config).  With
# no NAME, every fragment there.  A configuration whose tree, fragments
# and compiler are unchanged since it last built is not built again.
#
# Each fragment's own lines must survive into its .config: a variant that
# Kconfig quietly turned into another would prove nothing.  (Lines of
# base.config that a variant makes impossible, such as CONFIG_HOTPLUG_CPU
# without SMP, may drop.)
. "$(dirname "$0")/lib.sh"

src=$SRC_OURS
[ -f "$src/Makefile" ] || die "$src is missing (run make kernels first)"
names=${*:-$(cd "$TOP/configs/matrix" && ls -- *.config | sed 's/\.config$//')}
tree=$(git -C "$src" rev-parse HEAD)$(git -C "$src" status --porcelain)
base="$src/kernel/configs/tiny-base.config $src/kernel/configs/tiny.config"
base="$base $src/arch/x86/configs/tiny.config $TOP/configs/base.config"
base="$base $TOP/configs/ours.config"

# check_survived FRAGMENT CONFIG: every setting of FRAGMENT is in CONFIG.
check_survived() {
	sed -n 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)$/\1/p; s/^\(# CONFIG_[A-Za-z0-9_]* is not set\)$/\1/p' "$1" |
	while IFS= read -r line; do
		sym=$(echo "$line" | sed 's/^# //; s/[= ].*//')
		got=$(grep "^$sym=\|^# $sym is not set" "$2" || echo "# $sym is not set")
		[ "$got" = "$line" ] || die "matrix $3: wanted '$line', got '$got'"
	done
}

built=0 failed=
for name in $names; do
	frag=$TOP/configs/matrix/$name.config
	[ -f "$frag" ] || die "no configs/matrix/$name.config"
	build=$VDIR/build/matrix-$name
	mkdir -p "$build"
	# shellcheck disable=SC2086
	state=$(printf '%s\n' "$tree"; cat $base "$frag" "$0"; gcc --version | head -1)
	if [ "$state" = "$(cat "$build/.dlk-state" 2>/dev/null)" ]; then
		say "matrix $name: up to date"
		continue
	fi
	rm -f "$build/.dlk-state"
	say "matrix $name: configuring"
	# shellcheck disable=SC2086
	(cd "$src" && scripts/kconfig/merge_config.sh -n -O "$build" $base "$frag") \
		>"$build/merge.log" 2>&1 || {
		cat "$build/merge.log" >&2
		die "matrix $name: configuring failed"
	}
	check_survived "$frag" "$build/.config" "$name"
	say "matrix $name: building kernel/sched"
	if make -C "$src" O="$build" -j"$NPROC" -s --no-print-directory \
		CC="ccache gcc" HOSTCC="ccache gcc" KBUILD_BUILD_USER=dlk \
		KBUILD_BUILD_HOST=dlk kernel/sched/ >"$build/make.log" 2>&1 &&
		! grep -q 'warning:' "$build/make.log"; then
		printf '%s\n' "$state" >"$build/.dlk-state"
		built=$((built + 1))
	else
		grep -B2 -A6 'error\|warning:' "$build/make.log" | head -40 >&2
		failed="$failed $name"
	fi
done
[ -z "$failed" ] || die "kernel/sched does not build cleanly in:$failed (logs in $VDIR/build/matrix-NAME/make.log)"
say "matrix: every configuration builds ($built built now)"
