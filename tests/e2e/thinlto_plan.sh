#!/usr/bin/env bash
# How a ThinLTO device link is planned (issue 44, items 4-7), OpenMP for
# sm_90 with clang 19:
#   many      6,400 copies of one thin module in one object plan in
#             linear time (naming them compared each name tried with every
#             name so far: 1,800 took 4.6 s, 6,400 over 4 minutes and 1 GB);
#   relative  OFFLINK_CLANG=./tools/clang and OFFLINK_LLVM_LTO2=tools/lto2:
#             the thin link runs (its steps run in the group's directory,
#             where the relative names meant nothing: "cannot run");
#   travel    two checkouts under --cache-base-dir, objects named by
#             absolute paths: the second takes the whole group's image
#             from the cache (the key held each backend's label, which
#             named the input by its path);
#   debug     TUs compiled with -g link (the backend wrote the two-operand
#             .file directive ptxas rejects), register LLVM 19's kernels,
#             and each module's PTX is LLVM 19's but for callseq numbers;
#   cc1       every cc1 option each installed release's driver gives an
#             NVPTX ThinLTO backend compile is offlink's too, or one of
#             those checked and left out (docs/compat.md, "ThinLTO on
#             NVPTX"): a new release's new option fails here until it is
#             decided.  Parts 23 and 24 run the same check with those
#             releases, in the sid root.
# ctest-parts: many relative travel debug cc1 23 24
# ctest-sid: 23 24
# ctest-cost: 10
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
part() { [[ " ${OFFLINK_PART:-many relative travel debug cc1} " = *" $1 "* ]]; }
case ${OFFLINK_PART:-} in 23|24) ;; *) need clang-19 ;; esac
. "$OFFLINK_SRC/tests/lib/thin.sh"

if part many; then
	need gcc objcopy
	nvptx_sources
	check "extract a.c's module" "$BIN/offlink-binary" --extract a.o
	"$HELP/make_many" copies 6400 a.0.nvptx64-nvidia-cuda-sm_90.bc many.bin || fail "make_many copies"
	echo 'int host_part(void) { return 1; }' | gcc -x c -c - -o host.o || fail "host.o"
	check "object of 6,400 modules" objcopy --add-section .llvm.offloading=many.bin \
		--set-section-flags .llvm.offloading=exclude host.o many.o
	# (the names are the same as before: <hex>.bc, then <hex>.<k>.bc from 2)
	timeout 60 "$BIN/offlink" --dry-run --llvm=19 --host-triple=x86_64-pc-linux-gnu \
		--linker-path=/usr/bin/ld -o prog many.o >/dev/null 2>plan.txt ||
		fail "planning 6,400 modules: exit $? (124: still running after 60 s)"
	contains plan.txt "ThinLTO: 6400 modules compiled apart"
	[ "$(grep -c -- ' -cc1 ' plan.txt)" = 6400 ] || fail "not 6,400 backends: $(grep -c -- ' -cc1 ' plan.txt)"
	[ "$(grep -- ' -cc1 ' plan.txt | grep -o '[0-9a-f]\{32\}\(\.[0-9]*\)\?\.bc\.s' | sort -u | wc -l)" = 6400 ] ||
		fail "6,400 backends do not write 6,400 files"
	grep -q '[0-9a-f]\{32\}\.6400\.bc\.s' plan.txt || fail "the 6,400th copy is not <hex>.6400.bc"
	echo "ok: many: 6,400 alike modules planned in linear time"
fi

if part relative; then
	need_cuda ptxas nvlink
	nvptx_sources
	mkdir tools
	printf '#!/bin/sh\nexec /usr/lib/llvm-19/bin/clang "$@"\n' >tools/clang
	chmod +x tools/clang
	ln -s /usr/lib/llvm-19/bin/llvm-lto2 tools/lto2
	OFFLINK_CLANG=./tools/clang OFFLINK_LLVM_LTO2=tools/lto2 clang-19 "${NV[@]}" -foffload-lto=thin \
		-B "$COMPAT" a.o b.o main.o -o prog -Wl,--wrapper-verbose 2>link.err ||
		fail "relative tool paths: $(grep -v '^offlink:  ' link.err | tail -5)"
	contains link.err "$T/tools/lto2 run -thinlto-distributed-indexes"
	contains link.err "$T/tools/clang -cc1"
	contains link.err "ThinLTO: 3 backends ran"
	OFFSTUB_LOG=prog.log LD_PRELOAD=$STUB ./prog >prog.out 2>&1 || fail "prog exited with $?"
	contains prog.out "a=9 b=116 main=5"
	echo "ok: relative: OFFLINK_CLANG=./tools/clang and OFFLINK_LLVM_LTO2=tools/lto2 link"
fi

