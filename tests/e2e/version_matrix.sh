#!/usr/bin/env bash
# Issue 10: one offlink for clang 16, 19 and 22; issue 18: 15, and 14
# (Debian's default clang, the old offload driver: there offlink is the
# bundler and clang-offload-wrapper, clang and ld do the rest; its cells
# are the ones 14's driver offers for a CPU target).  For each release, each
# cell is built with that clang and linked twice -- by the release's own
# clang-linker-wrapper and by offlink (clang -B <compat>) -- and the two
# programs must behave the same: the same output on the release's real
# libomptarget (host device), or for CUDA and HIP the same registrations
# in the runtime stub's log (images, archs, every entry).  A cell LLVM's
# own wrapper fails is listed with why; offlink must still pass it.
# -v of a link must show that release's tools only.
#
# MATRIX_RELEASES (default "14 15 16 19 22") and MATRIX_CELLS (default: all)
# narrow the run; CTest runs one test per release (OFFLINK_PART).  Needs
# the releases' clang, clang-tools, lld and the OpenMP runtimes
# install-deps.sh unpacks under deps/.
# ctest-parts: 14 15 16 19 22 23 24
# ctest-cost: 20
# ctest-heavy: 15 16 22
# ctest-sid: 23 24
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
need ar gcc

M=$OFFLINK_SRC/tests/e2e/matrix
DEPS=$OFFLINK_SRC/deps
releases=${MATRIX_RELEASES:-${OFFLINK_PART:-14 15 16 19 22}}
cells=${MATRIX_CELLS:-one twotu globals ctor staticlib reloc lto nvptx nvptxlto nvptxthin cuda hip hipwhole nvptx2 nvptx2thin devrt ompamd hipplain hipcomp}
unset LIBRARY_PATH   # (CUDA images set it; it would add -L to every link)

passed=0
llvm_fails=()
both_fail=()
failures=()

# ---- per release ----

setup_release() {
	N=$1
	CLANG=clang-$N
	CLANGXX=clang++-$N
	case $N in
	16) OMPLIB=$DEPS/llvm16-omp/usr/lib/llvm-16/lib ;;
	19) OMPLIB=/usr/lib/llvm-19/lib ;;
	23) OMPLIB=/usr/lib/llvm-23/lib ;;
	24) OMPLIB=/opt/llvm24-omp/usr/lib/llvm-24/lib ;;
	*) OMPLIB=$DEPS/llvm$N-omp/usr/lib/llvm-$N/lib ;;
	esac
	RUNLIB=$OMPLIB
	# (clang/<N>/include from 16 on, clang/<N.x.y>/include before)
	OMPINC=$(echo "$OMPLIB"/clang/"$N"*/include)
	OMP=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -I"$OMPINC")
	LDFLAGS=(-L"$OMPLIB")
	W=$T/r$N
	mkdir -p "$W"
}

have_release() {
	local wrapper=clang-linker-wrapper-$1
	[ "$1" = 14 ] && wrapper=clang-offload-wrapper-14
	command -v "clang-$1" >/dev/null && command -v "$wrapper" >/dev/null &&
		[ -e "$OMPLIB/libomptarget.so" ]
}

# The cells a release's driver offers: 14's old driver links OpenMP for
# CPU targets from objects (no static libraries of device code, no -r,
# no offload LTO, and its NVPTX path is clang-nvlink-wrapper's).
release_cells() {
	if [ "$1" = 14 ]; then
		for c in $cells; do case $c in one | twotu | globals | ctor) echo $c ;; esac; done
	elif [ "$1" -lt 23 ]; then
		for c in $cells; do case $c in nvptx2 | nvptx2thin | devrt | ompamd | hipplain | hipcomp) ;; *) echo $c ;; esac; done
	else
		echo $cells
	fi
}
# The NVPTX architecture: 15 knows none past sm_86.
sm_of() { [ "$N" = 15 ] && echo sm_86 || echo sm_90; }

