#!/usr/bin/env bash
# What device ThinLTO costs at run time, as far as a machine without a GPU
# can tell: the same 200-kernel OpenMP program (bench/run.sh's thin
# section) linked for sm_90 with full LTO and with ThinLTO by offlink,
# and, from nvlink's report of each kernel (-v), the registers, stack and
# barriers each kernel uses, and the image's size.  More registers or
# stack per thread means fewer threads resident on an SM (occupancy);
# nothing here measures time on a GPU (docs/gpu-runs.md).
#
#   bench/thin_cost.sh        (needs CUDA; the programs are compiled once,
#                              into BENCH_INPUTS as bench/run.sh keeps them)
set -euo pipefail
cd "$(dirname "$0")/.."
B=$(realpath "${OFFLINK_BUILD:-build}")
IN=${BENCH_INPUTS:-$HOME/.cache/offlink-bench}
CUDA=${CUDA_PATH:-/usr/local/cuda}
W=$(mktemp -d "${TMPDIR:-/tmp}/offlink-thincost.XXXXXX")
trap 'rm -rf "$W"' EXIT
NV1=(-fopenmp -fopenmp-targets=nvptx64-nvidia-cuda -Xopenmp-target=nvptx64-nvidia-cuda -march=sm_90
     --cuda-path="$CUDA" -Wno-unknown-cuda-version)
for kind in thin full; do
	dir=$IN/$kind-k200
	[ -e "$dir/.done" ] || { echo "$dir: run BENCH_SECTIONS=thin bench/run.sh first" >&2; exit 1; }
	lto=-foffload-lto=$kind
	[ $kind = full ] && lto=-foffload-lto
	# nvlink -v reports each kernel; the image is kept (--save-temps)
	(cd "$W" && clang-19 "${NV1[@]}" "$lto" -B "$B/compat" -Wl,--no-cache -Wl,--save-temps \
		-Wl,--device-linker=-v "$dir"/t*.o "$dir/main.o" -lm -o $kind) 2>"$W/$kind.v"
	grep -A1 "Function properties for '__omp_offloading" "$W/$kind.v" |
		sed -nE 's/.*used ([0-9]+) registers, used ([0-9]+) barriers, ([0-9]+) stack.*/\1 \2 \3/p' >"$W/$kind.k"
	stat -c %s "$W"/$kind.offlink-temps.*/*.sm_90.img >"$W/$kind.size"
done
stats() { # FILE COLUMN: median and maximum
	awk -v c="$2" '{print $c}' "$1" | sort -n | awk '{a[NR]=$1} END {printf "%s / %s", a[int((NR+1)/2)], a[NR]}'
}
echo "| 200 kernels, sm_90 | full LTO | ThinLTO |"
echo "|---|---:|---:|"
printf '| kernels reported by nvlink | %s | %s |\n' "$(wc -l <"$W/full.k")" "$(wc -l <"$W/thin.k")"
printf '| registers a thread, median / max | %s | %s |\n' "$(stats "$W/full.k" 1)" "$(stats "$W/thin.k" 1)"
printf '| stack bytes a thread, median / max | %s | %s |\n' "$(stats "$W/full.k" 3)" "$(stats "$W/thin.k" 3)"
printf '| barriers, median / max | %s | %s |\n' "$(stats "$W/full.k" 2)" "$(stats "$W/thin.k" 2)"
printf '| image bytes | %s | %s |\n' "$(cat "$W/full.size")" "$(cat "$W/thin.size")"
