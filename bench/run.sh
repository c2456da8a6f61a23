#!/usr/bin/env bash
# offlink beside the LLVM 19 tools it replaces, on the same inputs in the
# same run.  Each timed case runs REPS times per tool, alternating, and the
# tables give medians and the ratio LLVM / offlink (above 1: offlink is
# faster).  Outputs are checked, so a fast wrong answer cannot win.
#
#   bench/run.sh [REPS]          (default 7)
#
# Environment:
#   OFFLINK_BUILD   the build tree (default build/; needs test-bin/ for
#                   the resolution rows)
#   BENCH_INPUTS    where generated programs are kept between runs
#                   (default ~/.cache/offlink-bench: 1000 TUs take minutes
#                   to compile)
#   BENCH_SIZES     TU counts of the scaling table (default "1 10 100 1000")
#   BENCH_SMALL     the small table's rows, config:TUs (default "x86:1 x86:2
#                   x86:10 nv:1 nv:2 nv:10"; nv rows need CUDA)
#   BENCH_SECTIONS  any of: scaling small releases lto thin relink remote
#                   registration format resolution nvcc
#                   (default: all)
#   THIN_REPS       repetitions of the thin section's rows (default 3: an
#                   LLVM link of its program takes most of a minute)
#   THIN_ROWS       any of: cold relink full (default: all)
#   NVCC_REPS       pairs of each row of the nvcc section (default 11)
#   HECBENCH        a checkout of HeCBench: lulesh-omp and rsbench-omp join
#                   the LTO table
#
# Sections (docs/performance.md keeps the latest tables):
#   scaling       links of N TUs, loose objects and a static library, for
#                 x86_64 and for x86_64 + nvptx64 sm_90 (when CUDA is
#                 there); offlink's own wall time (total minus the time
#                 some tool it started was running, from its time trace);
#                 when the first device link started after the scan; the
#                 peak memory of each wrapper process itself (under
#                 --dry-run, so that no tool's memory is counted)
#   small         links of 1, 2 and 10 TUs (x86_64; x86_64 + sm_90 link
#                 only where CUDA is), one paired run: LLVM's wrapper,
#                 offlink --no-cache, offlink with a cold cache (a new
#                 cache directory and nothing remembered: a first link on
#                 a new machine), offlink with a warm cache; the last
#                 columns are the median of each rep's cold minus its
#                 --no-cache time (paired: the machine's drift cancels),
#                 through clang and for the wrapper process alone (the
#                 command clang -### shows)
#   releases      a two-object x86_64 program compiled and linked by each
#                 clang (15, 16, 19, 22): the release's own wrapper against
#                 offlink with a cold cache (a new cache directory, nothing
#                 remembered), alternating; the ratio is the median of each
#                 pair's offlink / LLVM (at most 1: offlink as fast)
#   lto           multi-TU -foffload-lto links
#   thin          device ThinLTO (needs CUDA): a 200-kernel OpenMP program
#                 for sm_90 (20 TUs of 10 kernels with libm calls, and a
#                 main), -foffload-lto=thin: LLVM 19's thin link beside
#                 offlink's, cache off, with 2 and with all cores
#                 (--wrapper-jobs); after a one-constant change to one TU,
#                 recompiled, offlink's relink (cache warm: a new constant
#                 each time, never seen before) beside LLVM 19's; the same
#                 program with full LTO beside LLVM 19's.  Paired: each row
#                 alternates the two and gives the median of the pairs'
#                 ratios
#   relink        after editing one host-only TU: offlink with its cache
#                 warm, LLVM's wrapper, and the host link alone
#   remote        the farm of docs/farm.md: a second worker, its checkout
#                 at another path, with an empty local store and nothing
#                 remembered, relinks what the first worker linked, from
#                 redis-server on loopback (--cache-base-dir); beside a
#                 cold link and the host link alone; 1000 x86_64 TUs and a
#                 GPU LTO program (40 TUs, -foffload-lto, x86_64 + sm_90)
#   registration  the registration step of a 100-TU link: assembly, C
#   format        packaging, extracting, bundling, unbundling 512 MiB, with
#                 cp beside them and each tool's peak memory
#   resolution    device-symbol resolution through 1k and 10k archive members
#   nvcc          a vendor's nvcc library (issue 38: three objects, sm_80 and
#                 sm_90 cubins and compute_90 PTX, __constant__, __managed__,
#                 a template kernel) linked as nvcc's path does it (nvcc
#                 -dlink, then g++) and through offlink: the nvcc objects
#                 alone (clang++ --offload-link), and a clang program with
#                 the library against the same program built by nvcc;
#                 offlink with the cache off, with the C registration, with
#                 the cache warm.  Paired: each row alternates the two and
#                 gives the median of the pairs' offlink / nvcc (at most 1:
#                 offlink as fast); each program run on the stub
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$PWD
B=$(realpath "${OFFLINK_BUILD:-build}")
REPS=${1:-7}
IN=${BENCH_INPUTS:-$HOME/.cache/offlink-bench}
SIZES=${BENCH_SIZES:-1 10 100 1000}
SECTIONS=${BENCH_SECTIONS:-scaling small releases lto thin relink remote registration format resolution nvcc}
W=$(mktemp -d "${TMPDIR:-/tmp}/offlink-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
export LD_LIBRARY_PATH=/usr/lib/llvm-19/lib
export OFFLINK_CACHE_DIR=$W/cache
CUDA=${CUDA_PATH:-/usr/local/cuda}
X86=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu)
NV=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu,nvptx64-nvidia-cuda
    -Xopenmp-target=nvptx64-nvidia-cuda -march=sm_90 --cuda-path="$CUDA"
    --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib -Wno-unknown-cuda-version)
have_nv=0
[ -x "$CUDA/bin/ptxas" ] && [ -x "$CUDA/bin/nvlink" ] && have_nv=1
mkdir -p "$IN"

want() { [[ " $SECTIONS " == *" $1 "* ]]; }
now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
elapsed() { awk -v a="$(now)" -v b="$1" 'BEGIN { print a - b }'; }

# bench NAME CHECK -- OFFLINK_CMD... -- LLVM_CMD...: medians into $O, $L.
bench() {
	local name=$1 check=$2 ours=() llvm=() t0 i
	shift 3
	while [ "$1" != -- ]; do ours+=("$1"); shift; done
	shift
	llvm=("$@")
	: >"$W/t.ours"; : >"$W/t.llvm"
	for ((i = 0; i < REPS; i++)); do
		t0=$(now); "${ours[@]}" >/dev/null 2>&1 || { echo "$name: offlink failed: ${ours[*]}" >&2; exit 1; }
		elapsed "$t0" >>"$W/t.ours"
		OUT_TOOL=ours $check || { echo "$name: offlink's output is wrong" >&2; exit 1; }
		t0=$(now); "${llvm[@]}" >/dev/null 2>&1 || { echo "$name: LLVM failed: ${llvm[*]}" >&2; exit 1; }
		elapsed "$t0" >>"$W/t.llvm"
		OUT_TOOL=llvm $check || { echo "$name: LLVM's output is wrong" >&2; exit 1; }
	done
	O=$(median <"$W/t.ours")
	L=$(median <"$W/t.llvm")
}
ratio() { awk -v o="$1" -v l="$2" 'BEGIN { printf "%.2f", l / o }'; }

