#!/usr/bin/env bash
# Issue 9, item 2: a relocation of an entry table whose r_offset is near
# 2^64 wrapped the old bounds check (r_offset + 32 > size) and made offlink
# read before the section -- before its mapping when the section is at
# file offset 0 -- and die of SIGSEGV, even under --dry-run.  Every such
# object must now give exit 1 and an error naming the file (and member),
# the section and the offset; never a crash.
. "$OFFLINK_SRC/tests/lib/testlib.sh"

need clang-19 ar objdump
clang-19 -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a \
	-c "$OFFLINK_SRC/tests/e2e/gpu/hip_k1.hip" -o k1.o || fail "compile hip_k1.hip"
hex=$(objdump -h k1.o | awk '$2 == "hip_offloading_entries" { print $3 }')
[ -n "$hex" ] || fail "no hip_offloading_entries in k1.o"
size=$((0x$hex))

# crafted NAME R_OFFSET [SECTION_OFFSET]
crafted() {
	cp k1.o "$1"
	check "poke r_offset" "$HELP/elf_poke" "$1" rela-offset hip_offloading_entries "$2"
	[ -z "${3:-}" ] || check "poke sh_offset" "$HELP/elf_poke" "$1" section-offset hip_offloading_entries "$3"
}

crafted wrap.o 0xffffffffffffffe0 0          # the tester's object: wraps, section at 0
crafted wrap8.o 0xfffffffffffffff8           # wraps without the move
crafted end.o "$size"                        # one entry past the end
crafted half.o $((size - 4))                 # a word cut by the end

for f in wrap.o wrap8.o end.o half.o; do
	for mode in --dry-run ""; do
		expect_status 1 "$BIN/offlink" $mode --linker-path=/bin/true "$f" -o out
		contains "$T/stderr" "$f"
		contains "$T/stderr" "hip_offloading_entries"
		contains "$T/stderr" "r_offset"
		[ ! -e out ] || fail "$f: output written"
	done
	echo "ok: $f"
done

# The same inside an archive: the member is named.
ar rc lib.a wrap.o
expect_status 1 "$BIN/offlink" --dry-run --linker-path=/bin/true --whole-archive lib.a -o out
contains "$T/stderr" "lib.a(wrap.o)"
no_leftovers .
echo "ok: lib.a(wrap.o)"
