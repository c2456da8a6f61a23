#!/usr/bin/env bash
# Issue 26, item 2: each release's device-link flags.  offlink's CPU device
# link always added -Wl,--no-undefined; LLVM 15's wrapper links CPU device
# code with `ld -shared` and no such flag (16 added it).  A threadprivate
# global used inside a task (the OpenMP validation suite's
# test_task_ThrdPrivate.c pattern) gets a TLS wrapper in the device object
# that names the host's variable: with LLVM 15's own tools the program
# links and passes, through offlink it failed to link ("undefined
# reference to 'GlobalVar'").  Now offlink follows the release that
# produced the code:
#   - clang 15: links and runs as with LLVM 15's clang-linker-wrapper-15,
#     with and without a target region (with one, both programs fail the
#     same way at run time: the image needs the host's variable); the
#     device image is 15's byte for byte, linked as 15 links it: the host
#     linker run directly (issue 32, item 7);
#   - clang 16, 19, 22: their own wrappers refuse the link (--no-undefined),
#     and so does offlink, with the same undefined symbol;
#   - the other flags that differ (docs/compat.md, "Per release"): LLVM 15's
#     nvlink -m64 and its AMDGPU -plugin-opt=-amdgpu-internalize-symbols,
#     and only 15's.
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-15 clang-linker-wrapper-15 clang-16 clang-19 clang-22
DEPS=$OFFLINK_SRC/deps
unset LIBRARY_PATH

libdir() {
	case $1 in
	19) echo /usr/lib/llvm-19/lib ;;
	*) echo "$DEPS/llvm$1-omp/usr/lib/llvm-$1/lib" ;;
	esac
}
for n in 15 16 19 22; do
	[ -e "$(libdir $n)/libomptarget.so" ] || skip "the OpenMP runtime of LLVM $n is not unpacked under deps/ (scripts/install-deps.sh)"
done

cat >tp.c <<'C'
#include <stdio.h>
#include <omp.h>
int GlobalVar;
#pragma omp threadprivate(GlobalVar)
int main(void) {
  int errors = 0;
#pragma omp parallel num_threads(4)
  {
    GlobalVar = omp_get_thread_num();
#pragma omp barrier
#pragma omp task
    {
      if (GlobalVar != omp_get_thread_num()) {
#pragma omp atomic
        errors++;
      }
    }
#pragma omp taskwait
  }
  printf("errors=%d\n", errors);
  return errors != 0;
}
C
# The same with a target region: the device image then has to be loaded.
sed 's|^  printf|  int r = 0;\n#pragma omp target map(from: r)\n  r = 42;\n  printf("r=%d\\n", r);\n  printf|' tp.c >tpt.c

# build N SRC: compile with clang-N, link with LLVM N's own wrapper
# (SRC.N.llvm) and with offlink (SRC.N.ours, its plan in SRC.N.ours.v).
build() {
	local n=$1 src=$2 lib inc
	lib=$(libdir "$n")
	inc=$(echo "$lib"/clang/"$n"*/include)
	local omp=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -I"$inc")
	check "clang-$n -c $src" "clang-$n" "${omp[@]}" -c "$src.c" -o "$src.$n.o"
	"clang-$n" "${omp[@]}" "$src.$n.o" -L"$lib" -o "$src.$n.llvm" 2>"$src.$n.llvm.err"
	echo $? >"$src.$n.llvm.status"
	"clang-$n" "${omp[@]}" -B "$COMPAT" "$src.$n.o" -L"$lib" -Wl,--wrapper-verbose \
		-o "$src.$n.ours" 2>"$src.$n.ours.v"
	echo $? >"$src.$n.ours.status"
}
# runs N PROG: run on release N's libomptarget; output and status kept.
runs() {
	LD_LIBRARY_PATH=$(libdir "$1") "./$2" >"$2.out" 2>"$2.rerr"
	echo $? >"$2.rstatus"
}