# gen N DIR TARGETS...: N TUs with a target region and a declare-target
# function each, and a main calling them all; compiled once, kept.
gen() {
	local n=$1 dir=$2
	shift 2
	[ -e "$dir/.done" ] && return 0
	rm -rf "$dir"
	mkdir -p "$dir"
	for i in $(seq 1 "$n"); do
		cat >"$dir/k$i.c" <<C
int dev_$i(int x) { return x * $i + 1; }
#pragma omp declare target to(dev_$i)
int run_$i(int *a, int n) {
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int j = 0; j < n; j++) a[j] = dev_$i(a[j]);
  return a[0];
}
C
	done
	{
		echo '#include <stdio.h>'
		for i in $(seq 1 "$n"); do echo "int run_$i(int *, int);"; done
		echo 'int main(void) { int a[16] = {0}; long s = 0;'
		for i in $(seq 1 "$n"); do echo "  s += run_$i(a, 16);"; done
		echo '  printf("%ld\n", s); return 0; }'
	} >"$dir/main.c"
	echo "compiling $n TUs into $dir" >&2
	(cd "$dir" && ls k*.c main.c | xargs -P"$(nproc)" -I{} sh -c "clang-19 $* -O1 -c {} -o \$(basename {} .c).o") 2>/dev/null
	(cd "$dir" && ar rcs libk.a k*.o)
	touch "$dir/.done"
}

# The wrapper command clang runs for a link (clang -###), for timing the
# wrapper process alone.
wrapper_line() {
	clang-19 "$@" -### 2>&1 | grep -F 'clang-linker-wrapper"'
}

# trace_stats TRACE: "own_ms start_ms": offlink's wall time not covered by
# any tool it ran, and when the first tool (a device link) started after
# the scan ended.
trace_stats() {
	jq -r '
	  [.traceEvents[] | select(.tid == 1)] as $p |
	  ($p | map(.ts + .dur) | max) as $last |
	  ([.traceEvents[] | select(.tid == 2)] | sort_by(.ts)) as $c |
	  (reduce $c[] as $e ({busy: 0, upto: 0};
	     if $e.ts + $e.dur <= .upto then .
	     elif $e.ts >= .upto then .busy += $e.dur | .upto = $e.ts + $e.dur
	     else .busy += ($e.ts + $e.dur - .upto) | .upto = $e.ts + $e.dur end)) as $u |
	  ($p[] | select(.name == "ol_scan_inputs") | .ts + .dur) as $scan |
	  ($c[0].ts) as $dl |
	  "\((($last - $u.busy) / 1000) | floor) \((($dl - $scan) / 1000) | floor)"' "$1"
}

peak_kb() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }

echo "offlink bench: $(date -u +%F), $(nproc) CPUs, $(uname -m), median of $REPS runs each" >&2

# fs_probe: what creating 1000 small files (a cubin each, for nvlink,
# which reads neither archives nor several cubins from one file) costs in
# TMPDIR right now: both wrappers pay it once per NVPTX image, and on a
# busy disk it moves the NVPTX rows more than anything either tool does.
fs_probe() {
	local d blob t0 i
	d=$(mktemp -d "${TMPDIR:-/tmp}/offlink-fsprobe.XXXXXX")
	blob=$(head -c 6856 /dev/zero | tr '\0' x)
	t0=$(now)
	for ((i = 0; i < 1000; i++)); do printf '%s' "$blob" >"$d/$i.cubin"; done
	printf 'creating 1000 files of 6.7 KiB in %s: %.3f s\n' "${TMPDIR:-/tmp}" "$(elapsed "$t0")"
	rm -rf "$d"
}

# ---- scaling ----
if want scaling; then
	echo
	fs_probe
	echo
	echo "| link | offlink s | LLVM 19 s | LLVM / offlink | offlink own s | first device link after scan ms | wrapper peak MiB, dry run: offlink / LLVM |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	configs=(x86)
	[ $have_nv = 1 ] && configs+=(nv)
	for cfg in "${configs[@]}"; do
		flags=("${X86[@]}") label="x86_64"
		[ "$cfg" = nv ] && flags=("${NV[@]}") label="x86_64 + sm_90"
		for n in $SIZES; do
			dir=$IN/$cfg-$n
			gen "$n" "$dir" "${flags[*]}"
			(cd "$dir" && clang-19 "${flags[@]}" main.o k*.o -o ref && ./ref >ref.out)
			for form in loose archive; do
				if [ $form = loose ]; then inputs=("$dir/main.o" "$dir"/k*.o); else inputs=("$dir/main.o" "$dir/libk.a"); fi
				ok() { [ "$("$W/p.$OUT_TOOL")" = "$(cat "$dir/ref.out")" ]; }
				bench "$n $form" ok -- \
					clang-19 "${flags[@]}" -B "$B/compat" -Wl,--no-cache "${inputs[@]}" -o "$W/p.ours" -- \
					clang-19 "${flags[@]}" "${inputs[@]}" -o "$W/p.llvm"
				clang-19 "${flags[@]}" -B "$B/compat" "${inputs[@]}" -o "$W/p.ours" \
					-Wl,--no-cache,--wrapper-time-trace="$W/trace.json"
				read -r own start < <(trace_stats "$W/trace.json")
				[ "$n" = 1000 ] && [ "$cfg" = nv ] && [ $form = archive ] && fs_probe >&2
				eval "ow=($(wrapper_line "${flags[@]}" -B "$B/compat" "${inputs[@]}" -o "$W/p.ours"))"
				eval "lw=($(wrapper_line "${flags[@]}" "${inputs[@]}" -o "$W/p.llvm"))"
				# (--dry-run: the wrapper's own memory, no tool's)
				mo=$(peak_kb "${ow[@]}" --no-cache --dry-run)
				ml=$(peak_kb "${lw[@]}" --dry-run)
				printf '| %s, %s TUs, %s | %.3f | %.3f | %s | %.3f | %s | %d / %d |\n' "$label" "$n" \
					"$([ $form = loose ] && echo "objects" || echo "static library")" "$O" "$L" \
					"$(ratio "$O" "$L")" "$(awk -v v="$own" 'BEGIN { print v / 1000 }')" "$start" \
					$((mo / 1024)) $((ml / 1024))
			done
		done
	done
fi

