#!/usr/bin/env bash
# Build offlink and run every test, as CI does:
#   1. gcc build with -Werror; all unit, CLI and end-to-end tests;
#   2. ASan+UBSan build; the unit and CLI tests and the end-to-end tests
#      not labelled "heavy" again under the sanitizers (a heavy one spends
#      its time in the compilers, or repeats another release's test:
#      tests/CMakeLists.txt, "ctest-heavy");
#   3. clang-19 build with -Werror of the libFuzzer targets; a short run of
#      each (JOBS at a time) on seeds generated here, plus the saved
#      regression inputs.
# Environment: JOBS (default: CPU count), FUZZ_SECONDS (default 20 per
# target), OFFLINK_NO_SKIP=1 to turn a missing installed tool into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
jobs=${JOBS:-$(nproc)}
fuzz_seconds=${FUZZ_SECONDS:-20}
started=$SECONDS

phase() { printf '\n=== %s (%ds)\n' "$1" $((SECONDS - started)); }

phase "build (gcc, -Werror)"
cmake -S . -B build -DOFFLINK_WERROR=ON >/dev/null
cmake --build build -j"$jobs"

phase "all tests"
ctest --test-dir build -j"$jobs" --output-on-failure

phase "build (ASan+UBSan)"
cmake -S . -B build-asan -DOFFLINK_SANITIZE=ON -DOFFLINK_WERROR=ON >/dev/null
cmake --build build-asan -j"$jobs"

phase "tests under ASan+UBSan (all but the heavy end-to-end ones)"
# (the gcc pass's timings, so that this pass starts its longest tests
# first as well)
mkdir -p build-asan/Testing/Temporary
cp build/Testing/Temporary/CTestCostData.txt build-asan/Testing/Temporary/ 2>/dev/null || true
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --test-dir build-asan -j"$jobs" --output-on-failure -LE '^heavy$'

phase "build (clang-19, -Werror, libFuzzer targets)"
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang-19 -DOFFLINK_FUZZ=ON -DOFFLINK_TESTS=ON \
	-DOFFLINK_WERROR=ON >/dev/null
cmake --build build-fuzz -j"$jobs"

phase "fuzzing, ${fuzz_seconds}s per target"
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
build-fuzz/test-bin/make_malformed "$seeds" >/dev/null
printf 'HELLO' >"$seeds/img.o"
build/bin/offlink-binary -o "$seeds/two.bin" --image=file="$seeds/img.o",triple=x86_64-pc-linux-gnu,kind=openmp \
	--image=file="$seeds/img.o",triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda
build/bin/offlink-binary -o "$seeds/v3.bin" --compress --image=file="$seeds/img.o",triple=t
# LLVM 23's and 24's packages: one binary of version 2 (3) holding
# several entries
for r in 23 24; do
	build/bin/offlink-binary --llvm=$r -o "$seeds/llvm$r.bin" \
		--image=file="$seeds/img.o",triple=nvptx64-nvidia-cuda,arch=sm_90,kind=openmp,k=v \
		--image=file="$seeds/img.o",triple=amdgpu9.0a-amd-amdhsa,arch=gfx90a,kind=hip \
		--image=file="$seeds/img.o",triple=spirv64-unknown-unknown,kind=sycl
done
# bitcode of clang 23 and 24 (symbol table version 4), made in the sid
# root where the gcc pass built offlink for it
if [ -x deps/sid/usr/bin/clang-23 ] && [ -x build/sid/bin/offlink ] && [ "$(id -u)" -eq 0 ]; then
	printf '%s\n' "for r in 23 24; do echo 'int g(int); int f(int x) { return g(x) + 1; }' |" \
		"clang-\$r -x c -c -flto=thin - -o /tmp/thin\$r.bc; done" >"$seeds/sid.sh"
	OFFLINK_SRC=$PWD OFFLINK_BUILD=$PWD/build/sid OFFLINK_SID_TMP=$seeds \
		bash tests/lib/in_sid.sh /tmp/sid.sh || echo "test.sh: no clang 23/24 bitcode seeds" >&2
	rm -f "$seeds/sid.sh"