# clang 15: both link, both run alike.
for src in tp tpt; do
	build 15 $src
	[ "$(cat $src.15.llvm.status)" = 0 ] || fail "LLVM 15's own link of $src failed: $(tail -3 $src.15.llvm.err)"
	[ "$(cat $src.15.ours.status)" = 0 ] || fail "offlink's link of $src (clang 15) failed: $(grep -v '^offlink:  ' $src.15.ours.v | tail -4)"
	# (item 7 of issue 32: the host linker run directly, as 15's wrapper
	# does, not a clang driver: the same image, byte for byte)
	grep -qE -- "^[^ ]*/ld -m elf_x86_64 -shared .* -Bsymbolic -o " $src.15.ours.v ||
		fail "the CPU device link of LLVM 15 code is not 15's ld -shared: $(grep -- '-shared' $src.15.ours.v | head -2)"
	grep -- ' -shared ' $src.15.ours.v | grep -q -- '--no-undefined' &&
		fail "the CPU device link of LLVM 15 code has --no-undefined"
	for w in llvm ours; do
		mkdir -p img.$src.$w
		(cd img.$src.$w && "$BIN/offlink-binary" "../$src.15.$w" >/dev/null) || fail "extract $src.15.$w"
	done
	cmp -s img.$src.llvm/*x86_64* img.$src.ours/*x86_64* ||
		fail "$src: the device image is not LLVM 15's, byte for byte"
	for w in llvm ours; do runs 15 $src.15.$w; done
	diff -u $src.15.llvm.out $src.15.ours.out || fail "$src: offlink's program prints otherwise than LLVM 15's"
	[ "$(cat $src.15.llvm.rstatus)" = "$(cat $src.15.ours.rstatus)" ] ||
		fail "$src: offlink's program exits $(cat $src.15.ours.rstatus), LLVM 15's $(cat $src.15.llvm.rstatus)"
	echo "ok: clang 15, $src: links and runs as with LLVM 15's tools (exit $(cat $src.15.ours.rstatus))"
done
contains tp.15.ours.out "errors=0"
[ "$(cat tp.15.ours.rstatus)" = 0 ] || fail "the threadprivate program failed: $(cat tp.15.ours.rerr)"

# clang 16, 19, 22: both refuse it, for the same symbol.
for n in 16 19 22; do
	build $n tp
	[ "$(cat tp.$n.llvm.status)" != 0 ] || fail "LLVM $n's own wrapper linked tp (it passes --no-undefined)"
	[ "$(cat tp.$n.ours.status)" != 0 ] || fail "offlink linked LLVM $n's tp, which LLVM $n's wrapper refuses"
	contains tp.$n.llvm.err "undefined reference to \`GlobalVar'"
	contains tp.$n.ours.v "undefined reference to \`GlobalVar'"
	grep -- '--target=x86_64-pc-linux-gnu' tp.$n.ours.v | grep -q -- '-Wl,--no-undefined' ||
		fail "the CPU device link of LLVM $n code lacks --no-undefined"
	echo "ok: clang $n: refused as by LLVM $n's wrapper"
done

# GPU flags of LLVM 15 only (the plan of a dry run: no GPU, no runtime).
need_cuda nvlink ptxas
for n in 15 19; do
	sm=sm_90
	[ $n = 15 ] && sm=sm_86
	lib=$(libdir $n)
	inc=$(echo "$lib"/clang/"$n"*/include)
	nv=(-fopenmp -fopenmp-targets=nvptx64-nvidia-cuda -Xopenmp-target=nvptx64-nvidia-cuda -march=$sm
	    --cuda-path="$CUDA" -I"$inc" -Wno-unknown-cuda-version)
	[ -e "$lib/libomptarget-nvptx-$sm.bc" ] && nv+=(--libomptarget-nvptx-bc-path="$lib") || nv+=(-nogpulib)
	am=(-fopenmp -fopenmp-targets=amdgcn-amd-amdhsa -Xopenmp-target=amdgcn-amd-amdhsa -march=gfx90a
	    -nogpulib -I"$inc")
	check "clang-$n nvptx" "clang-$n" "${nv[@]}" -c tp.c -o nv.$n.o
	check "clang-$n amdgcn" "clang-$n" "${am[@]}" -c tp.c -o am.$n.o
	PATH=$CUDA/bin:$PATH "clang-$n" "${nv[@]}" -B "$COMPAT" nv.$n.o -L"$lib" -Wl,--dry-run -o nv$n 2>nv.$n.v ||
		fail "nvptx dry run ($n): $(tail -3 nv.$n.v)"
	"clang-$n" "${am[@]}" -B "$COMPAT" am.$n.o -L"$lib" -Wl,--dry-run -o am$n 2>am.$n.v ||
		fail "amdgcn dry run ($n): $(tail -3 am.$n.v)"
	if [ $n = 15 ]; then
		grep -E '/nvlink( |$)' nv.$n.v | grep -q -- ' -m64' || fail "LLVM 15: nvlink without -m64: $(grep nvlink nv.$n.v)"
		grep ld.lld am.$n.v | grep -q -- '-plugin-opt=-amdgpu-internalize-symbols' ||
			fail "LLVM 15: ld.lld without -amdgpu-internalize-symbols: $(grep ld.lld am.$n.v)"
	else
		grep -E '/nvlink( |$)' nv.$n.v | grep -q -- ' -m64' && fail "LLVM $n: nvlink with -m64"
		grep ld.lld am.$n.v | grep -q -- 'internalize' && fail "LLVM $n: ld.lld with -amdgpu-internalize-symbols"
	fi
done
echo "ok: LLVM 15's nvlink -m64 and AMDGPU internalization, and only 15's"
echo "PASS: device-link flags follow the release"