# ---- small links: what the cache costs a first link ----
if want small; then
	echo
	echo "| small link | LLVM 19 s | offlink --no-cache s | offlink cold s | offlink warm s | cold / LLVM | cold - no-cache ms (paired) | the wrapper alone: cold - no-cache ms (paired) |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	cases=${BENCH_SMALL:-x86:1 x86:2 x86:10 nv:1 nv:2 nv:10}
	for c in $cases; do
		cfg=${c%%:*} n=${c#*:}
		[ "$cfg" = nv ] && [ $have_nv = 0 ] && continue
		flags=("${X86[@]}") label="x86_64"
		[ "$cfg" = nv ] && flags=("${NV[@]}") label="x86_64 + sm_90"
		{
			dir=$IN/$cfg-$n
			gen "$n" "$dir" "${flags[*]}"
			inputs=("$dir/main.o" "$dir"/k*.o)
			(cd "$dir" && clang-19 "${flags[@]}" main.o k*.o -o ref && ./ref >ref.out)
			ours=(clang-19 "${flags[@]}" -B "$B/compat" "${inputs[@]}" -o "$W/s.ours")
			# the wrapper alone, as clang runs it (without clang's own start,
			# whose spread is larger than what is measured here)
			eval "wrapper=($(clang-19 "${flags[@]}" -B "$B/compat" "${inputs[@]}" -o "$W/s.wrap" -### 2>&1 |
				grep '/clang-linker-wrapper"'))"
			: >"$W/t.llvm"; : >"$W/t.nc"; : >"$W/t.cold"; : >"$W/t.warm"; : >"$W/t.wnc"; : >"$W/t.wcold"
			# the warm cache: one link before
			OFFLINK_CACHE_DIR=$W/warm XDG_CACHE_HOME=$W/warm-home "${ours[@]}"
			for ((i = 0; i < REPS; i++)); do
				# (paired: each rep runs all six, in a rotating order)
				for k in 0 1 2 3 4 5; do
					case $(((k + i) % 6)) in
					0) t0=$(now); clang-19 "${flags[@]}" "${inputs[@]}" -o "$W/s.llvm"
					   elapsed "$t0" >>"$W/t.llvm" ;;
					1) t0=$(now); "${ours[@]}" -Wl,--no-cache; elapsed "$t0" >>"$W/t.nc" ;;
					2) rm -rf "$W/cold" "$W/cold-home"; mkdir -p "$W/cold-home"
					   t0=$(now); OFFLINK_CACHE_DIR=$W/cold XDG_CACHE_HOME=$W/cold-home "${ours[@]}"
					   elapsed "$t0" >>"$W/t.cold"
					   [ -n "$(ls "$W/cold"/*/ 2>/dev/null)" ] || { echo "small: a cold link stored nothing" >&2; exit 1; } ;;
					3) t0=$(now); OFFLINK_CACHE_DIR=$W/warm XDG_CACHE_HOME=$W/warm-home "${ours[@]}"
					   elapsed "$t0" >>"$W/t.warm" ;;
					4) t0=$(now); "${wrapper[@]}" --no-cache; elapsed "$t0" >>"$W/t.wnc" ;;
					5) rm -rf "$W/cold" "$W/cold-home"; mkdir -p "$W/cold-home"
					   t0=$(now); OFFLINK_CACHE_DIR=$W/cold XDG_CACHE_HOME=$W/cold-home "${wrapper[@]}"
					   elapsed "$t0" >>"$W/t.wcold" ;;
					esac
				done
				[ "$("$W/s.ours")" = "$(cat "$dir/ref.out")" ] || { echo "small: wrong output" >&2; exit 1; }
			done
			L=$(median <"$W/t.llvm"); N=$(median <"$W/t.nc"); C=$(median <"$W/t.cold"); R=$(median <"$W/t.warm")
			printf '| %s, %s TU%s | %.3f | %.3f | %.3f | %.3f | %.2f | %.1f | %.1f |\n' "$label" "$n" \
				"$([ "$n" = 1 ] || echo s)" "$L" "$N" "$C" "$R" \
				"$(awk -v c="$C" -v l="$L" 'BEGIN { print c / l }')" \
				"$(paste "$W/t.cold" "$W/t.nc" | awk '{ print ($1 - $2) * 1000 }' | median)" \
				"$(paste "$W/t.wcold" "$W/t.wnc" | awk '{ print ($1 - $2) * 1000 }' | median)"
		}
	done
fi

# ---- each release ----
if want releases; then
	echo
	echo "| two-object x86_64 program, cold cache | LLVM's wrapper s | offlink cold s | offlink / LLVM (paired median) |"
	echo "|---|---:|---:|---:|"
	for N in 15 16 19 22; do
		lib=$SRC/deps/llvm$N-omp/usr/lib/llvm-$N/lib
		[ "$N" = 19 ] && lib=/usr/lib/llvm-19/lib
		command -v clang-$N >/dev/null && [ -e "$lib/libomptarget.so" ] || continue
		dir=$W/rel$N
		mkdir -p "$dir"
		omp=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -I"$(echo "$lib"/clang/$N*/include)")
		for f in twotu_a twotu_b; do
			clang-$N "${omp[@]}" -c "$SRC/tests/e2e/matrix/$f.c" -o "$dir/$f.o" ||
				{ echo "releases: clang-$N cannot compile $f.c" >&2; exit 1; }
		done
		link=(clang-$N "${omp[@]}" "$dir/twotu_a.o" "$dir/twotu_b.o" -L"$lib")
		: >"$W/t.llvm"; : >"$W/t.cold"
		for ((i = 0; i < REPS; i++)); do
			for k in 0 1; do
				if (((k + i) % 2)); then
					t0=$(now); "${link[@]}" -o "$dir/p.llvm"; elapsed "$t0" >>"$W/t.llvm"
				else
					rm -rf "$W/cold" "$W/cold-home"; mkdir -p "$W/cold-home"
					t0=$(now); OFFLINK_CACHE_DIR=$W/cold XDG_CACHE_HOME=$W/cold-home \
						"${link[@]}" -B "$B/compat" -o "$dir/p.ours"
					elapsed "$t0" >>"$W/t.cold"
				fi
			done
			for w in llvm ours; do
				[ "$(LD_LIBRARY_PATH=$lib OMP_TARGET_OFFLOAD=MANDATORY "$dir/p.$w")" = "initial=0 r=42 b=12" ] ||
					{ echo "releases: clang $N: $w's program is wrong" >&2; exit 1; }
			done
		done
		printf '| clang %s | %.3f | %.3f | %.2f |\n' "$N" "$(median <"$W/t.llvm")" "$(median <"$W/t.cold")" \
			"$(paste "$W/t.cold" "$W/t.llvm" | awk '{ print $1 / $2 }' | median)"
	done
fi

