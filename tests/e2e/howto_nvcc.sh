#!/usr/bin/env bash
# docs/howto-nvcc-libraries.md, tried as a new user would: every ```sh
# block is run, in order, in an empty directory, with offlink's compat
# directory and the stub where the page says; the page's promised output
# must appear.
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang++-19 ar g++
need_cuda nvcc nvlink ptxas fatbinary

page=$OFFLINK_SRC/docs/howto-nvcc-libraries.md
awk '/^```sh$/ {on = 1; next} /^```$/ {on = 0} on' "$page" >howto.sh
[ "$(grep -c . howto.sh)" -gt 10 ] || fail "no shell blocks found in $page"
OFFLINK_COMPAT=$COMPAT OFFSTUB=$OFFLINK_BUILD/lib/offstub CUDA=$CUDA bash -e howto.sh >howto.out 2>howto.err ||
	fail "the how-to failed: $(tail -5 howto.err)"
contains howto.out "linked and registered"
contains howto.out '"kernels": ["_Z10app_kernelPf", "_Z13vendor_kernelPf"]'
contains howto.out "libvendor.a(vendor.o) [section __nv_relfatbin > fat binary 0 > entry 0, zstd"
grep -q 'ptx  *[0-9]*  ./libvendor80.a(vendor80.o) \[compute_80\]' howto.out ||
	fail "section 5: no compute_80 PTX in the sm_90 link: $(grep ptx howto.out)"
contains howto.out "ptxas -m64 -O2 --gpu-name sm_90"
contains howto.out "spawned"
contains howto.out '"name": "_Z13vendor_parentPf"'
grep -qx 1 howto.out || fail "section 6: the device runtime is not registered"
echo "ok: newer GPUs and dynamic parallelism as the page shows them"
echo "PASS: the nvcc libraries' how-to works as written"
