#!/usr/bin/env bash
# Issue 33, item 4: one inspector for every offload container.
# offlink-binary --list, --list --json and --extract read, in objects,
# archive members, executables and raw files:
#   - offload binaries (what clang embeds), their images byte for byte
#     what clang-offload-packager-19 extracts;
#   - clang-offload-bundler bundles: plain, compressed v2 (LLVM 19) and v3
#     (LLVM 22), several back to back in one .hip_fatbin section, each
#     code object byte for byte what clang-offload-bundler-22 unbundles;
#   - NVIDIA fat binaries: nvcc's -rdc object (__nv_relfatbin, zstd), its
#     plain object (.nv_fatbin), a program nvcc linked, fatbinary's plain,
#     zstd and LZ-compressed entries; each cubin byte for byte what nvcc
#     -cubin writes, each PTX the same whatever the compression;
#   - a HIP program's .hip_fatbin, each code object what the bundler
#     unbundles;
#   - containers inside containers (a fat binary packaged as an offload
#     binary's image): each image's path of containers, outermost first;
# and a damaged fat binary is an error naming the file and the field.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-19 clang-offload-bundler-19 clang-offload-bundler-22 clang-offload-packager-19 jq objcopy iconv
OB=$BIN/offlink-binary

# rows FILE: the listing's rows as "kind producer triple arch size".
rows() { "$OB" --list "$1" | awk 'NR > 1 { print $1, $2, $3, $4, $5 }'; }
# extract DIR FILE: --extract into DIR (made), the names printed in DIR.list.
extract() {
	mkdir -p "$1"
	"$OB" --extract="$1" "$2" >"$1.list" || fail "--extract $2: $(cat "$1.list")"
}

# ---- offload binaries ----
cat >k.c <<'C'
int kern(int x) { int r = 0;
#pragma omp target map(from: r)
  r = x + 1;
  return r; }
C
check "omp object" clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c k.c -o k.o
[ "$(rows k.o | cut -d' ' -f1-4)" = "elf openmp x86_64-pc-linux-gnu -" ] || fail "k.o: $(rows k.o)"
extract ob k.o
check "packager extraction" clang-offload-packager-19 k.o --image=triple=x86_64-pc-linux-gnu,kind=openmp,file=ob.ref
same_bytes "$(cat ob.list)" ob.ref
echo "ok: offload binaries listed and extracted as clang-offload-packager-19 does"

# ---- bundles ----
printf '' >h.bin
H=host-x86_64-unknown-linux-gnu A=hip-amdgcn-amd-amdhsa--gfx90a B=hip-amdgcn-amd-amdhsa--gfx908
for i in 0 1 2; do
	printf 'gfx90a code %s ' $i >a$i.bin; head -c 3000 /dev/urandom >>a$i.bin
	printf 'gfx908 code %s ' $i >b$i.bin; head -c 2000 /dev/urandom >>b$i.bin
done
check "plain bundle" clang-offload-bundler-19 -type=o -bundle-align=4096 -targets=$H,$A,$B \
	-input=h.bin -input=a0.bin -input=b0.bin -output=p0
check "v2 bundle" clang-offload-bundler-19 -type=o -bundle-align=4096 -compress -targets=$H,$A,$B \
	-input=h.bin -input=a1.bin -input=b1.bin -output=p1
check "v3 bundle" clang-offload-bundler-22 -type=o -bundle-align=4096 -compress -targets=$H,$A,$B \
	-input=h.bin -input=a2.bin -input=b2.bin -output=p2
: >fb.bin
for i in 0 1 2; do
	cat p$i >>fb.bin
	head -c $(((4096 - $(stat -c %s fb.bin) % 4096) % 4096)) /dev/zero >>fb.bin
done
echo 'int lib_host;' | gcc -x c -c - -o hostlib.o
check "a .hip_fatbin of three bundles" objcopy --add-section .hip_fatbin=fb.bin \
	--set-section-flags .hip_fatbin=alloc,readonly hostlib.o lib.o
check "archive" ar rcs libhip.a lib.o
rows libhip.a >lib.rows
[ "$(wc -l <lib.rows)" = 6 ] || fail "libhip.a: not six code objects: $(cat lib.rows)"
"$OB" --list libhip.a | grep -q "libhip.a(lib.o) \[section .hip_fatbin > bundle 2 > entry $B, ccob v3 zstd" ||
	fail "the third bundle's entry is not listed with its path: $("$OB" --list libhip.a)"
extract bun libhip.a
[ "$(wc -l <bun.list)" = 6 ] || fail "not six files extracted: $(cat bun.list)"
for i in 0 1 2; do
	check "unbundle p$i" clang-offload-bundler-22 -unbundle -type=o -input=p$i -targets=$A,$B \
		-output=ref.a$i -output=ref.b$i
	same_bytes "$(sed -n "$((2 * i + 1))p" bun.list)" ref.a$i
	same_bytes "$(sed -n "$((2 * i + 2))p" bun.list)" ref.b$i
