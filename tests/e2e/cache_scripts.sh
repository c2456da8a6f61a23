#!/usr/bin/env bash
# Issue 32, item 2: a tool that is a wrapper script, or a static program
# the recorder cannot see into, never makes the device-link cache stale.
# Each wrapper takes flags from a variable of its own, as the toolchains
# users have do: Nix's ld-wrapper ($NIX_LDFLAGS), Spack's compiler wrapper
# ($SPACK_CC, $SPACK_LDFLAGS), a toolchain's clang script under
# --llvm=<dir> ($TOOLCHAIN_LDFLAGS), and a statically linked clang
# launcher (getenv inside a static program, where the recorder never is).
# The variable picks the directory the device link finds libdev.a in:
# libA's dev(x) is 2x, libB's 4x.  For each: a link (A), a relink with
# nothing changed (a hit, A), a relink with the variable changed (B: the
# new code runs), back to A (a hit again), and a relink with only
# variables changed that the cache leaves out (make's, the shell's,
# TMPDIR): still a hit.  Each relink before the fix hit with the old image.
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need gcc ar

mkdir -p libA libB nix spack llvm/bin static tmp2
dev_caller
for d in libA libB; do
	f=2
	[ $d = libB ] && f=4
	printf 'int dev(int x) { return %s * x; }\n' $f >$d/dev.c
	check "$d/dev.o" gcc -O2 -fPIC -c $d/dev.c -o $d/dev.o
	check "$d/libdev.a" ar rcs $d/libdev.a $d/dev.o
done
hit() { grep -q "device-link cache hit" "$1.v" || fail "$1: expected a cache hit: $(grep 'device-link cache' "$1.v")"; }
miss() { grep -q "device-link cache miss" "$1.v" || fail "$1: expected a cache miss: $(grep 'device-link cache' "$1.v")"; }
expect() { [ "$(dev_value "$1")" = "$2" ] || fail "$1: dev=$(dev_value "$1"), not dev=$2 (stale device code)"; }

# with VAR=VALUE LINK NAME ARGS...: dev_link NAME ARGS... with VAR set.
with() {
	local assign=$1
	shift 2
	(export "$assign"; dev_link "$@") || exit 1
}

# rounds NAME VAR DIR-VALUE-PREFIX LINK-ARGS...: the five links with VAR
# set to <prefix>libA, <prefix>libB.
rounds() {
	local name=$1 var=$2 pre=$3
	shift 3
	with "$var=${pre}$T/libA" link $name.a1 "$@"
	expect $name.a1 28
	with "$var=${pre}$T/libA" link $name.a2 "$@"
	expect $name.a2 28
	hit $name.a2
	with "$var=${pre}$T/libB" link $name.b "$@"
	expect $name.b 56
	miss $name.b
	with "$var=${pre}$T/libA" link $name.a3 "$@"
	expect $name.a3 28
	hit $name.a3
	MAKEFLAGS=" -j8 --jobserver-auth=fifo:$T/x" MAKELEVEL=2 OLDPWD=/elsewhere TMPDIR=$T/tmp2 \
		SHLVL=7 with "$var=${pre}$T/libA" link $name.a4 "$@"
	expect $name.a4 28
	hit $name.a4
	echo "ok: $name: the variable's change relinks, nothing changed hits"
}

# 1. Nix: the first ld in PATH is a script that adds $NIX_LDFLAGS and runs
# the real ld (nixpkgs' cc-wrapper/ld-wrapper.sh, in short).
cat >nix/ld <<'EOF'
#!/bin/sh
# ld-wrapper (shaped like nixpkgs'): the flags of the environment around
# the caller's, then the real linker.
extraBefore="$NIX_LDFLAGS_BEFORE"
extraAfter="$NIX_LDFLAGS"
exec /usr/bin/ld $extraBefore "$@" $extraAfter
EOF
chmod +x nix/ld
PATH=$T/nix:$PATH rounds nix NIX_LDFLAGS -L -Xoffload-linker -ldev
grep -q "$T/nix/ld" nix.a1.v || fail "clang did not run the Nix-shaped ld: $(grep -m1 ' -shared' nix.a1.v)"

