#!/usr/bin/env bash
# Issue 13: the registration without a compiler.  For x86_64 and aarch64
# hosts offlink writes the registration as assembly; it must do exactly
# what the C form (compiled by clang, which the other tests check against
# the real runtimes and LLVM's links) does.  For OpenMP, CUDA, HIP and
# CUDA with nvcc's relocatable modules (issue 38), SYCL as LLVM 23 and 24
# register it (issue 43),
# with LLVM 19's 32-byte and LLVM 20+'s 56-byte entries, both forms are
# generated (tests/lib/regforms), built with a harness whose entry table
# has every kind of entry the code handles and whose runtime functions
# print each argument they get, and run: natively for x86_64, under
# qemu-aarch64 for aarch64.  The outputs must be identical, and hold the
# registrations the entries call for.  The assembly is assembled with
# GNU as and with LLVM's llvm-mc, and both objects must behave the same.
# For OpenMP on x86_64 offlink writes the object itself, with no
# assembler: it must be, byte for byte, what GNU as makes of the assembly
# (so a program linked with it is the one the assembly form gives).
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-19 llvm-mc-19 ld.lld-19
H=$OFFLINK_SRC/tests/e2e/regforms
printf 'IMAGEBYTES-0123456789' >image.bin
printf 'FATBINARY' >container.bin

