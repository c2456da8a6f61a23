#!/usr/bin/env bash
# Issue 12: `cmake --install` gives a usable, relocatable offlink.
#  - the layout: bin/, lib/offlink/compat/ (relative links under every LLVM
#    tool name), lib/liboffstub.so, lib/offlink/offstub/ (the runtimes'
#    names and sonames), man pages, docs, the CMake package; DESTDIR
#    honoured;
#  - clang -B <prefix>/lib/offlink/compat links and runs the bundled
#    example (clang 19, and clang 16 and 22 where installed), and
#    `offlink --print-compat-dir` names that directory;
#  - the tree moved elsewhere still works;
#  - examples/cmake (FindOpenMP + find_package(offlink) + offlink_link)
#    configured against the moved tree builds, its link runs offlink, and
#    the program runs on the device; a project linking offlink::offstub
#    registers through the stub.
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need cmake clang-19 readlink
[ -e /usr/lib/llvm-19/lib/libomptarget.so ] || need libomptarget-19-is-missing

P=$T/p
check "install" cmake --install "$OFFLINK_BUILD" --prefix "$P" >install.log
for f in bin/offlink bin/offlink-binary bin/offlink-bundler bin/offlink-wrapper lib/offlink/offlink-guard lib/liboffstub.so \
	 lib/offlink/offstub/libomptarget.so.19.1 lib/offlink/offstub/libcudart.so.13 \
	 lib/offlink/offstub/libamdhip64.so.6 lib/offlink/offstub/libLLVMSYCL.so share/man/man1/offlink.1 share/man/man1/offlink-binary.1 \
	 share/man/man1/offlink-bundler.1 share/man/man1/offlink-wrapper.1 share/man/man7/offstub.7 \
	 share/doc/offlink/README.md share/doc/offlink/compat.md lib/cmake/offlink/offlinkConfig.cmake \
	 lib/cmake/offlink/offlinkConfigVersion.cmake lib/cmake/offlink/offlinkFunctions.cmake; do
	[ -e "$P/$f" ] || fail "not installed: $f"