# ---- building, linking, running ----

# cc_ CELL OUT SRC ARGS...: compile one source.
cc_() {
	local cell=$1 out=$2 src=$3 tool=$CLANG b=()
	shift 3
	case $src in *.cpp) tool=$CLANGXX ;; esac
	# clang 14 bundles at -c: with offlink's bundler (both links read it)
	[ "$N" = 14 ] && b=(-B "$COMPAT")
	"$tool" "${b[@]}" "$@" -c "$src" -o "$out" 2>>"$cell.build" || {
		echo "compile $src: $(tail -3 "$cell.build")"
		return 1
	}
}

# link_both CELL OUT LINK-ARGS...: link with LLVM's wrapper (OUT.llvm)
# and offlink (OUT.ours, verbose into OUT.ours.v).
link_both() {
	local cell=$1 out=$2
	shift 2
	"$CLANGXX" "$@" -o "$out.llvm" 2>"$out.llvm.err"
	echo $? >"$out.llvm.status"
	if [ "$N" = 14 ]; then
		# (offlink is the wrapper and bundler clang 14 runs: the plan is
		# what -### shows of them)
		"$CLANGXX" -B "$COMPAT" "$@" -o "$out.ours" -### 2>"$out.ours.v"
		"$CLANGXX" -B "$COMPAT" "$@" -o "$out.ours" 2>>"$out.ours.v"
	else
		"$CLANGXX" -B "$COMPAT" "$@" -Xlinker --wrapper-verbose -o "$out.ours" 2>"$out.ours.v"
	fi
}

# run_prog PROG: run on the release's libomptarget, offloading mandatory.
run_prog() {
	LD_LIBRARY_PATH=$RUNLIB OMP_TARGET_OFFLOAD=MANDATORY "./$1" >"$1.out" 2>"$1.rerr"
}

# Only the release's own LLVM tools may appear in offlink's commands.
only_own_tools() {
	local v=$1 other
	if [ "$N" = 14 ]; then
		grep -q "\"$COMPAT/clang-offload-wrapper\"" "$v" ||
			{ echo "clang 14 did not run offlink's clang-offload-wrapper"; return 1; }
		return 0
	fi
	other=$(grep -oE '/usr/lib/llvm-[0-9]+/bin/[a-z.+-]+' "$v" | grep -v "/usr/lib/llvm-$N/bin/" | sort -u)
	[ -z "$other" ] || { echo "offlink ran another release's tools: $other"; return 1; }
	grep -q "LLVM $N, tools in /usr/lib/llvm-$N/bin" "$v" ||
		{ echo "the plan does not name LLVM $N: $(grep 'LLVM' "$v" | head -2)"; return 1; }
}

# compare_runs OUT EXPECT: run both programs; offlink's must print EXPECT
# and run on the device; LLVM's, when it linked, the same.
compare_runs() {
	local out=$1 expect=$2
	[ -x "$out.ours" ] || { echo "offlink link failed: $(grep -v '^offlink:  \|^/' "$out.ours.v" | tail -3)"; return 1; }
	only_own_tools "$out.ours.v" || return 1
	if ! run_prog "$out.ours"; then
		echo "offlink's program exited with $?: $(head -c 300 "$out.ours.rerr")"
		# 14 and 15: offlink must pass wherever the release's own tools
		# pass; a cell they fail too is theirs (status 3)
		if [ "$N" -le 15 ] && { ! llvm_outcome "$out" || ! run_prog "$out.llvm" ||
			! grep -qF -- "$expect" "$out.llvm.out"; }; then
			[ -n "$LLVM_WHY" ] || LLVM_WHY="its program fails the same way (exit $(run_prog "$out.llvm"; echo $?))"
			return 3
		fi
		return 1
	fi
	grep -qF -- "$expect" "$out.ours.out" || { echo "offlink's program printed $(cat "$out.ours.out")"; return 1; }
	grep -q "initial=1" "$out.ours.out" && { echo "the target region ran on the host"; return 1; }
	[ "$N" -ge 23 ] && { stub_view "$out" ours || return 1; }
	llvm_outcome "$out" || return 0
	run_prog "$out.llvm" || { LLVM_WHY="its program exited with $?: $(head -c 120 "$out.llvm.rerr" | tr '\n' ' ')"; return 0; }
	if grep -q "initial=1" "$out.llvm.out"; then
		LLVM_WHY="its program runs the target regions on the host (no device image registered)"
		return 0
	fi
	if ! grep -qF -- "$expect" "$out.llvm.out"; then
		LLVM_WHY="its program printed $(tr '\n' ' ' <"$out.llvm.out")"
		return 0
	fi
	diff -u "$out.llvm.out" "$out.ours.out" >&2 || { echo "the outputs differ"; return 1; }
	[ "$N" -lt 23 ] || stub_view "$out" llvm
}