done
"$OB" --list --json libhip.a | jq -e '.[5].containers == ["section .hip_fatbin", "bundle 2",
	"entry hip-amdgcn-amd-amdhsa--gfx908"] and .[5].compression == "ccob v3 zstd" and
	.[5].member == "lib.o" and .[5].arch == "gfx908"' >/dev/null ||
	fail "the JSON does not give the sixth image's containers: $("$OB" --list --json libhip.a)"
rows p1 | grep -q "data hip amdgcn-amd-amdhsa gfx908" || fail "a raw compressed bundle: $(rows p1)"
echo "ok: bundles plain, v2 and v3, three back to back in an archive member, as the bundler unbundles"

# ---- NVIDIA fat binaries ----
if [ ! -x "$CUDA/bin/nvcc" ] || [ ! -x "$CUDA/bin/fatbinary" ]; then
	echo "SKIP (part): CUDA's nvcc and fatbinary not found in $CUDA/bin (CUDA is not installable with apt)"
else
	cat >nv.cu <<'EOF'
__device__ int twice(int x) { return 2 * x; }
__global__ void kern(int *p) { *p = twice(*p); }
void launch(int *p) { kern<<<1, 1>>>(p); }
EOF
	printf '#include <cstdio>\nvoid launch(int *);\nint main() { launch(0); return 0; }\n' >main.cu
	NVCC=$CUDA/bin/nvcc
	check "nvcc -rdc object" "$NVCC" -rdc=true -arch=sm_90 -c nv.cu -o rdc.o
	check "nvcc -rdc cubin" "$NVCC" -rdc=true -arch=sm_90 -cubin nv.cu -o rdc.cubin
	check "nvcc object" "$NVCC" -arch=sm_90 -c nv.cu -o whole.o
	check "nvcc main" "$NVCC" -rdc=true -arch=sm_90 -c main.cu -o main.o
	check "nvcc link" "$NVCC" -rdc=true -arch=sm_90 rdc.o main.o -o nvprog
	rows rdc.o >rdc.rows
	grep -qx "cubin cuda nvptx64-nvidia-cuda sm_90 [0-9]*" rdc.rows || fail "rdc.o: no sm_90 cubin: $(cat rdc.rows)"
	grep -qx "ptx cuda nvptx64-nvidia-cuda compute_90 [0-9]*" rdc.rows || fail "rdc.o: no PTX: $(cat rdc.rows)"
	"$OB" --list rdc.o | grep -q "section __nv_relfatbin > fat binary 0 > entry 0, zstd" ||
		fail "rdc.o: the cubin's compression is not said: $("$OB" --list rdc.o)"
	extract rdc rdc.o
	same_bytes "$(grep '\.cubin$' rdc.list)" rdc.cubin
	rows whole.o | grep -q "^cubin cuda nvptx64-nvidia-cuda sm_90" || fail "whole.o: $(rows whole.o)"
	# the program nvcc linked: its linked fat binary and each object's
	"$OB" --list nvprog >nvprog.list
	grep -q "nvprog \[section .nv_fatbin > fat binary 0 > entry 0\] \[linked\]" nvprog.list ||
		fail "nvprog: no linked cubin: $(cat nvprog.list)"
	[ "$(grep -c __nv_relfatbin nvprog.list)" -ge 2 ] || fail "nvprog: the objects' fat binaries: $(cat nvprog.list)"
	# fatbinary's three ways of storing an entry
	check "ptx" "$NVCC" -rdc=true -arch=sm_90 -ptx nv.cu -o nv.ptx
	for mode in none default all speed; do
		args=(--compress-mode=none)
		[ $mode = default ] && args=()
		[ $mode = all ] && args=(--compress-all)
		[ $mode = speed ] && args=(--compress-all --compress-mode=speed)
		check "fatbinary ($mode)" "$CUDA/bin/fatbinary" -64 --create=$mode.fatbin "${args[@]}" \
			--image3=kind=elf,sm=90,file=rdc.cubin --image3=kind=ptx,sm=90,file=nv.ptx
		extract fb-$mode $mode.fatbin
		same_bytes "$(grep '\.cubin$' fb-$mode.list)" rdc.cubin
		same_bytes "$(grep '\.ptx$' fb-$mode.list)" "$(grep '\.ptx$' fb-none.list)"
	done
	"$OB" --list speed.fatbin | grep -q "entry 0, lz:" || fail "the LZ entry: $("$OB" --list speed.fatbin)"
	"$OB" --list all.fatbin | grep -q "entry 1, zstd:" || fail "the zstd PTX: $("$OB" --list all.fatbin)"
	# a fat binary packaged as an offload binary's image: nested
	check "package a fat binary" "$OB" -o nested.bin \
		--image=file=all.fatbin,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda
	"$OB" --list --json nested.bin | jq -e '.[0].kind == "fatbinary" and
		.[1].containers == ["file", "offload binary image 0", "fat binary 0", "entry 0"] and
		.[1].kind == "cubin" and .[2].kind == "ptx"' >/dev/null ||
		fail "the nested fat binary: $("$OB" --list --json nested.bin)"
	# damage: a fat binary whose entry runs past its end, and one cut short
	cp all.fatbin bad.fatbin
	printf '\377\377\377\377' | dd of=bad.fatbin bs=1 seek=24 conv=notrunc 2>/dev/null
	expect_status 1 "$OB" --list bad.fatbin
	contains "$T/stderr" "bad.fatbin"
	contains "$T/stderr" "payload size"
	head -c 100 all.fatbin >cut.fatbin
	mkdir cut
	expect_status 1 "$OB" --extract=cut cut.fatbin
	contains "$T/stderr" "cut.fatbin"
	[ -z "$(ls -A cut)" ] || fail "a damaged input left files: $(ls cut)"
	echo "ok: NVIDIA fat binaries: nvcc's objects and program, plain, zstd and LZ entries, nested"