if part travel; then
	need_cuda ptxas nvlink
	mkdir c1 && (cd c1 && nvptx_sources) || fail "c1's objects"
	mkdir c2 && cp c1/*.o c2/
	export OFFLINK_CACHE_BASE_DIR=$T
	for c in c1 c2; do
		(cd $c && clang-19 "${NV[@]}" -foffload-lto=thin -B "$COMPAT" "$T/$c/a.o" "$T/$c/b.o" \
			"$T/$c/main.o" -o prog -Wl,--wrapper-verbose 2>link.err) ||
			fail "$c: $(grep -v '^offlink:  ' $c/link.err | tail -5)"
	done
	contains c1/link.err "device-link cache miss"
	contains c2/link.err "openmp nvptx64-nvidia-cuda sm_90: device-link cache hit (local): no device link runs"
	grep -q 'ThinLTO: .* backend' c2/link.err && fail "c2 ran the ThinLTO steps: $(grep ThinLTO c2/link.err)"
	OFFSTUB_LOG=c2.log LD_PRELOAD=$STUB ./c2/prog >c2.out 2>&1 || fail "c2's program exited with $?"
	contains c2.out "a=9 b=116 main=5"
	echo "ok: travel: a second checkout takes the whole group's image"
fi

if part debug; then
	need clang-linker-wrapper-19
	need_cuda ptxas nvlink
	nvptx_sources -g
	thin_links
	ours=(prog.offlink-temps.*/*.thin/*.bc.s)
	grep -q '^\s*\.file\s' "${ours[0]}" || fail "no .file directive: not debug code"
	ptx_is_llvms 3 '.[0-9]' "${ours[@]}"
	echo "ok: debug: -g thin code links, LLVM 19's kernels and PTX"
fi

cc1_releases="15 16 19 22"
case ${OFFLINK_PART:-} in 23|24) cc1_releases=$OFFLINK_PART ;; esac
if part cc1 || part 23 || part 24; then
	need gcc objcopy
	# What each release's driver gives the backend and offlink does not:
	# checked, and left out (docs/compat.md, "ThinLTO on NVPTX", says why).
	left_out=(-disable-free -clear-ast-before-backend -disable-llvm-verifier -discard-value-names
		-main-file-name -mrelocation-model -mframe-pointer -ffp-contract -fno-rounding-math
		-fmath-errno -no-integrated-as -debugger-tuning -fdebug-compilation-dir
		-fcoverage-compilation-dir -resource-dir -ferror-limit -fgnuc-version
		-fskip-odr-check-in-gmf -mllvm=-treat-scalable-fixed-error-as-warning
		-mllvm=--nvptx-lower-global-ctor-dtor)
	# each option of a cc1 line, one a line: -name, or -mllvm=<option>
	options() {
		printf '%s\n' "$1" | xargs -n1 printf '%s\n' | awk '
			BEGIN { split("-triple -main-file-name -mrelocation-model -target-cpu -target-feature -resource-dir -ferror-limit -o -x", v); for (i in v) takes[v[i]] = 1 }
			skip { skip = 0; next }
			mllvm { print "-mllvm=" $0; mllvm = 0; next }
			$0 == "-mllvm" { mllvm = 1; next }
			/^-/ { sub(/=.*/, ""); print; if ($0 in takes) skip = 1 }' | sort -u
	}
	echo 'int f(int x) { return x * 3 + 1; }' >m.c
	echo 'int host_part(void) { return 1; }' | gcc -x c -c - -o host.o || fail "host.o"
	checked=0
	for n in $cc1_releases; do
		command -v clang-$n >/dev/null || { echo "SKIP (part): clang-$n"; continue; }
		check "clang $n: a thin module" clang-$n --target=nvptx64-nvidia-cuda -march=sm_80 -O2 -flto=thin \
			-Wno-unknown-cuda-version -c m.c -o m$n.bc
		: >m$n.bc.thinlto.bc
		clang-$n -### --target=nvptx64-nvidia-cuda -march=sm_80 -O2 -S -x ir m$n.bc \
			-fthinlto-index=m$n.bc.thinlto.bc -o m$n.s 2>&1 | grep -- '"-cc1"' >driver$n.txt ||
			fail "clang $n -### gives no cc1 line"
		# (the PTX feature as clang writes it beside the image)
		feature=$(grep -o '"-target-feature" "[^"]*"' driver$n.txt | cut -d'"' -f4)
		check "package" "$BIN/offlink-binary" --llvm=$n -o m$n.bin \
			--image=file=m$n.bc,triple=nvptx64-nvidia-cuda,arch=sm_80,kind=openmp,feature=$feature
		check "object" objcopy --add-section .llvm.offloading=m$n.bin \
			--set-section-flags .llvm.offloading=exclude host.o h$n.o
		"$BIN/offlink" --dry-run --llvm=$n --host-triple=x86_64-pc-linux-gnu --linker-path=/usr/bin/ld \
			-o prog h$n.o 2>plan$n.txt >/dev/null || fail "clang $n: the dry run: $(tail -3 plan$n.txt)"
		grep -- ' -cc1 ' plan$n.txt | head -1 >ours$n.txt
		[ -s ours$n.txt ] || fail "clang $n: offlink plans no backend"
		options "$(cat driver$n.txt)" >want$n.txt
		options "$(cat ours$n.txt)" >have$n.txt
		for o in $(comm -23 want$n.txt have$n.txt); do
			printf '%s\n' "${left_out[@]}" | grep -qx -- "$o" ||
				fail "clang $n's driver gives an NVPTX ThinLTO backend $o, which offlink neither passes nor has checked: $(cat driver$n.txt)"
		done
		# and offlink passes nothing the driver does not, but -fno-verbose-asm
		# (the default of 19's cc1 on, given for 15's and 16's)
		extra=$(comm -13 want$n.txt have$n.txt | grep -vx -- '-fno-verbose-asm')
		[ -z "$extra" ] || fail "offlink gives clang $n's backend what its driver does not: $extra"
		grep -q -- '-fno-dwarf-directory-asm' ours$n.txt || fail "clang $n: no -fno-dwarf-directory-asm"
		checked=$((checked + 1))
	done
	[ $checked -gt 0 ] || fail "no release to compare"
	echo "ok: cc1: every backend option of $checked releases' drivers is offlink's or checked and left out"
fi
echo PASS