# stub_view OUT WHO: from 23, each image is registered inside an offload
# binary of version 2 (23) or 3 (24): the stub, preloaded before the
# real libomptarget, must find it there (its triple) and the program must
# still run and exit cleanly; LLVM's and offlink's programs register the
# same images.
stub_view() {
	local out=$1 who=$2
	OFFSTUB_LOG=$out.$who.log LD_PRELOAD=$STUB LD_LIBRARY_PATH=$RUNLIB OMP_TARGET_OFFLOAD=MANDATORY \
		"./$out.$who" >/dev/null 2>"$out.$who.serr" ||
		{ echo "$who's program under the stub exited with $?: $(head -c 300 "$out.$who.serr")"; return 1; }
	stub_images "$out.$who.log" >"$out.$who.images"
	grep -q '^openmp x86_64-pc-linux-gnu ' "$out.$who.images" ||
		{ echo "the stub finds no x86_64 image in $who's registration: $(cat "$out.$who.images")"; return 1; }
	[ "$who" = ours ] || diff -u "$out.llvm.images" "$out.ours.images" >&2 ||
		{ echo "the registered images differ"; return 1; }
}

# llvm_outcome OUT: 0 if LLVM's link succeeded; else LLVM_WHY says why.
llvm_outcome() {
	[ "$(cat "$1.llvm.status")" = 0 ] && return 0
	LLVM_WHY="its link fails: $(grep -iE 'error|fatal' "$1.llvm.err" | grep -v 'linker command failed' | head -1 | cut -c1-160)"
	return 1
}

# ---- the cells ----

cell_one() {
	cc_ one one.o "$M/one.c" "${OMP[@]}" || return 1
	if [ "$N" = 14 ]; then
		# offlink's bundle is LLVM 14's, byte for byte; and one step
		# (compile and link, no bundler) through offlink's wrapper
		"$CLANG" "${OMP[@]}" -c "$M/one.c" -o one.llvm14.o 2>>one.build &&
			cmp -s one.o one.llvm14.o || { echo "offlink's bundle is not LLVM 14's"; return 1; }
		"$CLANG" -B "$COMPAT" "${OMP[@]}" "$M/one.c" "${LDFLAGS[@]}" -o onestep 2>>one.build ||
			{ echo "one-step compile and link: $(tail -2 one.build)"; return 1; }
		run_prog onestep && grep -q "initial=0 r=42" onestep.out ||
			{ echo "the one-step program: $(cat onestep.out onestep.rerr | head -3)"; return 1; }
	fi
	link_both one one "${OMP[@]}" one.o "${LDFLAGS[@]}"
	compare_runs one "r=42"
}

cell_twotu() {
	for f in twotu_a twotu_b; do cc_ twotu $f.o "$M/$f.c" "${OMP[@]}" || return 1; done
	link_both twotu twotu "${OMP[@]}" twotu_a.o twotu_b.o "${LDFLAGS[@]}"
	compare_runs twotu "r=42 b=12"
}