ran=0 objects=0
for arch in x86_64 aarch64; do
	run=()
	if [ $arch = aarch64 ]; then
		if ! command -v qemu-aarch64 >/dev/null || [ ! -d /usr/aarch64-linux-gnu/lib ]; then
			[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "qemu-aarch64 or the aarch64 C library is missing"
			echo "SKIP: aarch64 (needs qemu-user and libc6-dev-arm64-cross)" >&2
			continue
		fi
		run=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
	fi
	cc=(clang-19 --target=$arch-linux-gnu)
	link=("${cc[@]}" -fuse-ld=lld)
	assemblers=("llvm-mc-19 --triple=$arch-linux-gnu -filetype=obj")
	command -v $arch-linux-gnu-as >/dev/null && assemblers+=("$arch-linux-gnu-as")
	for kind in openmp cuda hip nvcc sycl23 sycl24; do
		for layout in old new; do
			case $kind in sycl*) [ $layout = new ] || continue ;; esac
			d=$arch-$kind-$layout
			mkdir -p $d
			file=$T/container.bin
			[ $kind = openmp ] || [ ${kind#sycl} != $kind ] && file=$T/image.bin
			check "$d: generate" "$HELP/regforms" $kind $layout $arch $d "$file"
			defs=()
			[ $kind = hip ] && defs+=(-DHIP)
			[ $kind = nvcc ] && defs+=(-DNVCC)
			[ $layout = new ] && defs+=(-DNEW_ENTRIES)
			harness=$H/harness_gpu.c
			[ $kind = openmp ] && harness=$H/harness_omp.c
			[ ${kind#sycl} != $kind ] && harness=$H/harness_sycl.c
			check "$d: harness" "${cc[@]}" -O1 -fPIE "${defs[@]}" -c "$harness" -o $d/harness.o
			check "$d: C form" "${cc[@]}" -fPIC -O2 -c $d/reg.c -o $d/reg_c.o
			check "$d: link C form" "${link[@]}" $d/harness.o $d/reg_c.o -o $d/prog_c
			"${run[@]}" ./$d/prog_c >$d/c.out 2>&1 || fail "$d: the C form's program exited with $?: $(cat $d/c.out)"
			n=0
			for as in "${assemblers[@]}"; do
				n=$((n + 1))
				check "$d: assemble ($as)" $as -o $d/reg_s$n.o $d/reg.s
				check "$d: link assembly form" "${link[@]}" $d/harness.o $d/reg_s$n.o -o $d/prog_s$n
				"${run[@]}" ./$d/prog_s$n >$d/s$n.out 2>&1 ||
					fail "$d: the assembly form's program ($as) exited with $?: $(cat $d/s$n.out)"
				diff -u $d/c.out $d/s$n.out >&2 || fail "$d: the assembly form ($as) registers otherwise than the C form"
			done
			if [ -e $d/reg.o ]; then
				command -v x86_64-linux-gnu-as >/dev/null || fail "$d: no GNU as to compare the object with"
				check "$d: GNU as" x86_64-linux-gnu-as -o $d/reg_gnu.o $d/reg.s
				cmp $d/reg.o $d/reg_gnu.o >&2 || fail "$d: offlink's object differs from GNU as's"
				check "$d: link the object form" "${link[@]}" $d/harness.o $d/reg.o -o $d/prog_o
				"${run[@]}" ./$d/prog_o >$d/o.out 2>&1 || fail "$d: the object form's program exited with $?"
				diff -u $d/c.out $d/o.out >&2 || fail "$d: the object form registers otherwise than the C form"
				objects=$((objects + 1))
			elif [ $arch = x86_64 ] && [ $kind = openmp ]; then
				fail "$d: regforms wrote no object"
			fi
			# Both forms right, not only alike.
			case $kind in
			sycl*)
				cat >$d/sycl.want <<'TXT'
sycl register: 21 bytes, 494d4147, 16-aligned yes
sycl register: 21 bytes, 494d4147, 16-aligned yes
main
sycl unregister: 21 bytes, 494d
sycl unregister: 21 bytes, 494d
TXT
				diff -u $d/sycl.want $d/c.out >&2 || fail "$d: not registered before main and unregistered after"
				;;
			openmp)
				contains $d/c.out "register: 2 images, entries 0..3"
				contains $d/c.out "image 1: 21 bytes, 494d4147, binary found"
				contains $d/c.out "unregister: 2 images" ;;
			*)
				contains $d/c.out "RegisterFunction h kern_a kern_a kern_a -1"
				contains $d/c.out "RegisterFunction h kern_b kern_b kern_b -1"
				contains $d/c.out "RegisterVar h var_c var_c var_c ext=0 size=8 constant=1 global=0"
				contains $d/c.out "RegisterVar h var_d var_d var_d ext=1 size=4 constant=0 global=0"
				grep -q "m1_extern\|m_unknown\|type5\|openmp_kind\|reserved_set" $d/c.out &&
					fail "$d: an entry to skip was registered"
				if [ $kind = hip ]; then
					contains $d/c.out "RegisterManagedVar h harness_ptr_0 harness_init_0 m0 size=12 align=4"
					contains $d/c.out "RegisterManagedVar h harness_ptr_1 harness_init_1 m1 size=24 align=8"
					contains $d/c.out "RegisterSurface h surf surf surf type=2 ext=0"
					contains $d/c.out "RegisterTexture h tex tex tex type=2 normalized=1 ext=1"
					[ $layout = new ] && contains $d/c.out "RegisterFunction h kern_b hip_kind_3"
				else
					contains $d/c.out "RegisterManagedVar h harness_ptr_0 harness_init_0 m0 ext=0 size=12"
					contains $d/c.out "RegisterFatBinaryEnd h"
					grep -q "RegisterSurface\|RegisterTexture" $d/c.out && fail "$d: CUDA registered a surface"
				fi
				if [ $kind = nvcc ]; then
					# both modules in, then the registration (version 2,
					# their fat binaries listed), clang's entries, each
					# module's callback, the end
					grep -v '^RegisterVar\|^RegisterManagedVar\|^RegisterFunction h kern' $d/c.out \
						>$d/nvcc.out
					cat >$d/nvcc.want <<'TXT'
module b
dummy_ref def _mod_b
module a
dummy_ref def _mod_a
RegisterFatBinary magic=0x466243b1 version=2 data=46415442 unused=set
prelinked FATB_A
prelinked FATB_B
callback a h
RegisterFunction h nv_kern_a nv_a nv_a -1 (nil) (nil) (nil) (nil) (nil)
callback b h
RegisterFunction h nv_kern_b nv_b nv_b -1 (nil) (nil) (nil) (nil) (nil)
RegisterFatBinaryEnd h
main
UnregisterFatBinary h
TXT
					diff -u $d/nvcc.want $d/nvcc.out >&2 || fail "$d: nvcc's modules not registered as nvcc -dlink's code does"
				fi
				contains $d/c.out "UnregisterFatBinary h" ;;
			esac
		done
	done
	ran=$((ran + 1))
	echo "$arch: assembly and C registrations agree (OpenMP, CUDA, HIP, nvcc modules, SYCL; 32- and 56-byte entries; ${#assemblers[@]} assemblers)"
done
[ $ran -gt 0 ] || skip "no architecture could run"
[ $objects = 2 ] || fail "the object form was compared $objects times, not 2"

# Through offlink: a real link with each form registers the same under the
# runtime stub, and -v shows the assembler, not clang, for the assembly.
. "$OFFLINK_SRC/tests/lib/stub.sh"
OMPF=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu)
check "compile saxpy" clang-19 "${OMPF[@]}" -c "$OFFLINK_SRC/examples/saxpy.c" -o saxpy.o
for form in c asm obj auto; do
	rm -rf saxpy_$form.offlink-temps.*
	check "link ($form)" clang-19 "${OMPF[@]}" -B "$COMPAT" saxpy.o -o saxpy_$form \
		-Wl,--registration=$form -Wl,--wrapper-verbose,--save-temps 2>saxpy_$form.v
	OFFSTUB_LOG=$T/saxpy_$form.log LD_PRELOAD=$STUB LD_LIBRARY_PATH=/usr/lib/llvm-19/lib \
		./saxpy_$form >/dev/null || fail "saxpy_$form exited with $?"
	stub_images saxpy_$form.log >saxpy_$form.images
	stub_entries saxpy_$form.log >saxpy_$form.entries