fi
if command -v clang-19 >/dev/null; then
	echo 'int x;' | clang-19 -x c -c - -o "$seeds/host.o" -Xclang -fembed-offload-object="$seeds/two.bin"
	# bitcode with a ThinLTO summary and without (fuzz_bitcode_symtab's
	# LTO-kind reader walks their module blocks)
	echo 'int g(int); int f(int x) { return g(x) + 1; }' | clang-19 -x c -c -flto=thin - -o "$seeds/thin.bc"
	echo 'int g(int); int f(int x) { return g(x) + 1; }' | clang-19 -x c -c -flto - -o "$seeds/full.bc"
	(cd "$seeds" && ar rcs lib.a host.o img.o)
	# HIP objects: entry tables with managed variables and relocations.
	clang-19 -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a \
		-c tests/e2e/gpu/hip_k1.hip -o "$seeds/hip_k1.o"
	clang-19 -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a \
		-c tests/e2e/gpu/hip_main.hip -o "$seeds/hip_main.o"
fi
# NVIDIA fat binaries, from nvcc where CUDA is installed (fuzz_cuda_fatbin)
if [ -x "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" ]; then
	printf '__device__ int f(int x) { return x + 1; }\n__global__ void k(int *p) { *p = f(*p); }\n' \
		>"$seeds/k.cu"
	if "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" -rdc=true -arch=sm_90 -c "$seeds/k.cu" -o "$seeds/nvcc_rdc.o"; then
		objcopy -O binary --only-section=__nv_relfatbin "$seeds/nvcc_rdc.o" "$seeds/relfatbin.bin"
	fi
	# PTX text (fuzz_ptx_symbols)
	"${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" -rdc=true -arch=sm_90 -ptx "$seeds/k.cu" -o "$seeds/k.ptx" || true
	rm -f "$seeds/k.cu"
fi
# The shapes of issue 39, made here: a bundle nested 8 deep whose entries
# share one inner bundle, 64 entries at the same bytes, compressed
# bundles declaring far more than they store, and fat binaries of many
# PTX entries (an nvcc object of them, for many SMs).
build-fuzz/test-bin/make_bombs nest 8 8 "$seeds/nest.bin"
build-fuzz/test-bin/make_bombs nest 1 64 "$seeds/shared.bin" 128
build-fuzz/test-bin/make_bombs seq 3 33554432 0 "$seeds/ccob_seq.bin"
build-fuzz/test-bin/make_many fatbin 150 "$seeds/ptx_many.fatbin"
build-fuzz/test-bin/make_many fatbin 120 "$seeds/ptx_sms.fatbin" 100
printf 'm_seed\0' >"$seeds/nv.id"
echo 'int h;' | gcc -x c -c - -o "$seeds/nvh.o"
objcopy --add-section __nv_module_id="$seeds/nv.id" --add-section __nv_relfatbin="$seeds/ptx_sms.fatbin" \
	"$seeds/nvh.o" "$seeds/nvcc_many.o"