cell_globals() {
	for f in globals compute globals_main; do cc_ globals $f.o "$M/$f.c" "${OMP[@]}" || return 1; done
	link_both globals globals "${OMP[@]}" globals_main.o compute.o globals.o "${LDFLAGS[@]}"
	compare_runs globals "sum=410"
}

cell_ctor() {
	cc_ ctor ctor.o "$M/ctor.cpp" "${OMP[@]}" || return 1
	link_both ctor ctor "${OMP[@]}" ctor.o "${LDFLAGS[@]}"
	compare_runs ctor "counter=84"
}

# Kernels in a static library; the program's own object has no device code.
cell_staticlib() {
	cc_ staticlib kern.o "$M/kern.c" "${OMP[@]}" || return 1
	cc_ staticlib kern_main.o "$M/kern_main.c" -fopenmp || return 1
	ar rcs libkern.a kern.o
	link_both staticlib staticlib "${OMP[@]}" kern_main.o -L. -lkern "${LDFLAGS[@]}"
	compare_runs staticlib "a=3,6,9,12"
}

# -r: pre-link the kernels; a plain gcc link makes the program.
cell_reloc() {
	cc_ reloc kern.o "$M/kern.c" "${OMP[@]}" || return 1
	"$CLANG" "${OMP[@]}" --offload-link -r kern.o "${LDFLAGS[@]}" -o pre.llvm.o 2>pre.llvm.err
	echo $? >reloc.llvm.status
	"$CLANG" "${OMP[@]}" --offload-link -r -B "$COMPAT" kern.o "${LDFLAGS[@]}" -Xlinker --wrapper-verbose \
		-o pre.ours.o 2>reloc.ours.v || { echo "offlink -r failed: $(grep -iE 'error' reloc.ours.v | head -3)"; return 1; }
	for who in llvm ours; do
		[ -e pre.$who.o ] || continue
		gcc "$M/kern_main.c" pre.$who.o -L"$OMPLIB" -lomptarget -lomp -o reloc.$who \
			2>reloc.$who.gcc || { [ $who = ours ] && { echo "gcc link: $(tail -2 reloc.ours.gcc)"; return 1; }
			echo 1 >reloc.llvm.status; cp reloc.llvm.gcc reloc.llvm.err; }
	done
	[ -e pre.llvm.o ] || cp pre.llvm.err reloc.llvm.err
	compare_runs reloc "a=3,6,9,12"
}

cell_lto() {
	for f in globals compute globals_main; do
		cc_ lto $f.lto.o "$M/$f.c" "${OMP[@]}" -foffload-lto || return 1
	done
	link_both lto lto "${OMP[@]}" -foffload-lto globals_main.lto.o compute.lto.o globals.lto.o "${LDFLAGS[@]}"
	compare_runs lto "sum=410"
}

cell_nvptx() {
	nvptx_cell nvptx
}

# The same with -foffload-lto: the NVPTX device code is bitcode, linked by
# each release's NVPTX LTO (llvm-link and llc for 16).
cell_nvptxlto() {
	nvptx_cell nvptxlto -foffload-lto
}

# And with -foffload-lto=thin: each release's llvm-lto2, a backend (its
# clang -cc1) and a ptxas per module (thin/thinlto.c).
cell_nvptxthin() {
	nvptx_cell nvptxthin -foffload-lto=thin
}