# 2. Spack: offlink's clang is Spack's compiler wrapper, which runs
# $SPACK_CC and, for a link, adds $SPACK_LDFLAGS.
cat >spack/cc <<'EOF'
#!/bin/sh
# cc (shaped like Spack's lib/spack/env/cc): the real compiler from the
# environment; a link (no -c, -S, -E) gets the environment's link flags.
mode=ccld
for arg in "$@"; do
	case $arg in -c | -S | -E) mode=cc ;; esac
done
[ "$mode" = ccld ] && exec "$SPACK_CC" "$@" $SPACK_LDFLAGS $SPACK_LDLIBS
exec "$SPACK_CC" "$@"
EOF
chmod +x spack/cc
SPACK_CC=/usr/lib/llvm-19/bin/clang OFFLINK_CLANG=$T/spack/cc rounds spack SPACK_LDFLAGS -L -Xoffload-linker -ldev

# 3. A toolchain whose clang is a script adding flags from a variable,
# chosen with --llvm=<its bin directory>.
for t in /usr/lib/llvm-19/bin/*; do
	[ "$(basename "$t")" = clang ] || ln -s "$t" llvm/bin/
done
cat >llvm/bin/clang <<'EOF'
#!/bin/sh
# the toolchain's clang: its flags from the environment
exec /usr/lib/llvm-19/bin/clang $TOOLCHAIN_LDFLAGS "$@"
EOF
chmod +x llvm/bin/clang
rounds toolchain TOOLCHAIN_LDFLAGS -L -Xoffload-linker -ldev -Wl,--llvm="$T/llvm/bin"
grep -q "$T/llvm/bin/clang" toolchain.a1.v || fail "offlink did not run the toolchain's clang"

# 4. A statically linked clang launcher: its getenv is its own libc's,
# which the recorder never sees (nothing is preloaded into a static
# program), so what it read is unknown: the whole environment is keyed and
# clang is asked what it runs at every link.
cat >static/launch.c <<'EOF'
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv) {
  char *v[argc + 2];
  int n = 0;
  const char *f = getenv("LAUNCH_LDFLAGS");
  v[n++] = "/usr/lib/llvm-19/bin/clang";
  if (f && *f) v[n++] = (char *)f;
  for (int i = 1; i < argc; i++) v[n++] = argv[i];
  v[n] = 0;
  execv(v[0], v);
  return 127;
}
EOF
check "static launcher" gcc -static -O2 static/launch.c -o static/clang
file static/clang | grep -q 'statically linked' || fail "static/clang is not static: $(file static/clang)"
OFFLINK_CLANG=$T/static/clang rounds static LAUNCH_LDFLAGS -L -Xoffload-linker -ldev

# 5. OFFLINK_CACHE_ENV_IGNORE: a variable of the user's own left out.
printf '#!/bin/sh\nexec /usr/lib/llvm-19/bin/clang "$@"\n' >plain-clang
chmod +x plain-clang
OFFLINK_CLANG=$T/plain-clang BUILD_NUMBER=1 dev_link ign1 -Xoffload-linker -L"$T/libA" -Xoffload-linker -ldev
OFFLINK_CLANG=$T/plain-clang BUILD_NUMBER=2 dev_link ign2 -Xoffload-linker -L"$T/libA" -Xoffload-linker -ldev
miss ign2 # (a script: any variable may matter)
OFFLINK_CACHE_ENV_IGNORE="CI_* BUILD_NUMBER" OFFLINK_CLANG=$T/plain-clang BUILD_NUMBER=3 \
	dev_link ign3 -Xoffload-linker -L"$T/libA" -Xoffload-linker -ldev
OFFLINK_CACHE_ENV_IGNORE="CI_*,BUILD_NUMBER" OFFLINK_CLANG=$T/plain-clang BUILD_NUMBER=4 \
	dev_link ign4 -Xoffload-linker -L"$T/libA" -Xoffload-linker -ldev
hit ign4
expect ign4 28
echo "ok: OFFLINK_CACHE_ENV_IGNORE leaves a variable out"
echo "PASS: wrapper scripts and a static clang never make the cache stale"