# ---- LTO ----
if want lto; then
	echo
	echo "| -foffload-lto link | offlink s | LLVM 19 s | LLVM / offlink |"
	echo "|---|---:|---:|---:|"
	lto_case() { # LABEL DIR FLAGS... -- INPUTS...
		local label=$1 dir=$2 flags=() inputs=()
		shift 2
		while [ "$1" != -- ]; do flags+=("$1"); shift; done
		shift
		inputs=("$@")
		# (applications print their own timings: those lines differ run to run)
		untimed() { grep -viE 'time|fom|/s|sec'; }
		(cd "$dir" && clang-19 "${flags[@]}" "${inputs[@]}" -o ref -lm) ||
			{ echo "$label: the reference does not build" >&2; return; }
		# (the output, checksums included, is what is compared: RSBench
		# exits 1 when its size has no published checksum)
		(cd "$dir" && ./ref "${run_args[@]}" | untimed >ref.out; [ -s ref.out ]) ||
			{ echo "$label: the reference prints nothing" >&2; return; }
		ok() { [ "$("$W/l.$OUT_TOOL" "${run_args[@]}" | untimed)" = "$(cat "$dir/ref.out")" ]; }
		bench "$label" ok -- \
			clang-19 "${flags[@]}" -B "$B/compat" -Wl,--no-cache "${inputs[@]}" -lm -o "$W/l.ours" -- \
			clang-19 "${flags[@]}" "${inputs[@]}" -lm -o "$W/l.llvm"
		printf '| %s | %.3f | %.3f | %s |\n' "$label" "$O" "$L" "$(ratio "$O" "$L")"
	}
	run_args=()
	for cfg in x86 nv; do
		[ $cfg = nv ] && [ $have_nv = 0 ] && continue
		flags=("${X86[@]}")
		[ $cfg = nv ] && flags=("${NV[@]}")
		dir=$IN/lto-$cfg
		gen 40 "$dir" "${flags[*]} -foffload-lto"
		lto_case "40 TUs, $([ $cfg = nv ] && echo "x86_64 + sm_90" || echo x86_64)" "$dir" \
			"${flags[@]}" -foffload-lto -- "$dir/main.o" "$dir"/k*.o
	done
	if [ -n "${HECBENCH:-}" ]; then
		for app in lulesh-omp rsbench-omp; do
			dir=$IN/$app
			if [ ! -e "$dir/.done" ]; then
				rm -rf "$dir"; mkdir -p "$dir"
				cp "$HECBENCH/src/$app"/*.c* "$HECBENCH/src/$app"/*.h "$dir"/ 2>/dev/null || true
				for f in "$dir"/*.c "$dir"/*.cc; do
					[ -e "$f" ] || continue
					clang-19 "${X86[@]}" -foffload-lto -O3 $([ "${f##*.}" = cc ] && echo "-x c++ -std=c++17") \
						-c "$f" -o "${f%.*}.o"
				done
				touch "$dir/.done"
			fi
			# (RSBench's default history method is not offloaded; a small
			# event-based run)
			run_args=()
			[ $app = rsbench-omp ] && run_args=(-m event -l 20000 -s small)
			lto_case "HeCBench $app, x86_64" "$dir" "${X86[@]}" -foffload-lto -- "$dir"/*.o $([ $app = lulesh-omp ] && echo -lstdc++)
		done
	fi
fi

# ---- device ThinLTO ----
# gen_kernels DIR FLAGS: the 200-kernel program, compiled with FLAGS.
gen_kernels() {
	local dir=$1 t j
	shift
	[ -e "$dir/.done" ] && return 0
	rm -rf "$dir"
	mkdir -p "$dir"
	for t in $(seq 1 20); do
		{
			echo '#include <math.h>'
			echo "static double scale_$t(double x) { return x * $t.0 + 0.5; }"
			echo "#pragma omp declare target to(scale_$t)"
			for j in $(seq 1 10); do
				cat <<C
double run_${t}_$j(double *a, int n) {
  double s = 0;
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) reduction(+: s)
  for (int i = 0; i < n; i++) {
    double v = a[i];
    for (int r = 0; r < $j; r++) v = sin(v) * exp(-v * 0.01) + sqrt(fabs(v) + $j.0);
    a[i] = scale_$t(v);
    s += a[i];
  }
  return s;
}
C
			done
		} >"$dir/t$t.c"
	done
	{
		echo '#include <stdio.h>'
		for t in $(seq 1 20); do for j in $(seq 1 10); do echo "double run_${t}_$j(double *, int);"; done; done
		echo 'int main(void) { double a[64]; double s = 0; for (int i = 0; i < 64; i++) a[i] = i * 0.25;'
		for t in $(seq 1 20); do for j in $(seq 1 10); do echo "  s += run_${t}_$j(a, 64);"; done; done
		echo '  printf("%.6e\n", s); return 0; }'
	} >"$dir/main.c"
	echo "compiling the 200-kernel program into $dir" >&2
	(cd "$dir" && ls t*.c main.c | xargs -P"$(nproc)" -I{} sh -c "clang-19 $* -O2 -c {} -o \$(basename {} .c).o") ||
		{ echo "thin: the program does not compile" >&2; exit 1; }
	touch "$dir/.done"
}

# pair LABEL CHECK -- OFFLINK_CMD... -- LLVM_CMD...: THIN_REPS pairs; the
# medians into $O and $L, the median of each pair's offlink / LLVM in $P.
pair() {
	local label=$1 check=$2 ours=() llvm=() t0 i o l
	shift 3
	while [ "$1" != -- ]; do ours+=("$1"); shift; done
	shift
	llvm=("$@")
	: >"$W/t.ours"; : >"$W/t.llvm"; : >"$W/t.pair"
	for ((i = 0; i < ${THIN_REPS:-3}; i++)); do
		[ -n "${BEFORE_EACH:-}" ] && $BEFORE_EACH "$i"
		t0=$(now); "${ours[@]}" >/dev/null 2>&1 || { echo "$label: offlink failed" >&2; exit 1; }
		o=$(elapsed "$t0"); echo "$o" >>"$W/t.ours"
		OUT_TOOL=ours $check || { echo "$label: offlink's output is wrong" >&2; exit 1; }
		t0=$(now); "${llvm[@]}" >/dev/null 2>&1 || { echo "$label: LLVM failed" >&2; exit 1; }
		l=$(elapsed "$t0"); echo "$l" >>"$W/t.llvm"
		OUT_TOOL=llvm $check || { echo "$label: LLVM's output is wrong" >&2; exit 1; }
		awk -v o="$o" -v l="$l" 'BEGIN { printf "%.4f\n", o / l }' >>"$W/t.pair"
	done
	O=$(median <"$W/t.ours")
	L=$(median <"$W/t.llvm")
	P=$(median <"$W/t.pair")
}

if want thin && [ $have_nv = 1 ]; then
	# (sm_90 only, as the program of issue 37)
	NV1=(-fopenmp -fopenmp-targets=nvptx64-nvidia-cuda -Xopenmp-target=nvptx64-nvidia-cuda -march=sm_90
	     --cuda-path="$CUDA" -Wno-unknown-cuda-version)
	dir=$IN/thin-k200
	gen_kernels "$dir" "${NV1[*]}" -foffload-lto=thin
	echo
	echo "| 200 kernels, sm_90, clang 19 | offlink s | LLVM 19 s | offlink / LLVM, paired |"
	echo "|---|---:|---:|---:|"
	(cd "$dir" && LD_LIBRARY_PATH=/usr/lib/llvm-19/lib clang-19 "${NV1[@]}" -foffload-lto=thin t*.o main.o -lm -o "$W/thin.ref") ||
		{ echo "thin: LLVM's link fails" >&2; exit 1; }
	OFFSTUB_LOG=$W/ref.log LD_PRELOAD=$B/lib/liboffstub.so "$W/thin.ref" >"$W/thin.ref.out"
	# the same output, and the same 200 kernels registered
	# (a kernel's name holds its file's device and inode: a TU compiled
	# again in another copy has other names, the same kernels)
	kernels() { jq -r 'select(.images) | .entries[] | select(.kind == "kernel") | .name' "$1" |
		sed -E 's/__omp_offloading_[0-9a-f]+_[0-9a-f]+_/__omp_offloading_ID_/' | sort; }
	kernels "$W/ref.log" >"$W/ref.kernels"
	[ "$(wc -l <"$W/ref.kernels")" = 200 ] || { echo "thin: LLVM's program registers $(wc -l <"$W/ref.kernels") kernels" >&2; exit 1; }
	ok() {
		rm -f "$W/t.log"
		OFFSTUB_LOG=$W/t.log LD_PRELOAD=$B/lib/liboffstub.so "$W/thin.$OUT_TOOL" >"$W/thin.out" &&
			cmp -s "$W/thin.out" "$W/thin.ref.out" && kernels "$W/t.log" | cmp -s - "$W/ref.kernels"
	}
	objs=("$dir"/t*.o "$dir/main.o")
	row() { [[ " ${THIN_ROWS:-cold relink full} " == *" $1 "* ]]; }
	row cold && for jobs in $(printf '2\n%s\n' "$(nproc)" | sort -un); do
		pair "cold $jobs" ok -- \
			clang-19 "${NV1[@]}" -foffload-lto=thin -B "$B/compat" -Wl,--no-cache -Wl,--wrapper-jobs=$jobs \
				"${objs[@]}" -lm -o "$W/thin.ours" -- \
			clang-19 "${NV1[@]}" -foffload-lto=thin -Wl,--wrapper-jobs=$jobs "${objs[@]}" -lm -o "$W/thin.llvm"
		printf '| thin link, cold, cache off, %s cores | %.2f | %.2f | %.2f |\n' "$jobs" "$O" "$L" "$P"
	done
	# a relink after one constant of one TU changed: the TU in a copy of
	# its own, a new constant before each pair
	if row relink; then
	cp -r "$dir" "$W/k200"
	edit() {
		sed -i "s/return x \* 5.0 + 0.5[0-9]*;/return x * 5.0 + 0.5$((RANDOM))$1;/" "$W/k200/t5.c"
		(cd "$W/k200" && clang-19 "${NV1[@]}" -foffload-lto=thin -O2 -c t5.c -o t5.o) ||
			{ echo "thin: t5.c does not compile" >&2; exit 1; }
	}
	relinked() { rm -f "$W/t.log"; OFFSTUB_LOG=$W/t.log LD_PRELOAD=$B/lib/liboffstub.so "$W/thin.$OUT_TOOL" >/dev/null &&
		kernels "$W/t.log" | cmp -s - "$W/ref.kernels"; }
	kobjs=("$W/k200"/t*.o "$W/k200/main.o")
	clang-19 "${NV1[@]}" -foffload-lto=thin -B "$B/compat" "${kobjs[@]}" -lm -o "$W/thin.ours" # the cache warm
	BEFORE_EACH=edit pair "relink" relinked -- \
		clang-19 "${NV1[@]}" -foffload-lto=thin -B "$B/compat" "${kobjs[@]}" -lm -o "$W/thin.ours" -- \
		clang-19 "${NV1[@]}" -foffload-lto=thin "${kobjs[@]}" -lm -o "$W/thin.llvm"
	printf '| relink after one constant of one TU changed, cache warm | %.2f | %.2f | %.2f |\n' "$O" "$L" "$P"
	fi
	# full LTO of the same program
	if row full; then
	fdir=$IN/full-k200
	gen_kernels "$fdir" "${NV1[*]}" -foffload-lto
	fobjs=("$fdir"/t*.o "$fdir/main.o")
	# (the program prints what its thin build prints: the regions run on
	# the host without a GPU, the same arithmetic)
	fok() { rm -f "$W/t.log"; OFFSTUB_LOG=$W/t.log LD_PRELOAD=$B/lib/liboffstub.so "$W/thin.$OUT_TOOL" >"$W/thin.out" &&
		cmp -s "$W/thin.out" "$W/thin.ref.out" && kernels "$W/t.log" | cmp -s - "$W/ref.kernels"; }
	pair "full" fok -- \
		clang-19 "${NV1[@]}" -foffload-lto -B "$B/compat" -Wl,--no-cache "${fobjs[@]}" -lm -o "$W/thin.ours" -- \
		clang-19 "${NV1[@]}" -foffload-lto "${fobjs[@]}" -lm -o "$W/thin.llvm"
	printf '| full LTO (-foffload-lto), cache off | %.2f | %.2f | %.2f |\n' "$O" "$L" "$P"
	fi
fi

# ---- warm relink ----
if want relink; then
	echo
	echo "| relink after a host-only edit | offlink s (cache warm) | LLVM 19 s | host link alone s | above the host link: offlink / LLVM |"
	echo "|---|---:|---:|---:|---:|"
	for n in 100 1000; do
		[[ " $SIZES " == *" $n "* ]] || continue
		dir=$IN/x86-$n
		gen "$n" "$dir" "${X86[*]}"
		cp "$dir/main.c" "$W/main.c"
		sed -i 's/printf("%ld\\n", s)/printf("sum %ld\\n", s)/' "$W/main.c"
		clang-19 "${X86[@]}" -O1 -c "$W/main.c" -o "$W/main.o"
		# the cache warm from the link before the edit
		clang-19 "${X86[@]}" -B "$B/compat" "$dir/main.o" "$dir"/k*.o -o "$W/r.ours"
		clang-19 "${X86[@]}" -B "$B/compat" "$W/main.o" "$dir"/k*.o -o "$W/r.ours" -Wl,--wrapper-verbose 2>"$W/relink.v"
		grep -q "device-link cache hit" "$W/relink.v" || { echo "relink: no cache hit" >&2; exit 1; }
		grep -v -- "'-###'$" "$W/relink.v" | grep -q -- "-shared" && { echo "relink: a device link ran" >&2; exit 1; }
		ok() { "$W/r.$OUT_TOOL" | grep -q '^sum '; }
		bench "relink $n" ok -- \
			clang-19 "${X86[@]}" -B "$B/compat" "$W/main.o" "$dir"/k*.o -o "$W/r.ours" -- \
			clang-19 "${X86[@]}" "$W/main.o" "$dir"/k*.o -o "$W/r.llvm"
		# the same objects linked as a plain host program (their offload
		# sections are SHF_EXCLUDE: dropped), the runtime named by hand
		: >"$W/t.host"
		for ((i = 0; i < REPS; i++)); do
			t0=$(now)
			clang-19 -fopenmp "$W/main.o" "$dir"/k*.o -L/usr/lib/llvm-19/lib -lomptarget -o "$W/r.host" ||
				{ echo "relink: the plain host link fails" >&2; exit 1; }
			elapsed "$t0" >>"$W/t.host"
		done
		H=$(median <"$W/t.host")
		printf '| %s TUs, x86_64 | %.3f | %.3f | %.3f | %s |\n' "$n" "$O" "$L" "$H" \
			"$(awk -v o="$O" -v l="$L" -v h="$H" 'BEGIN { printf "%.2f", (o - h) / (l - h) }')"
	done
fi

# ---- a fresh worker, the remote warm: the farm of docs/farm.md ----
if want remote; then
	command -v redis-server >/dev/null || { echo "remote: redis-server is not installed" >&2; exit 1; }
	port=$((10000 + RANDOM % 22000)) # (below the ephemeral ports: tests/lib/servers.sh)
	redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$W" >"$W/redis.log" 2>&1 &
	redis_pid=$!
	trap 'kill $redis_pid 2>/dev/null || true; rm -rf "$W"' EXIT
	for _ in $(seq 50); do redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
	head -c 32 /dev/urandom >"$W/secret"
	chmod 600 "$W/secret"
	echo
	echo "| relink on a fresh worker, remote warm (Redis on loopback) | cold link s | fresh worker s | host link alone s | fresh / host link | fresh / host link, paired |"
	echo "|---|---:|---:|---:|---:|---:|"
	cases=()
	[[ " $SIZES " == *" 1000 "* ]] && cases+=(x86:1000)
	[ $have_nv = 1 ] && cases+=(lto-nv:40)
	for c in "${cases[@]}"; do
		cfg=${c%%:*} n=${c#*:}
		flags=("${X86[@]}") label="$n TUs, x86_64"
		if [ "$cfg" = lto-nv ]; then
			flags=("${NV[@]}" -foffload-lto) label="GPU LTO, $n TUs, x86_64 + sm_90"
			dir=$IN/lto-nv
		else
			dir=$IN/x86-$n
		fi
		gen "$n" "$dir" "${flags[*]}"
		# two checkouts of the same objects (as a shared compiler cache
		# gives them), at two paths, under one base directory
		for ws in ws1 ws2; do
			rm -rf "$W/$ws"; mkdir -p "$W/$ws/proj"; cp "$dir"/*.o "$W/$ws/proj/"
		done
		link_in() { # WS OUT EXTRA...
			local ws=$1 out=$2
			shift 2
			(cd "$W/$ws/proj" && OFFLINK_CACHE_BASE_DIR=$W/$ws OFFLINK_CACHE_SECRET_FILE=$W/secret \
				OFFLINK_CACHE_REMOTE=redis://127.0.0.1:$port clang-19 "${flags[@]}" -B "$B/compat" \
				main.o k*.o -o "$out" "$@")
		}
		# worker 1 warms the remote
		OFFLINK_CACHE_DIR=$W/ws1/cache XDG_CACHE_HOME=$W/ws1/home link_in ws1 prog
		: >"$W/t.cold"; : >"$W/t.fresh"; : >"$W/t.host"
		for ((i = 0; i < REPS; i++)); do
			t0=$(now)
			(cd "$W/ws2/proj" && clang-19 "${flags[@]}" -B "$B/compat" main.o k*.o -o cold -Wl,--no-cache)
			elapsed "$t0" >>"$W/t.cold"
			# worker 2, fresh: no local store, nothing remembered
			rm -rf "$W/ws2/cache" "$W/ws2/home"; mkdir -p "$W/ws2/home"
			t0=$(now)
			OFFLINK_CACHE_DIR=$W/ws2/cache XDG_CACHE_HOME=$W/ws2/home link_in ws2 prog \
				-Wl,--wrapper-verbose 2>"$W/fresh.v"
			elapsed "$t0" >>"$W/t.fresh"
			[ "$(grep -c "device-link cache hit (remote" "$W/fresh.v")" -ge 1 ] &&
				! grep -q "device-link cache miss" "$W/fresh.v" || { echo "remote: not all remote hits" >&2; exit 1; }
			cmp -s "$W/ws1/proj/prog" "$W/ws2/proj/prog" ||
				{ echo "remote: the fresh worker's program differs" >&2; exit 1; }
			t0=$(now)
			(cd "$W/ws2/proj" && clang-19 -fopenmp main.o k*.o -L/usr/lib/llvm-19/lib -lomptarget -o host)
			elapsed "$t0" >>"$W/t.host"
		done
		C=$(median <"$W/t.cold"); F=$(median <"$W/t.fresh"); H=$(median <"$W/t.host")
		# (each run's fresh link over the host link timed right after it:
		# the machine's load, which moves both, cancels out)
		P=$(paste "$W/t.fresh" "$W/t.host" | awk '{ print $1 / $2 }' | median)
		printf '| %s | %.3f | %.3f | %.3f | %.2f | %.2f |\n' "$label" "$C" "$F" "$H" \
			"$(awk -v f="$F" -v h="$H" 'BEGIN { print f / h }')" "$P"
	done
	kill "$redis_pid" 2>/dev/null
fi

# ---- registration ----
if want registration; then
	echo
	echo "| registration step, 100 TUs (time trace) | ms |"
	echo "|---|---:|"
	dir=$IN/x86-100
	gen 100 "$dir" "${X86[*]}"
	for form in obj asm c; do
		: >"$W/t.reg"
		for ((i = 0; i < REPS; i++)); do
			clang-19 "${X86[@]}" -B "$B/compat" "$dir/main.o" "$dir"/k*.o -o "$W/g" \
				-Wl,--registration=$form,--wrapper-time-trace="$W/reg.json"
			jq '.traceEvents[] | select(.name == "ol_build_wrappers") | .dur / 1000' "$W/reg.json" >>"$W/t.reg"
		done
		case $form in
		obj) label="object written by offlink" ;;
		asm) label="assembly (as)" ;;
		c) label="C (clang)" ;;
		esac
		printf '| %s | %.1f |\n' "$label" "$(median <"$W/t.reg")"
	done
fi

# ---- format tools ----
if want format; then
	echo
	echo "| 512 MiB | offlink s | LLVM 19 s | cp s | offlink / cp speed | peak MiB offlink / LLVM |"
	echo "|---|---:|---:|---:|---:|---:|"
	head -c $((512 << 20)) /dev/urandom >"$W/big.img"
	head -c 4096 /dev/urandom >"$W/host.img"
	true_ok() { true; }
	fresh() { rm -f "$W"/out.*; }
	cp_median() {
		: >"$W/t.cp"
		for ((i = 0; i < REPS; i++)); do
			rm -f "$W/cp.out"; t0=$(now); cp "$1" "$W/cp.out"; elapsed "$t0" >>"$W/t.cp"
		done
		median <"$W/t.cp"
	}
	C=$(cp_median "$W/big.img")
	row() { # LABEL OURS-PEAK LLVM-PEAK
		printf '| %s | %.3f | %.3f | %.3f | %s | %d / %d |\n' "$1" "$O" "$L" "$C" \
			"$(awk -v o="$O" -v c="$C" 'BEGIN { printf "%.2f", c / o }')" $(($2 / 1024)) $(($3 / 1024))
	}
	T=-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a
	bench "package" fresh -- \
		"$B/bin/offlink-binary" -o "$W/out.pack" --image=file="$W/big.img",triple=x86_64-pc-linux-gnu,kind=openmp -- \
		clang-offload-packager-19 -o "$W/out.pack" --image=file="$W/big.img",triple=x86_64-pc-linux-gnu,kind=openmp
	row "package (offlink-binary / clang-offload-packager)" \
		"$(peak_kb "$B/bin/offlink-binary" -o "$W/p1" --image=file="$W/big.img",triple=x86_64-pc-linux-gnu,kind=openmp)" \
		"$(peak_kb clang-offload-packager-19 -o "$W/p2" --image=file="$W/big.img",triple=x86_64-pc-linux-gnu,kind=openmp)"
	cmp -s "$W/p1" "$W/p2" || { echo "packaged files differ" >&2; exit 1; }
	bench "extract" fresh -- \
		"$B/bin/offlink-binary" "$W/p1" --image=file="$W/out.x",triple=x86_64-pc-linux-gnu -- \
		clang-offload-packager-19 "$W/p2" --image=file="$W/out.x",triple=x86_64-pc-linux-gnu
	row "extract it" "$(peak_kb "$B/bin/offlink-binary" "$W/p1" --image=file="$W/x1",triple=x86_64-pc-linux-gnu)" \
		"$(peak_kb clang-offload-packager-19 "$W/p2" --image=file="$W/x2",triple=x86_64-pc-linux-gnu)"
	cmp -s "$W/x1" "$W/big.img" || { echo "extracted image differs" >&2; exit 1; }
	rm -f "$W/p1" "$W/p2" "$W/x1" "$W/x2"
	bench "bundle" fresh -- \
		"$B/bin/offlink-bundler" -type=o -bundle-align=4096 $T -input="$W/host.img" -input="$W/big.img" -output="$W/out.b" -- \
		clang-offload-bundler-19 -type=o -bundle-align=4096 $T -input="$W/host.img" -input="$W/big.img" -output="$W/out.b"
	row "bundle (offlink-bundler / clang-offload-bundler)" \
		"$(peak_kb "$B/bin/offlink-bundler" -type=o -bundle-align=4096 $T -input="$W/host.img" -input="$W/big.img" -output="$W/b1")" \
		"$(peak_kb clang-offload-bundler-19 -type=o -bundle-align=4096 $T -input="$W/host.img" -input="$W/big.img" -output="$W/b2")"
	cmp -s "$W/b1" "$W/b2" || { echo "bundles differ" >&2; exit 1; }
	bench "unbundle" fresh -- \
		"$B/bin/offlink-bundler" -type=o -unbundle -targets=hip-amdgcn-amd-amdhsa--gfx90a -input="$W/b1" -output="$W/out.u" -- \
		clang-offload-bundler-19 -type=o -unbundle -targets=hip-amdgcn-amd-amdhsa--gfx90a -input="$W/b2" -output="$W/out.u"
	row "unbundle it" \
		"$(peak_kb "$B/bin/offlink-bundler" -type=o -unbundle -targets=hip-amdgcn-amd-amdhsa--gfx90a -input="$W/b1" -output="$W/u1")" \
		"$(peak_kb clang-offload-bundler-19 -type=o -unbundle -targets=hip-amdgcn-amd-amdhsa--gfx90a -input="$W/b2" -output="$W/u2")"
	cmp -s "$W/u1" "$W/big.img" || { echo "unbundled image differs" >&2; exit 1; }
	rm -f "$W"/big.img "$W"/b1 "$W"/b2 "$W"/u1 "$W"/u2 "$W"/out.*
fi

# ---- nvcc's library in a program, beside nvcc's own link ----
if want nvcc && [ $have_nv = 1 ] && [ -x "$CUDA/bin/nvcc" ]; then
	# A vendor library as issue 38 describes it: three objects, -gencode for
	# sm_80 and sm_90 and compute_90 PTX, a __constant__ table, a
	# __managed__ counter, a template kernel; device calls across them.
	dir=$IN/nvcc-vendor
	NVG=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90
	     -gencode arch=compute_90,code=compute_90)
	if [ ! -e "$dir/.done" ]; then
		rm -rf "$dir" && mkdir -p "$dir"
		cat >"$dir/v1.cu" <<'EOF'
__constant__ float vendor_coef[4] = {1, 2, 3, 4};
__managed__ int vendor_count = 7;
__device__ float vendor_scale(float x) { return vendor_coef[1] * x; }
template <typename T> __global__ void vendor_fill(T *p, T v) { p[threadIdx.x] = v + (T)vendor_count; }
void vendor_fill_f(float *p) { vendor_fill<float><<<1, 4>>>(p, 1.0f); }
void vendor_fill_i(int *p) { vendor_fill<int><<<1, 4>>>(p, 1); }
int vendor_count_host() { return vendor_count; }
EOF
		cat >"$dir/v2.cu" <<'EOF'
extern __device__ float vendor_scale(float x);
__device__ float vendor_twice(float x) { return 2.0f * vendor_scale(x); }
__global__ void vendor_kernel2(float *p) { p[0] = vendor_twice(p[0]); }
void vendor_run2(float *p) { vendor_kernel2<<<1, 1>>>(p); }
EOF
		cat >"$dir/v3.cu" <<'EOF'
extern __device__ float vendor_twice(float x);
__device__ int vendor_table[16];
__global__ void vendor_kernel3(float *p) { p[0] = vendor_twice(p[0]) + vendor_table[0]; }
void vendor_run3(float *p) { vendor_kernel3<<<1, 1>>>(p); }
EOF
		# the program's own CUDA, for clang (offlink) and for nvcc (its path)
		{
			echo '#ifdef __clang__'
			echo '#include "cuda_decls.h"'
			echo '#else'
			echo '#include <cstdio>'
			echo '#endif'
			cat <<'EOF'
extern __device__ float vendor_twice(float x);
__global__ void app_kernel(float *p) { p[0] = vendor_twice(p[0]); }
void vendor_fill_f(float *p);
void vendor_run3(float *p);
int vendor_count_host();
int main() {
  app_kernel<<<1, 1>>>(0);
  vendor_fill_f(0);
  vendor_run3(0);
  printf("count=%d\n", vendor_count_host());
  return 0;
}
EOF
		} >"$dir/app.cu"
		cat >"$dir/main.cpp" <<'EOF'
#include <cstdio>
void vendor_fill_f(float *);
void vendor_run3(float *);
int vendor_count_host();
int main() { vendor_fill_f(0); vendor_run3(0); std::printf("count=%d\n", vendor_count_host()); return 0; }
EOF
		echo "compiling the vendor library into $dir" >&2
		(cd "$dir" && for f in v1 v2 v3; do "$CUDA/bin/nvcc" -rdc=true "${NVG[@]}" -c $f.cu -o $f.o || exit 1; done &&
			ar rcs libvendor.a v1.o v2.o v3.o && g++ -c main.cpp -o main.o &&
			"$CUDA/bin/nvcc" -rdc=true "${NVG[@]}" -c app.cu -o app_nvcc.o &&
			clang++-19 -x cuda --offload-new-driver -fgpu-rdc --offload-arch=sm_80,sm_90 --cuda-path="$CUDA" \
				-nocudainc -Wno-unknown-cuda-version -Xclang -target-sdk-version=12.5 \
				-I"$SRC/tests/e2e/gpu" -c app.cu -o app_clang.o) ||
			{ echo "nvcc: the vendor library does not compile" >&2; exit 1; }
		touch "$dir/.done"
	fi
	STUBDIR=$B/lib/offstub
	ok() { # the program runs on the stub and reads the managed counter
		[ "$(LD_LIBRARY_PATH=$STUBDIR "$W/nv.$OUT_TOOL")" = "count=7" ]
	}
	# nvcc's path: nvcc -dlink (nvlink for each SM, fatbinary, the host
	# compiler on crt/link.stub), then the host link
	nvcc_path() { # HOST-OBJECTS...
		"$CUDA/bin/nvcc" -dlink "${NVG[@]}" "$@" -o "$W/dlink.o" &&
			g++ "$@" "$W/dlink.o" -L"$STUBDIR" -lcudart -o "$W/nv.nvcc"
	}
	off() { # HOW OBJECTS...: offlink's link; HOW: cold (no cache), warm, c
		local how=$1 extra=()
		shift
		case $how in
		cold) extra=(-Wl,--no-cache) ;;
		c) extra=(-Wl,--no-cache -Wl,--registration=c) ;;
		warm) extra=(-Wl,--cache-dir="$W/nvcc-cache") ;;
		esac
		clang++-19 "$@" -L"$STUBDIR" -lcudart -B "$B/compat" --cuda-path="$CUDA" "${extra[@]}" -o "$W/nv.ours"
	}
	echo
	echo "| vendor library (sm_80, sm_90, compute_90 PTX), ${NVCC_REPS:-11} pairs | nvcc -dlink + host link s | offlink s | offlink / nvcc's, paired |"
	echo "|---|---:|---:|---:|"
	for row in "nvcc objects|cold" "nvcc objects|c" "nvcc objects|warm" "clang program + libvendor.a|cold" \
		   "clang program + libvendor.a|warm"; do
		what=${row%|*} how=${row#*|}
		if [ "$what" = "nvcc objects" ]; then
			ours=(off "$how" --offload-link "$dir/main.o" "$dir/v1.o" "$dir/v2.o" "$dir/v3.o")
			theirs=(nvcc_path "$dir/main.o" "$dir/v1.o" "$dir/v2.o" "$dir/v3.o")
		else
			ours=(off "$how" --offload-new-driver -fgpu-rdc "$dir/app_clang.o" -L"$dir" -lvendor)
			theirs=(nvcc_path "$dir/app_nvcc.o" "$dir/v1.o" "$dir/v2.o" "$dir/v3.o")
		fi
		[ "$how" = warm ] && { rm -rf "$W/nvcc-cache"; "${ours[@]}" >/dev/null 2>&1; }
		: >"$W/t.ours"; : >"$W/t.llvm"; : >"$W/t.pair"
		for ((i = 0; i < ${NVCC_REPS:-11}; i++)); do
			t0=$(now); "${theirs[@]}" >/dev/null 2>&1 || { echo "nvcc: nvcc's path fails" >&2; exit 1; }
			l=$(elapsed "$t0"); echo "$l" >>"$W/t.llvm"
			OUT_TOOL=nvcc ok || { echo "nvcc: nvcc's program is wrong" >&2; exit 1; }
			t0=$(now); "${ours[@]}" >/dev/null 2>&1 || { echo "nvcc: offlink fails: ${ours[*]}" >&2; exit 1; }
			o=$(elapsed "$t0"); echo "$o" >>"$W/t.ours"
			OUT_TOOL=ours ok || { echo "nvcc: offlink's program is wrong" >&2; exit 1; }
			awk -v o="$o" -v l="$l" 'BEGIN { printf "%.4f\n", o / l }' >>"$W/t.pair"
		done
		label="$what, offlink $how"
		[ "$how" = cold ] && label="$what, offlink --no-cache"
		[ "$how" = c ] && label="$what, offlink --no-cache --registration=c"
		[ "$how" = warm ] && label="$what, offlink, cache warm"
		printf '| %s | %.3f | %.3f | %.2f |\n' "$label" "$(median <"$W/t.llvm")" "$(median <"$W/t.ours")" \
			"$(median <"$W/t.pair")"
	done
fi

# ---- device-symbol resolution ----
if want resolution; then
	echo
	echo "| device-symbol resolution, members taken one after another | select_archive_members ms | per member µs |"
	echo "|---|---:|---:|"
	for n in 1000 10000; do
		mkdir -p "$W/chain$n"
		"$B/test-bin/make_chain" $n "$W/chain$n"
		: >"$W/t.res"
		for ((i = 0; i < REPS; i++)); do
			"$B/bin/offlink" --dry-run --no-cache --host-triple=x86_64-pc-linux-gnu --linker-path=/bin/true \
				"$W/chain$n/main.o" "$W/chain$n/chain.a" --wrapper-time-trace="$W/res.json" >/dev/null 2>&1
			jq '.traceEvents[] | select(.name == "ol_select_archive_members") | .dur / 1000' "$W/res.json" >>"$W/t.res"
		done
		m=$(median <"$W/t.res")
		printf '| %d members | %.1f | %.2f |\n' $n "$m" "$(awk -v m="$m" -v n=$n 'BEGIN { print m * 1000 / n }')"
	done
fi