nvptx_cell() {
	local cell=$1
	shift
	local sm
	sm=$(sm_of)
	local nv=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu,nvptx64-nvidia-cuda
		  -Xopenmp-target=nvptx64-nvidia-cuda -march=$sm --cuda-path="$CUDA"
		  -I"$OMPINC")
	need_cuda ptxas nvlink
	local extra=()
	if [ -e "$OMPLIB/libomptarget-nvptx-$sm.bc" ]; then
		nv+=(--libomptarget-nvptx-bc-path="$OMPLIB")
	else
		# No device runtime for NVPTX (Debian's LLVM 22): a stand-in
		# for its entry points, given to both device links.
		nv+=(-nogpulib)
		"$CLANG" --target=nvptx64-nvidia-cuda -march=$sm --cuda-path="$CUDA" \
			-Wno-unknown-cuda-version -c "$M/devrt_stub.c" -o devrt_stub.o 2>>$cell.build ||
			{ echo "compile devrt_stub.c: $(tail -2 $cell.build)"; return 1; }
		extra=(-Xoffload-linker-nvptx64-nvidia-cuda "$PWD/devrt_stub.o")
	fi
	cc_ $cell nv.o "$M/one.c" "${nv[@]}" "$@" || return 1
	link_both $cell $cell "${nv[@]}" "$@" nv.o "${extra[@]}" "${LDFLAGS[@]}"
	compare_runs $cell "r=42"
}

# CUDA and HIP: the registrations the stub logs.
compare_logs() {
	local out=$1 plan=${2:-plan}
	[ -x "$out.ours" ] || { echo "offlink link failed: $(grep -iE 'error' "$out.ours.v" | head -3)"; return 1; }
	[ "$plan" = noplan ] || only_own_tools "$out.ours.v" || return 1
	OFFSTUB_LOG=$out.ours.log LD_LIBRARY_PATH=$STUBDIR "./$out.ours" >/dev/null 2>"$out.ours.rerr" ||
		{ echo "offlink's program exited with $?: $(head -c 300 "$out.ours.rerr")"; return 1; }
	stub_images "$out.ours.log" >"$out.ours.images"
	stub_entries "$out.ours.log" >"$out.ours.entries"
	[ -s "$out.ours.entries" ] || { echo "offlink's program registers nothing"; return 1; }
	llvm_outcome "$out" || return 0
	# (a program that reads managed variables through the null pointers
	# LLVM's registration left crashes after registering: compare anyway)
	OFFSTUB_LOG=$out.llvm.log LD_LIBRARY_PATH=$STUBDIR "./$out.llvm" >/dev/null 2>"$out.llvm.rerr"
	local status=$?
	[ -s "$out.llvm.log" ] || { LLVM_WHY="its program exited with $status, registering nothing"; return 0; }
	stub_images "$out.llvm.log" >"$out.llvm.images"
	stub_entries "$out.llvm.log" >"$out.llvm.entries"
	diff -u "$out.llvm.images" "$out.ours.images" >&2 || { echo "the images differ"; return 1; }
	diff -u <(grep -v ' managed ' "$out.llvm.entries") <(grep -v ' managed ' "$out.ours.entries") >&2 ||
		{ echo "the entries differ"; return 1; }
	# Managed variables: LLVM up to 19 registers none (the program reads
	# them through null pointers); LLVM 22 registers each once per TU
	# that declares it, extern declarations too (the runtime then makes a
	# second copy); offlink registers each once, from its definition.
	[ -z "$(grep ' managed ' "$out.ours.entries" | uniq -d)" ] ||
		{ echo "offlink registers a managed variable twice"; return 1; }
	if ! grep -q ' managed ' "$out.llvm.entries"; then
		grep -q ' managed ' "$out.ours.entries" &&
			LLVM_WHY="it registers no managed variable (the program reads them through null pointers$([ $status = 0 ] || echo ": exit $status"))"
	elif ! diff -q <(grep ' managed ' "$out.llvm.entries" | sort -u) <(grep ' managed ' "$out.ours.entries") >/dev/null; then
		echo "the managed variables differ"
		return 1
	elif ! diff -q <(grep ' managed ' "$out.llvm.entries") <(grep ' managed ' "$out.ours.entries") >/dev/null; then
		LLVM_WHY="it registers each managed variable once per TU declaring it, extern ones too"
	fi
	return 0
}