fi

# ---- a HIP program ----
for f in hip_k1 hip_k2 hip_main; do
	check "compile $f" clang-19 -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib \
		--offload-arch=gfx90a,gfx908 -I"$OFFLINK_SRC/tests/e2e/gpu" -c "$OFFLINK_SRC/tests/e2e/gpu/$f.hip" -o $f.o
done
check "HIP link" clang-19 --offload-new-driver -fgpu-rdc --hip-link hip_k1.o hip_k2.o hip_main.o \
	-B "$COMPAT" -L"$OFFLINK_BUILD/lib/offstub" -o hipprog
rows hipprog | grep -q "^elf hip amdgcn-amd-amdhsa gfx90a" || fail "hipprog: $(rows hipprog)"
extract hip hipprog
objcopy -O binary --only-section=.hip_fatbin hipprog hipprog.fb
for a in gfx908 gfx90a; do
	check "unbundle $a" clang-offload-bundler-19 -unbundle -type=o -input=hipprog.fb \
		-targets=hip-amdgcn-amd-amdhsa--$a -output=ref.$a
	same_bytes "$(grep -- "-$a\.elf$" hip.list)" ref.$a
done
echo "ok: a HIP program's code objects, as the bundler unbundles them"

# ---- names from the files reach the terminal escaped ----
printf 'code' >esc.img
check "an image with control bytes in its triple and arch" "$OB" -o esc.bin \
	--image=file=esc.img,triple=$'x86_64\e[31m-unknown-linux',arch=$'sm\a'
"$OB" --list esc.bin >esc.list || fail "--list esc.bin"
! grep -q $'[\e\a]' esc.list || fail "--list printed raw control bytes: $(od -c esc.list | head -5)"
grep -qF 'x86_64\033[31m-unknown-linux' esc.list && grep -qF 'sm\007' esc.list ||
	fail "--list esc.bin: $(cat esc.list)"
echo "ok: control bytes in names are escaped in the listing"

# Issue 39, item 6: --json is JSON (RFC 8259: UTF-8) whatever the bytes:
# invalid UTF-8, DEL, C1 controls raw and UTF-8-encoded are escaped
# (\u00XX of the byte or code point), well-formed UTF-8 is kept.
check "an image with bytes >= 0x7f in its triple and arch" "$OB" -o high.bin \
	--image=file=esc.img,triple=$'x86\xff\x7f\xc2\x9b\x9b2J\xc3\xa9-linux',arch=$'sm\xc3'
"$OB" --list --json high.bin >high.json || fail "--list --json high.bin"
iconv -f UTF-8 -t UTF-8 high.json >/dev/null ||
	fail "--json high.bin is not valid UTF-8: $(od -c high.json | head -8)"
# (the only multibyte character kept is é, c3 a9: any byte 0x7f-0x9f is a
# raw DEL or C1 control, alone or UTF-8-encoded)
! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f\x80-\x9f]' high.json ||
	fail "--json high.bin holds a raw control byte: $(od -c high.json | head -8)"
jq -e '.[0].triple == "x86\u00ff\u007f\u009b\u009b2J\u00e9-linux" and .[0].arch == "sm\u00c3"' \
	high.json >/dev/null || fail "--json high.bin: $(od -c high.json | head -8)"
echo "ok: --json is valid UTF-8 JSON, controls and stray bytes escaped"
echo "PASS: every container listed and extracted"