done
for name in clang-linker-wrapper clang-offload-packager llvm-offload-binary clang-offload-bundler \
	clang-offload-wrapper llvm-offload-wrapper; do
	link=$(readlink "$P/lib/offlink/compat/$name") || fail "compat/$name is not a link"
	case $link in
	/*) fail "compat/$name is an absolute link ($link): the tree could not move" ;;
	esac
	[ -x "$P/lib/offlink/compat/$name" ] || fail "compat/$name -> $link does not resolve"
done
grep -rl "$P" "$P/lib/cmake" "$P/lib/offlink/compat" 2>/dev/null && fail "an installed file names the prefix"
# every tool answers --help and --version
for t in offlink offlink-binary offlink-bundler offlink-wrapper; do
	"$P/bin/$t" --help >help.txt 2>&1 && [ -s help.txt ] || fail "$t --help"
	"$P/bin/$t" --version >version.txt 2>&1 && grep -q "0\.1\.0" version.txt || fail "$t --version: $(cat version.txt)"
done
[ "$("$P/bin/offlink" --print-compat-dir)" = "$P/lib/offlink/compat" ] ||
	fail "--print-compat-dir says $("$P/bin/offlink" --print-compat-dir)"
"$P/bin/offlink" --version | grep -qF "compat directory: $P/lib/offlink/compat" ||
	fail "--version does not name the compat directory: $("$P/bin/offlink" --version)"

# DESTDIR: everything under it, the prefix inside.
DESTDIR=$T/stage cmake --install "$OFFLINK_BUILD" --prefix /opt/offlink >/dev/null || fail "DESTDIR install"
[ -x "$T/stage/opt/offlink/bin/offlink" ] && [ -L "$T/stage/opt/offlink/lib/offlink/compat/clang-linker-wrapper" ] ||
	fail "DESTDIR install misses files"

# example PREFIX NAME: link the bundled example through PREFIX and run it.
example() {
	local prefix=$1 name=$2
	clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -B "$("$prefix/bin/offlink" --print-compat-dir)" \
		"$OFFLINK_SRC/examples/saxpy.c" -o "$name" -Wl,--wrapper-verbose 2>"$name.v" ||
		fail "link through $prefix: $(tail -3 "$name.v")"
	grep -q "^offlink: plan for $name" "$name.v" || fail "$name was not linked by offlink"
	LD_LIBRARY_PATH=/usr/lib/llvm-19/lib OMP_TARGET_OFFLOAD=MANDATORY "./$name" >"$name.out" ||
		fail "$name exited with $?: $(cat "$name.out")"
	grep -q "ran on the offload device" "$name.out" || fail "$name: $(cat "$name.out")"
}
example "$P" installed

# The other releases through the same tree (where installed).
for n in 16 22; do
	lib=$OFFLINK_SRC/deps/llvm$n-omp/usr/lib/llvm-$n/lib
	if command -v "clang-$n" >/dev/null && [ -e "$lib/libomptarget.so" ]; then
		printf '#include <stdio.h>\nint main(void) { int r = 0;\n#pragma omp target map(from: r)\nr = 42;\nprintf("r=%%d\\n", r); return 0; }\n' >r$n.c
		"clang-$n" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -B "$P/lib/offlink/compat" r$n.c \
			-L"$lib" -o r$n -Wl,--wrapper-verbose 2>r$n.v || fail "clang-$n link: $(tail -3 r$n.v)"
		grep -q "LLVM $n, tools in" r$n.v || fail "clang-$n: offlink did not follow LLVM $n"
		[ "$(LD_LIBRARY_PATH=$lib OMP_TARGET_OFFLOAD=MANDATORY ./r$n)" = r=42 ] || fail "clang-$n program"
	else
		[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "clang-$n or its OpenMP runtime is missing"
		echo "SKIP: clang $n through the installed tree (not installed)" >&2
	fi
done

# Move the tree: it still finds itself.
mv "$P" "$T/q"
Q=$T/q
[ "$("$Q/bin/offlink" --print-compat-dir)" = "$Q/lib/offlink/compat" ] || fail "moved: --print-compat-dir"
example "$Q" moved

# The CMake example against the moved tree.
cmake -S "$OFFLINK_SRC/examples/cmake" -B cmake-example -DCMAKE_C_COMPILER=clang-19 \
	-DCMAKE_PREFIX_PATH="$Q" >cmake.log 2>&1 || fail "configure examples/cmake: $(tail -5 cmake.log)"
cmake --build cmake-example -- VERBOSE=1 >build.log 2>&1 || fail "build examples/cmake: $(tail -5 build.log)"
grep -q -- "-B$Q/lib/offlink/compat" build.log || fail "the example's link line does not name offlink's compat directory"
grep -q "^offlink: plan for saxpy" build.log || fail "the example's link did not run offlink"
LD_LIBRARY_PATH=/usr/lib/llvm-19/lib OMP_TARGET_OFFLOAD=MANDATORY cmake-example/saxpy >cmake.out ||
	fail "the CMake example exited with $?: $(cat cmake.out)"
grep -q "ran on the offload device" cmake.out || fail "the CMake example: $(cat cmake.out)"

# offlink::offstub: a program linked against the stub registers through it.
mkdir -p stubproj
cat >stubproj/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(stubcheck C)
find_package(OpenMP REQUIRED)
find_package(offlink 0.1 REQUIRED)
separate_arguments(omp UNIX_COMMAND "${OpenMP_C_FLAGS}")
add_executable(check main.c)
target_compile_options(check PRIVATE ${omp} -fopenmp-targets=x86_64-pc-linux-gnu)
target_link_options(check PRIVATE ${omp} -fopenmp-targets=x86_64-pc-linux-gnu)
target_link_libraries(check PRIVATE offlink::offstub OpenMP::OpenMP_C)
offlink_link(check)
EOF
cat >stubproj/main.c <<'EOF'
#include <stdio.h>
int main(void) {
  int r = 0;
#pragma omp target map(from: r)
  r = 7;
  printf("r=%d\n", r);
  return 0;
}
EOF
cmake -S stubproj -B stubproj/build -DCMAKE_C_COMPILER=clang-19 -DCMAKE_PREFIX_PATH="$Q" >stub.log 2>&1 &&
	cmake --build stubproj/build >>stub.log 2>&1 || fail "offlink::offstub project: $(tail -5 stub.log)"
OFFSTUB_LOG=$T/stub.json LD_LIBRARY_PATH=/usr/lib/llvm-19/lib stubproj/build/check >stub.out ||
	fail "the offstub program exited with $?"
grep -q '"runtime": "openmp"' stub.json || fail "nothing registered through offlink::offstub: $(cat stub.json 2>/dev/null)"
echo "PASS: installed, moved, used from CMake"