cell_cuda() {
	# (-target-sdk-version: the launch API of CUDA >= 9.2 with CUDA 13,
	# which each release calls newer than it knows; 16 knows up to 11.8)
	local sdk=12.5
	[ "$N" = 16 ] && sdk=11.8
	[ "$N" = 15 ] && sdk=11.5
	local cu=(-x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib --cuda-path="$CUDA"
		  -Wno-unknown-cuda-version -Xclang -target-sdk-version=$sdk --offload-arch=$(sm_of))
	need_cuda ptxas nvlink fatbinary
	for f in cuda_k1 cuda_k2 cuda_main; do
		cc_ cuda $f.o "$GPU_SRC/$f.cu" "${cu[@]}" || return 1
	done
	cc_ cuda cuda_managed.o "$GPU_SRC/cuda_managed.c" || return 1
	# (from 24, a CUDA link runs the wrapper only when told: --offload-link)
	local link=(--offload-new-driver -fgpu-rdc)
	[ "$N" -ge 24 ] && link+=(--offload-link)
	link_both cuda cuda "${link[@]}" --cuda-path="$CUDA" cuda_k1.o cuda_k2.o \
		cuda_main.o cuda_managed.o -L"$STUBDIR" -lcudart
	compare_logs cuda
}

# The HIP runtime on the link line: up to 22 clang names -lamdhip64, which
# -L finds in the stub's directory; from 23 it names the file in its ROCm
# path (/usr/lib/libamdhip64.so, which Debian does not have), so the stub
# is named instead.
hip_rt() {
	if [ "$N" -ge 23 ]; then echo -no-hip-rt "$STUBDIR/libamdhip64.so"; else echo -L"$STUBDIR"; fi
}

cell_hip() {
	local hip=(-x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a,gfx908)
	for f in hip_k1 hip_k2 hip_main; do
		cc_ hip $f.o "$GPU_SRC/$f.hip" "${hip[@]}" || return 1
	done
	# shellcheck disable=SC2046
	link_both hip hip --offload-new-driver -fgpu-rdc --hip-link hip_k1.o hip_k2.o hip_main.o $(hip_rt)
	compare_logs hip
}

# HIP without -fgpu-rdc: the device code is linked at compile time, by
# the wrapper (clang 22, --emit-fatbin-only) or the bundler (16, 19), so
# here the compile goes through offlink too.
cell_hipwhole() {
	local hip=(-x hip --offload-new-driver -nogpuinc -nogpulib --offload-arch=gfx90a,gfx1030
		   -I"$GPU_SRC")
	# (clang 16 runs the lld in the directory it was invoked from, and
	# /usr/bin/lld may be another release's: invoke it from its own)
	local cxx=$CLANGXX
	[ -x "/usr/lib/llvm-$N/bin/clang++" ] && cxx=/usr/lib/llvm-$N/bin/clang++
	"$cxx" "${hip[@]}" -c "$M/hip_whole.hip" -o whole.llvm.o 2>whole.llvm.err
	echo $? >hipwhole.llvm.status
	"$cxx" -B "$COMPAT" "${hip[@]}" -c "$M/hip_whole.hip" -o whole.ours.o 2>hipwhole.ours.v ||
		{ echo "offlink's compile failed: $(grep -iE 'error' hipwhole.ours.v | head -3)"; return 1; }
	# shellcheck disable=SC2046
	"$CLANGXX" --hip-link whole.ours.o $(hip_rt) -o hipwhole.ours 2>>hipwhole.ours.v ||
		{ echo "link: $(tail -2 hipwhole.ours.v)"; return 1; }
	if [ -e whole.llvm.o ]; then
		# shellcheck disable=SC2046
		"$CLANGXX" --hip-link whole.llvm.o $(hip_rt) -o hipwhole.llvm 2>>whole.llvm.err
		echo $? >hipwhole.llvm.status
	fi
	cp whole.llvm.err hipwhole.llvm.err
	compare_logs hipwhole noplan
}

# ---- cells of 23 and 24 (issue 43) ----

