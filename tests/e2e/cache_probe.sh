#!/usr/bin/env bash
# Issues 25 (item 12) and 28: what clang runs for a CPU device link is
# remembered with the facts clang decided on (os/probe_preload.c records
# every place clang looks; cache/facts.h), so that a relink asks clang
# nothing, and a first link asks it beside the link, not before.  The
# remembered answer must never outlive what it depends on:
#  1. the first link learns it from clang's own link (recorded, no -###
#     of its own; the answer and the image are stored); a relink asks
#     nothing and hits;
#  2. an ld put in a directory of PATH that clang searches before the one
#     it found ld in: clang would now run that ld, so the relink asks
#     clang again, links with that ld, and the program shows it; removed,
#     the first answer holds again and is used without asking;
#  3. a new directory first in PATH holding another ld: the same;
#  4. another working directory (no base directory): what clang looked at
#     is the same from there, so the answer holds and the relink hits;
#  5. the clang offlink runs, replaced: asked again;
#  6. without the recorder (offlink-probe.so gone) and no answer
#     remembered, nothing is cached, and the plan says why.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need gcc ar

dev_caller
mkdir -p lib bin1 bin2 other
printf 'int dev(int x) { return 3 * x; }\nint dev_alt(int x) { return 100 * x; }\n' >lib/dev.c
check "libdev" gcc -O2 -fPIC -c lib/dev.c -o lib/dev.o
check "libdev.a" ar rcs lib/libdev.a lib/dev.o
# bin1 and bin2 come before /usr/bin in PATH, empty at first
export PATH=$T/bin1:$T/bin2:$PATH

link() { # NAME [DIR]: link through offlink with -v, run
	local name=$1 dir=${2:-$T}
	(cd "$dir" && clang-19 "${OMP[@]}" -B "$COMPAT" "$T/k.o" "$T/hostdev.o" -Xoffload-linker -L"$T/lib" \
		-Xoffload-linker -ldev "${STUBLINK[@]}" -o "$name" -Wl,--wrapper-verbose 2>"$name.v") ||
		fail "link of $name: $(grep -v '^offlink:  ' "$dir/$name.v" | tail -3)"
	(cd "$dir" && run "$name")
}
value() { sed -n 's/^dev=//p' "$1.out"; }
# asked: clang said what it runs, by its own link recorded (a first link)
# or by a -### before the lookup (an answer for another state remembered)
asked() {
	grep -q -- "'-###'$" "$1.v" || grep -q "(environment: OFFLINK_PROBE_LOG=" "$1.v" ||
		fail "$1: clang was not asked what it runs"
}
not_asked() {
	grep -q -- "'-###'$" "$1.v" && fail "$1: clang was asked what it runs again (-###)"
	grep -q "(environment: OFFLINK_PROBE_LOG=" "$1.v" && fail "$1: clang's link was recorded again"
	return 0
}
hit() { grep -q "device-link cache hit" "$1.v" || fail "$1: expected a hit: $(grep 'device-link cache' "$1.v")"; }
stored() { grep -q "device-link cache stored" "$1.v" || fail "$1: expected a store: $(grep 'device-link cache' "$1.v")"; }
alt_ld() { # FILE: an ld that binds dev to dev_alt in shared links
	cat >"$1" <<'EOF'
#!/bin/sh
case " $* " in *" -shared "*) exec /usr/bin/ld --defsym=dev=dev_alt "$@" ;; esac
exec /usr/bin/ld "$@"
EOF
	chmod +x "$1"
}

# 1.
link l1
asked l1
stored l1
[ "$(value l1)" = 42 ] || fail "l1: dev=$(value l1)"
link l2
not_asked l2
hit l2
grep -q -- "'-###'$" l1.v && fail "l1: a first link ran a -### of its own"
echo "ok: 1. learnt from the first link itself, not asked on a relink"

# 2. an ld in bin2 (searched before /usr/bin)
alt_ld bin2/ld
link l3
asked l3
[ "$(value l3)" = 1400 ] || fail "l3: clang now runs bin2/ld, the program printed dev=$(value l3), not 1400 (stale answer)"
grep -q "$T/bin2/ld" l3.v || fail "l3: the link did not run bin2/ld"
link l4
not_asked l4
hit l4
# bin2/ld gone: the first answer holds again (the memo keeps answers for
# several states), and so does its image
rm bin2/ld
link l5
not_asked l5
hit l5
[ "$(value l5)" = 42 ] || fail "l5: bin2/ld gone, dev=$(value l5)"
echo "ok: 2. an ld appearing where clang looks first is seen"

# 3. a new directory first in PATH
mkdir -p bin0
alt_ld bin0/ld
PATH=$T/bin0:$PATH link l6
asked l6
[ "$(value l6)" = 1400 ] || fail "l6: dev=$(value l6), not 1400"
echo "ok: 3. a new PATH is seen"

# 4. another working directory
link l7
link l8 "$T/other"
not_asked other/l8
hit other/l8
[ "$(cd other && value l8)" = 42 ] || fail "l8: dev=$(cd other && value l8)"
echo "ok: 4. another directory: what clang looked at holds, the same answer, a hit"

# 5. the clang offlink runs, replaced (same path, another script)
printf '#!/bin/sh\nexec clang-19 "$@"\n' >clangw
chmod +x clangw
OFFLINK_CLANG=$T/clangw link l9
asked l9
OFFLINK_CLANG=$T/clangw link l10
not_asked l10
printf '#!/bin/sh\n# another\nexec clang-19 "$@"\n' >clangw
OFFLINK_CLANG=$T/clangw link l11
asked l11
echo "ok: 5. another clang is asked"

# 6. no recorder: not cached, said
mkdir -p nb/bin
cp "$BIN/offlink" "$BIN/offlink-guard" nb/bin/
mkdir -p nb/compat
ln -s ../bin/offlink nb/compat/clang-linker-wrapper
OFFLINK_CACHE_DIR=$T/c12 clang-19 "${OMP[@]}" -B "$T/nb/compat" k.o hostdev.o -Xoffload-linker -L"$T/lib" \
	-Xoffload-linker -ldev -o l12 -Wl,--wrapper-verbose 2>l12.v || fail "link without the recorder: $(tail -3 l12.v)"
contains l12.v "not used: no recorder for clang (offlink-probe.so) beside offlink"
run l12
[ "$(value l12)" = 42 ] || fail "l12: dev=$(value l12)"
echo "ok: 6. no recorder, no cache, said"