done
grep -q -- "-as -o .*openmp.image.wrapper.o .*openmp.image.wrapper.s" saxpy_asm.v ||
	fail "the assembly form was not assembled: $(grep wrapper saxpy_asm.v)"
grep -q -- "clang.* -c .*openmp.image.wrapper.c" saxpy_c.v || fail "the C form was not compiled"
for form in obj auto; do
	grep -q "openmp registration: written by offlink as an x86_64 object" saxpy_$form.v ||
		fail "$form: the object was not written by offlink: $(grep wrapper saxpy_$form.v)"
	grep -q -- "-as \|openmp.image.wrapper.s" saxpy_$form.v && fail "$form: an assembler ran"
	# the same object as GNU as's of the assembly, so the same program
	cmp saxpy_asm.offlink-temps.*/openmp.image.wrapper.o saxpy_$form.offlink-temps.*/openmp.image.wrapper.o >&2 ||
		fail "$form: the registration object differs from the assembly form's"
	cmp saxpy_asm saxpy_$form >&2 || fail "$form: the program differs from the assembly form's"
done
for form in asm obj; do
	diff -u saxpy_c.images saxpy_$form.images >&2 || fail "$form: another image registered than the C form's"
	diff -u saxpy_c.entries saxpy_$form.entries >&2 || fail "$form: other entries registered than the C form's"
done
[ -s saxpy_asm.entries ] || fail "nothing registered"

# -r: the images in .llvm.offloading.relocatable, the same either way.
for form in asm obj; do
	rm -rf part_$form.o.offlink-temps.*
	check "relocatable link ($form)" clang-19 "${OMPF[@]}" -B "$COMPAT" -r saxpy.o -o part_$form.o \
		-Wl,--registration=$form -Wl,--save-temps
done
cmp part_asm.o part_obj.o >&2 || fail "-r: the object form's output differs from the assembly form's"

# The object form exists only for OpenMP on x86_64 hosts: asked for
# elsewhere, a usage error naming the host.
"$BIN/offlink" --dry-run --registration=obj --host-triple=aarch64-unknown-linux-gnu \
	--linker-path=/usr/bin/ld -o prog saxpy.o 2>obj_arm.err && fail "--registration=obj for aarch64 was accepted"
contains obj_arm.err "only for OpenMP on x86_64 hosts"
echo "PASS: registration forms agree"