# OpenMP for two NVPTX architectures: each object holds one offload
# binary of two entries (version 2 or 3); two device links, two images
# registered, as LLVM's link registers them.  With ThinLTO too (LLVM's
# own link fails it).
gpu_only_cell() {
	local cell=$1
	shift
	need_cuda ptxas nvlink
	cc_ $cell g.o "$M/gpu_only.c" -fopenmp "$@" -nogpulib --cuda-path="$CUDA" || return 1
	link_both $cell $cell -fopenmp "$@" -nogpulib --cuda-path="$CUDA" g.o "${LDFLAGS[@]}"
	[ -x $cell.ours ] || { echo "offlink link failed: $(grep -iE 'error' $cell.ours.v | head -3)"; return 1; }
	only_own_tools $cell.ours.v || return 1
	# (the stub in front of the release's libomptarget: the region runs on
	# the host, the registration is logged)
	for who in ours llvm; do
		[ $who = llvm ] && { llvm_outcome $cell || return 0; }
		OFFSTUB_LOG=$cell.$who.log LD_PRELOAD=$STUB LD_LIBRARY_PATH=$RUNLIB ./$cell.$who \
			>$cell.$who.out 2>$cell.$who.rerr ||
			{ echo "$who's program exited with $?: $(head -c 300 $cell.$who.rerr)"; return 1; }
		grep -q "r=42" $cell.$who.out || { echo "$who's program printed $(cat $cell.$who.out)"; return 1; }
		stub_images $cell.$who.log >$cell.$who.images
		stub_entries $cell.$who.log >$cell.$who.entries
		if [ $who = ours ]; then
			[ "$(wc -l <$cell.ours.images)" = "${IMAGES:-2}" ] ||
				{ echo "not ${IMAGES:-2} images registered: $(cat $cell.ours.images)"; return 1; }
			grep -q ' kernel ' $cell.ours.entries || { echo "no kernel registered"; return 1; }
		fi
	done
	diff -u $cell.llvm.images $cell.ours.images >&2 || { echo "the images differ"; return 1; }
	diff -u $cell.llvm.entries $cell.ours.entries >&2 || { echo "the entries differ"; return 1; }
}
cell_nvptx2() { gpu_only_cell nvptx2 --offload-arch=sm_80,sm_90; }
cell_nvptx2thin() { gpu_only_cell nvptx2thin --offload-arch=sm_80,sm_90 -foffload-lto=thin; }
# OpenMP for AMD (24: amdgpu9.0a-amd-amdhsa)
cell_ompamd() { IMAGES=1 gpu_only_cell ompamd --offload-arch=gfx90a; }

# From 23 clang links OpenMP's GPU device runtime as -lompdevice, which
# Debian does not ship: offlink says so, as LLVM's link does, rather than
# leaving nvlink to ignore it; given where one is (a stand-in here),
# both link.
cell_devrt() {
	need_cuda ptxas nvlink
	local nv=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu,nvptx64-nvidia-cuda
		  -Xopenmp-target=nvptx64-nvidia-cuda -march=sm_90 --cuda-path="$CUDA" -I"$OMPINC")
	cc_ devrt d.o "$M/one.c" "${nv[@]}" -nogpulib || return 1
	"$CLANGXX" "${nv[@]}" d.o "${LDFLAGS[@]}" -B "$COMPAT" -o missing 2>missing.err &&
		{ echo "offlink linked without the device runtime"; return 1; }
	grep -q "unable to find library -lompdevice" missing.err ||
		{ echo "offlink did not name -lompdevice: $(tail -3 missing.err)"; return 1; }
	[ -e missing ] && { echo "a failed link left its output"; return 1; }
	mkdir -p rt
	"$CLANG" --target=nvptx64-nvidia-cuda -march=sm_90 --cuda-path="$CUDA" -Wno-unknown-cuda-version \
		-c "$M/devrt_stub.c" -o rt/devrt.o 2>>devrt.build && ar rcs rt/libompdevice.a rt/devrt.o ||
		{ echo "the stand-in runtime: $(tail -2 devrt.build)"; return 1; }
	link_both devrt devrt "${nv[@]}" d.o -Xoffload-linker-nvptx64-nvidia-cuda -L"$PWD/rt" "${LDFLAGS[@]}"
	compare_runs devrt "r=42"
}