rm -f "$seeds/nv.id" "$seeds/nvh.o"
cp "$src"/tests/fuzz/regressions/* "$seeds/"
if [ -e "$seeds/hip_k1.o" ]; then
	# The relocation that wrapped the bounds check (issue 9, item 2).
	cp "$seeds/hip_k1.o" "$seeds/hip_reloc_wrap.o"
	build/test-bin/elf_poke "$seeds/hip_reloc_wrap.o" rela-offset hip_offloading_entries 0xffffffffffffffe0
	build/test-bin/elf_poke "$seeds/hip_reloc_wrap.o" section-offset hip_offloading_entries 0
fi
# The registration source generators get strings, not files (each run
# compiles twice, so few, short seeds).
wrap_seeds=$(mktemp -d)
trap 'rm -rf "$seeds" "$wrap_seeds"' EXIT
printf '\001\000a.out\000img\000c\000x86_64-pc-linux-gnu\000\000k.o' >"$wrap_seeds/plain"
printf '\045\000d*/x\000d*\000*/\000nvptx64-*/\n#error\n/*\000sm_90\000lib.a(#1/x*/)\000v.managed\000v' >"$wrap_seeds/comment"
# The cache's parsers: the first byte picks one (tests/fuzz/fuzz_cache_parsers.c).
cache_seeds=$(mktemp -d)
trap 'rm -rf "$seeds" "$wrap_seeds" "$cache_seeds"' EXIT
printf '\000out.so: \\\n  k.o \\\n  sp ace/lib.a\n\nk.o:\n' >"$cache_seeds/gnu.d"
printf '\001out.so: \\\n k.o \\\n sp\\ ace/l$$b\\#.a\n' >"$cache_seeds/lld.d"
printf '\002clang version 19\n "/usr/bin/ld" "-o" "a\\"b" "-lc"\n' >"$cache_seeds/jobs"
printf '\003OLMANIF1lib/libdev.a\000/lib/libc.so.6\000' >"$cache_seeds/manifest"
printf '\005redis://:pw@h:6379/2|read-only|connect-timeout=5' >"$cache_seeds/url"
printf '\006attempt to open lib/libx.so failed\nattempt to open lib/libx.a succeeded\ncannot find script file i.ld\n' >"$cache_seeds/ldtrace"
printf '\007S/usr/lib/gcc\000dir\000E PATH\000=/bin\000Ox\000file:ab\000' >"$cache_seeds/facts"
printf '\010OLPROBE1\001\000\000\000\013\000\000\000S/bin/ld\000dir\000\002\000\000\000ld\000-o\000' >"$cache_seeds/probe"
printf '\011/* s */ INPUT(libc.so.6 -lq) GROUP(/a AS_NEEDED(=/b, c)) INCLUDE i.ld\n' >"$cache_seeds/script"
cp "$src"/tests/fuzz/regressions/* "$cache_seeds/"
# fuzz F: run target F for fuzz_seconds; its log in build-fuzz/F.log.
fuzz() {
	local f=$1 corpus=$seeds
	mkdir -p "build-fuzz/corpus-$f"
	[ $f = fuzz_wrapper_source ] && corpus=$wrap_seeds
	[ $f = fuzz_cache_parsers ] && corpus=$cache_seeds
	# -timeout: an input that runs 10 s is a hang, reported as a finding
	# (libFuzzer's default waits 20 minutes, past max_total_time).
	build-fuzz/fuzz/$f -max_total_time="$fuzz_seconds" -timeout=10 -max_len=16384 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=build-fuzz/$f- "build-fuzz/corpus-$f" "$corpus" \
		>"build-fuzz/$f.log" 2>&1
}
# The targets $jobs at a time, each for its whole fuzz_seconds on a CPU of
# its own; every one runs, and every failure is reported.
targets=(fuzz_offload_binary fuzz_input_scan fuzz_bitcode_symtab fuzz_bundle fuzz_offload_entries
	fuzz_wrapper_source fuzz_cache_parsers fuzz_spirv_container fuzz_cuda_fatbin fuzz_ptx_symbols)
crashed=0
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
	batch=("${targets[@]:i:jobs}")
	pids=()
	for f in "${batch[@]}"; do
		fuzz "$f" &
		pids+=($!)
	done
	for k in "${!batch[@]}"; do
		f=${batch[$k]}
		if ! wait "${pids[$k]}"; then
			tail -40 "build-fuzz/$f.log"
			echo "FAIL: $f found a crash (input saved under build-fuzz/$f-*)" >&2
			crashed=1
			continue
		fi
		echo "$f: $(grep -E 'stat::number_of_executed_units' "build-fuzz/$f.log" | awk '{print $2}') runs, no crash"
	done
done
[ $crashed = 0 ] || exit 1

phase "done"
