#!/bin/sh
# Regenerate (or, with --check, compare) the runtime stub's API lists
# from the runtimes' public headers.  The header lists live here only.
#
#   scripts/update-runtime-api.sh [--check] cuda [CUDA-INCLUDE-DIR]
#       CUDA's runtime API (default /usr/local/cuda/include)
#   scripts/update-runtime-api.sh [--check] hip HIP-INCLUDE-DIR AMD-DETAIL-DIR
#       HIP's: include/hip of ROCm/HIP and hipamd/include/hip/amd_detail of
#       ROCm/clr (runtime-stub/api_hip.def says which commits)
#
# --check exits 1, with the difference, when the committed list is not
# what the headers give.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
runtime=${1:?usage: $0 [--check] cuda|hip DIR...}
shift
case $runtime in
cuda)
	inc=${1:-/usr/local/cuda/include}
	version=$(sed -n 's/^#define CUDART_VERSION *\([0-9]*\).*/\1/p' "$inc/cuda_runtime_api.h")
	export API_SOURCE="CUDA $((version / 1000)).$((version % 1000 / 10))"
	set -- "$inc/cuda_runtime_api.h" "$inc/cuda_profiler_api.h" "$inc/cuda_gl_interop.h" \
		"$inc/cuda_egl_interop.h" "$inc/cuda_vdpau_interop.h"
	;;
hip)
	hip=${1:?the include/hip directory of ROCm/HIP}
	amd=${2:?the hipamd/include/hip/amd_detail directory of ROCm/clr}
	export API_SOURCE="${API_SOURCE:-HIP}"
	set -- "$hip/hip_runtime_api.h" "$hip/hip_ext.h" "$hip/hip_deprecated.h" \
		"$hip/hip_gl_interop.h" "$amd/amd_channel_descriptor.h" \
		"$amd/amd_hip_runtime_pt_api.h" "$amd/amd_hip_gl_interop.h" "$amd/amd_hip_runtime.h"
	;;
*) echo "$0: cuda or hip, not '$runtime'" >&2; exit 2 ;;
esac
list=$here/runtime-stub/api_$runtime.def
if [ $check = 1 ]; then
	new=${TMPDIR:-/tmp}/api_$runtime.$$.def
	sh "$here/scripts/runtime-api-list.sh" "$runtime" "$@" >"$new" || { rm -f "$new"; exit 1; }
	if ! diff -u "$list" "$new"; then
		rm -f "$new"
		echo "$list is not what the headers declare: run $0 $runtime" >&2
		exit 1
	fi
	rm -f "$new"
else
	sh "$here/scripts/runtime-api-list.sh" "$runtime" "$@" >"$list.tmp"
	mv "$list.tmp" "$list"
	echo "$list: $(grep -c '^API_' "$list") functions"
fi