# HIP in one step (compile and link, -fgpu-rdc), and with its bundle
# compressed.
cell_hipplain() {
	local cxx=$CLANGXX
	# shellcheck disable=SC2046
	link_both hipplain hipplain -x hip -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a,gfx908 \
		-I"$GPU_SRC" "$GPU_SRC/hip_k1.hip" "$GPU_SRC/hip_k2.hip" "$GPU_SRC/hip_main.hip" -x none $(hip_rt)
	compare_logs hipplain
}
cell_hipcomp() {
	local hip=(-x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a,gfx908)
	for f in hip_k1 hip_k2 hip_main; do
		cc_ hipcomp $f.o "$GPU_SRC/$f.hip" "${hip[@]}" || return 1
	done
	# shellcheck disable=SC2046
	link_both hipcomp hipcomp --offload-new-driver -fgpu-rdc --hip-link --offload-compress \
		hip_k1.o hip_k2.o hip_main.o $(hip_rt)
	compare_logs hipcomp
	for who in llvm ours; do
		[ -x hipcomp.$who ] || continue
		objcopy -O binary --only-section=.hip_fatbin hipcomp.$who hipcomp.$who.fb 2>/dev/null
		head -c 4 hipcomp.$who.fb >hipcomp.$who.magic
	done
	[ "$(cat hipcomp.ours.magic)" = CCOB ] || { echo "offlink's bundle is not compressed"; return 1; }
}

# ---- the matrix ----

for r in $releases; do
	setup_release "$r"
	if ! have_release "$r"; then
		[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "LLVM $r (clang, its wrapper or its OpenMP runtime) is missing"
		echo "SKIP: LLVM $r is not installed (clang-$r, clang-linker-wrapper-$r, $OMPLIB)"
		continue
	fi
	for c in $(release_cells "$r"); do
		LLVM_WHY=""
		(
			cd "$W" && mkdir -p "$c" && cd "$c" || exit 1
			cell_$c >"$W/$c.why" 2>"$W/$c.diff"
			s=$?
			echo "$LLVM_WHY" >"$W/$c.llvm"
			exit $s
		)
		status=$?
		if [ $status -eq 77 ]; then
			echo "skip  clang $r  $c: $(tail -1 "$W/$c.diff")"
		elif [ $status -eq 3 ]; then
			both_fail+=("clang $r  $c: $(cat "$W/$c.llvm")")
			echo "both  clang $r  $c: fails with LLVM $r's own tools too: $(cat "$W/$c.llvm")"
		elif [ $status -ne 0 ]; then
			failures+=("clang $r $c: $(cat "$W/$c.why") $(head -c 600 "$W/$c.diff")")
			echo "FAIL  clang $r  $c: $(cat "$W/$c.why")"
		else
			passed=$((passed + 1))
			if [ -s "$W/$c.llvm" ] && [ -n "$(cat "$W/$c.llvm")" ]; then
				llvm_fails+=("clang $r  $c: LLVM $r's wrapper: $(cat "$W/$c.llvm")")
				echo "ok    clang $r  $c (LLVM's own wrapper does not: $(cat "$W/$c.llvm"))"
			else
				echo "ok    clang $r  $c (same as LLVM $r's wrapper)"
			fi
		fi
	done
done
echo
echo "cells where LLVM's own wrapper fails (offlink passes them):"
for f in "${llvm_fails[@]}"; do echo "  $f"; done
echo "cells the release's own tools fail, as offlink does (14, 15):"
for f in "${both_fail[@]}"; do echo "  $f"; done
[ ${#failures[@]} -eq 0 ] || {
	printf '%s\n' "${failures[@]}" >&2
	fail "${#failures[@]} cell(s) failed"
}
echo "PASS: $passed cells"
