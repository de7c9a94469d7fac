#!/bin/sh
# cover.sh: the body of 'make cover'.  Compiles every file of the tree
# that calls the component framework, in an allmodconfig build of ours
# (COMPILE_TEST, CONFIG_COMPONENT_INDEXED), and checks that each
# component_* symbol those objects need is exported by ours' kernel
# exactly as by stock's (name, GPL-only or not, namespace).
#
# A file is compiled on its own (make dir/file.o), so one that needs more
# than x86_64's allmodconfig gives it (another architecture's headers or
# configuration) fails to compile here; it counts as one x86_64 cannot
# build when it fails on stock's tree alike, and as a failure of ours
# when only ours fails.  Results in $DLK_OUT/cover/.
. "$(dirname "$0")/lib.sh"

out=$DLK_OUT/cover
rm -rf "$out"
mkdir -p "$out"

# The users: callers of the API outside the framework itself.
api='component_(add|add_typed|del|master_add_with_match|master_del'
api="$api|bind_all|unbind_all|match_add|match_add_release|match_add_typed"
api="$api|match_add_of|compare_(of|dev|dev_name)|release_of)"
git -C "$SRC_OURS" grep -l -E "\\b$api\\b" -- '*.c' |
	grep -v '^drivers/base/component' >"$out/users"
total=$(wc -l <"$out/users")

# configure KERNEL: an allmodconfig build directory of that tree
configure() {
	build=$VDIR/build/cover-$1
	all=$out/allconfig-$1
	cp "$TOP/configs/cover.config" "$all"
	[ "$1" = ours ] && cat "$TOP/configs/ours.config" >>"$all"
	mkdir -p "$build"
	say "cover: configuring $1 (allmodconfig)"
	make -C "$(kernel_src "$1")" O="$build" -s KCONFIG_ALLCONFIG="$all" \
		allmodconfig >"$out/config-$1.log" 2>&1 ||
		{ cat "$out/config-$1.log" >&2; die "allmodconfig of $1 failed"; }
	if [ "$1" = ours ]; then
		grep -q '^CONFIG_COMPONENT_INDEXED=y' "$build/.config" ||
			die "ours' allmodconfig did not choose CONFIG_COMPONENT_INDEXED"
	fi
}

# object_of FILE: the object make builds from FILE.  amdgpu's display code
# is compiled from amdgpu's directory, whose Makefile gives it its
# include path.
object_of() {
	echo "$1" | sed -e 's/\.c$/.o/' \
		-e 's|^drivers/gpu/drm/amd/display/|drivers/gpu/drm/amd/amdgpu/../display/|'
}

# compile KERNEL LIST: compile the files of LIST; OUT/built-KERNEL and
# OUT/failed-KERNEL say which made an object
compile() {
	build=$VDIR/build/cover-$1
	objs=$(for f in $(cat "$2"); do object_of "$f"; done)
	rm -f "$out/built-$1" "$out/failed-$1"
	touch "$out/built-$1" "$out/failed-$1"
	for o in $objs; do
		rm -f "$build/$o"
	done
	say "cover: compiling $(wc -l <"$2") files against $1"
	# shellcheck disable=SC2086
	make -C "$(kernel_src "$1")" O="$build" -k -j"$NPROC" \
		CC="ccache gcc" HOSTCC="ccache gcc" $objs \
		>"$out/compile-$1.log" 2>&1 || true
	for f in $(cat "$2"); do
		if [ -f "$build/$(object_of "$f")" ]; then
			echo "$f" >>"$out/built-$1"
		else
			echo "$f" >>"$out/failed-$1"
		fi
	done
}

# exports KERNEL: the component_* lines of that kernel's Module.symvers,
# without the CRC column
exports() {
	symvers=$VDIR/build/$1/Module.symvers
	[ -f "$symvers" ] || die "no $symvers (make kernels)"
	awk '$2 ~ /^component_/ { print $2, $4, $5 }' "$symvers" | sort
}

configure ours
compile ours "$out/users"
fails=0
alike=0
if [ -s "$out/failed-ours" ]; then
	configure stock
	compile stock "$out/failed-ours"
	alike=$(wc -l <"$out/failed-stock")
	# Built on stock, failed on ours: ours broke it.
	for f in $(cat "$out/built-stock"); do
		echo "FAIL  $f: compiles against stock, not against ours"
		fails=$((fails + 1))
	done
fi

# Every component_* symbol the objects use, and how each kernel exports it.
build=$VDIR/build/cover-ours
for f in $(cat "$out/built-ours"); do
	nm -u "$build/${f%.c}.o"
done | awk '$2 ~ /^component_/ { print $2 }' | sort -u >"$out/needed"
exports ours >"$out/exports-ours"
exports stock >"$out/exports-stock"
for sym in $(cat "$out/needed"); do
	if ! grep -q "^$sym " "$out/exports-ours"; then
		echo "FAIL  $sym: used by the tree's users, not exported by ours"
		fails=$((fails + 1))
	fi
done
if ! cmp -s "$out/exports-ours" "$out/exports-stock"; then
	echo "FAIL  ours exports component_* symbols unlike stock:"
	diff "$out/exports-stock" "$out/exports-ours" | sed 's/^/        /'
	fails=$((fails + 1))
fi

built=$(wc -l <"$out/built-ours")
echo
echo "$total files call the component framework; $built compile against ours;"
echo "$alike cannot be compiled on x86_64 alone (they fail on stock alike):"
sed 's/^/    /' "$out/failed-stock" 2>/dev/null || true
echo "$(wc -l <"$out/needed") component_* symbols used, exported by ours as by stock"
echo "(lists and logs in $out)"
[ "$fails" = 0 ] || die "$fails coverage failures"
