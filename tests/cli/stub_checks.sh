#!/usr/bin/env bash
# The runtime stub's checks: well-formed registrations of each runtime are
# logged as JSON records; each malformed one is reported on stderr, naming
# the fault, with exit status 3 and no record.  The tables come from
# tests/lib/stub_cases.c.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
CASES=$HELP/stub_cases

good() { # CASE: exit 0, one registration record
	rm -f log
	OFFSTUB_LOG=log "$CASES" "$1" >out 2>err || fail "$1: exit $? ($(cat err))"
	[ -s err ] && fail "$1: stderr: $(cat err)"
	[ "$(jq -s 'map(select(.images)) | length' log)" = 1 ] || fail "$1: not one record: $(cat log)"
}
bad() { # CASE MESSAGE [RECORDS]: exit 3, the message, RECORDS (0) records
	rm -f log
	OFFSTUB_LOG=log "$CASES" "$1" >out 2>err
	local rc=$?
	[ $rc = 3 ] || fail "$1: exit $rc, want 3 ($(cat err))"
	contains err "offstub: malformed"
	contains err "$2"
	[ "$(cat log 2>/dev/null | wc -l)" = "${3:-0}" ] || fail "$1: records written: $(cat log)"
}

good omp_good
stub_images log >images.txt
expect_text images.txt <<'TXT'
openmp x86_64-pc-linux-gnu  62 elf
TXT
stub_entries log >entries.txt
expect_text entries.txt <<'TXT'
openmp kernel __omp_offloading_1_2_main_l3 0
openmp variable table 4
TXT
good omp_good56
stub_entries log >entries56.txt
expect_text entries56.txt <<'TXT'
openmp kernel __omp_offloading_1_2_main_l3 0
openmp link linked 4
TXT
# LLVM 23's and 24's registrations: images in binaries of version 2 and 3
for v in 2 3; do
	good omp_v$v
	stub_images log >images_v$v.txt
	echo "openmp x86_64-pc-linux-gnu  62 elf" | expect_text images_v$v.txt
done
good omp_nested_spirv
stub_images log >images_spv.txt
echo "openmp spirv64-intel  null offload-binary" | expect_text images_spv.txt
[ "$(jq -r '.images[0].spirv | "\(.notes_version) \(.images) \(.modules) \(.version)"' log)" = "1.0 1 1 1.4" ] ||
	fail "the nested SPIR-V module as the stub reads it: $(cat log)"
bad omp_nested_bad "entry 0 of a nested offload binary is not a SPIR-V module"
bad omp_null_desc "a null descriptor"
bad omp_image_order "image 0 spans"
bad omp_image_entries "image 0 has entries"
bad omp_not_elf "neither ELF, bitcode nor an offload binary"
bad omp_machine "ELF machine 62 in an image for nvptx64-nvidia-cuda"
bad omp_arch "ELF code for sm_80 in an image declared sm_90"
bad omp_entry_size "host entry table of 40 bytes"
bad omp_entry_name "name with byte 0x01 at 3"
bad omp_entry_addr "__omp_offloading_1_2_main_l3 has a null address"

good cuda_good
stub_images log >cuda_images.txt
expect_text cuda_images.txt <<'TXT'
cuda nvptx64-nvidia-cuda sm_90 190 fatbinary-elf
TXT
bad cuda_bad_magic "wrapper magic 0x12345678"
bad cuda_bad_fatbin "magic 0xba55ed51"
bad cuda_overrun "payload 4096 bytes"
bad cuda_arch "ELF code for sm_80 in an image declared sm_90"
bad cuda_bad_handle "was not returned by a RegisterFatBinary call"
bad cuda_twice "kernel _Z1av registered twice"
bad cuda_var_name "variable w with device name v"
# The record was complete at __cudaRegisterFatBinaryEnd.
bad cuda_after_end "a registration after the fat binary's end" 1

good hip_good
contains out "managed: 7"
stub_images log >hip_images.txt
expect_text hip_images.txt <<'TXT'
hip amdgcn-amd-amdhsa gfx90a 224 bundle
TXT
bad hip_bad_bundle "neither an offload bundle nor a compressed one"
bad hip_managed_align "managed managed of 4 bytes aligned to 3"
# Launching writes the pending record first.
bad hip_launch_unregistered "which no registration named" 1
echo "PASS: stub checks"
