#!/usr/bin/env bash
# lld's own ThinLTO cache, which offlink hands lld in the device-link
# cache's store (issue 44, items 1-3), with a CPU-device program of three
# thin TUs (dev.c's target region is its own module):
#   planted  under umask 002, in a mode-2750 store of a setgid project
#            directory, the directory offlink hands lld is made by offlink
#            and its user's alone (lld made it 0770 & ~umask: group-
#            writable); one left group-writable, with dev.c's object
#            replaced by another build's, is refused with a warning: the
#            relink prints dev.c's own value, the image stored is right,
#            and --cache-clear removes the directory, after which it is
#            made again, mode 0700;
#   commas   a comma in TMPDIR and in the store's path: the cached link
#            works and hits (clang splits -Wl, at commas: the first failed,
#            the second handed lld a relative "x/y/lld-thinlto");
#   cap      a 16 KiB store: eight links, each recompiling one TU, leave
#            lld's files within their quarter (lld prunes at every link)
#            and everything within the cap; --cache-stats counts lld's
#            files in the store's size.
# ctest-parts: planted commas cap
# ctest-cost: 8
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-19

X=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu)
cat >dev.c <<'EOF'
int run_dev(void) {
  int r = 0;
#pragma omp target map(from: r)
  r = DEVVAL;
  return r;
}
EOF
cat >k1.c <<'EOF'
int run_k1(int n) {
  int s = 0;
#pragma omp target map(tofrom: s)
  for (int i = 0; i < n; i++) s += i * K1;
  return s;
}
EOF
cat >main.c <<'EOF'
#include <stdio.h>
int run_dev(void), run_k1(int);
int main(void) {
  int host = 1;
#pragma omp target map(tofrom: host)
  host = 0;
  printf("dev=%d k1=%d host=%d\n", run_dev(), run_k1(4), host);
  return 0;
}
EOF
compile() { # SOURCE OBJECT DEFINES...
	local src=$1 obj=$2
	shift 2
	clang-19 "${X[@]}" -O2 -foffload-lto=thin "$@" -c "$src" -o "$obj" || fail "compile $src"
}
# link OUTPUT [ARGS...]: offlink's thin link of dev.o k1.o main.o
link() {
	local out=$1
	shift
	clang-19 "${X[@]}" -foffload-lto=thin -B "$COMPAT" "$T/dev.o" "$T/k1.o" "$T/main.o" -o "$out" "$@" \
		2>"$out.err" || fail "link $out: $(grep -v '^offlink:  ' "$out.err" | tail -5)"
}
run() { # PROGRAM: its line of output
	LD_LIBRARY_PATH=/usr/lib/llvm-19/lib OMP_TARGET_OFFLOAD=MANDATORY "./$1" 2>"$1.run.err" ||
		fail "$1 exited with $?: $(head -c 400 "$1.run.err")"
}
part() { [[ " ${OFFLINK_PART:-planted commas cap} " = *" $1 "* ]]; }
compile main.c main.o
compile k1.c k1.o -DK1=3

if part planted; then
	umask 002
	mkdir -m 2775 proj && mkdir -m 2750 proj/store
	export OFFLINK_CACHE_DIR=$T/proj/store
	lld=$OFFLINK_CACHE_DIR/lld-thinlto
	# another build's dev.c object, from a cache of its own
	compile dev.c dev.o -DDEVVAL=99
	OFFLINK_CACHE_DIR=$T/other.cache link other
	planted=$(grep -l run_dev "$T"/other.cache/lld-thinlto/llvmcache-* 2>/dev/null | head -1)
	[ -n "$planted" ] || fail "the other build's lld cache holds no object of dev.c"

	compile dev.c dev.o -DDEVVAL=11
	link first
	[ "$(run first)" = "dev=11 k1=18 host=0" ] || fail "first: $(run first)"
	mode=$(stat -c %a "$lld")
	(( (8#$mode & 8#022) == 0 )) || fail "lld's ThinLTO cache directory is mode $mode under umask 002: its group can write it"
	[ "$(stat -c %U "$lld")" = "$(id -un)" ] || fail "lld's ThinLTO cache directory is not the user's"

	# the state lld left before: group-writable, and a group member's file
	# in place of dev.c's object
	chmod 2770 "$lld"
	victim=$(grep -l run_dev "$lld"/llvmcache-* | head -1)
	[ -n "$victim" ] || fail "no object of dev.c in lld's cache"
	cp "$planted" "$victim"
	compile k1.c k1.o -DK1=5 # (the group misses: lld runs)
	link second -Wl,--wrapper-verbose
	contains second.err "lld-thinlto is writable by its group (mode 2770): lld's ThinLTO cache is not used"
	grep -q -- '--thinlto-cache-dir' second.err && fail "lld was still handed its cache directory"
	[ "$(run second)" = "dev=11 k1=30 host=0" ] || fail "planted code reached the program: $(run second)"
	# what offlink stored is dev.c's own code, without lld's cache at all
	rm -rf "$lld"
	link third -Wl,--wrapper-verbose
	contains third.err "hit (local)"
	[ "$(run third)" = "dev=11 k1=30 host=0" ] || fail "the stored image: $(run third)"

	# --cache-clear removes a refused directory; the next link makes it again
	mkdir -m 2770 "$lld" && cp "$planted" "$lld/"
	check "--cache-clear" "$BIN/offlink" --cache-clear
	[ ! -e "$lld" ] || fail "--cache-clear left $(ls -la "$lld")"
	link fourth
	[ "$(stat -c %a "$lld")" = 2700 ] || fail "made again as mode $(stat -c %a "$lld")"
	echo "ok: planted: lld's directory is the user's alone; a group-writable one is refused"
fi

if part commas; then
	mkdir -p "$T/t,mp" "$T/cc,x"
	compile dev.c dev.o -DDEVVAL=11
	export TMPDIR=$T/t,mp OFFLINK_CACHE_DIR=$T/cc,x/y
	mkdir -p w && cd w
	link ../one -Wl,--wrapper-verbose
	contains ../one.err "miss: linking"
	[ -d "$OFFLINK_CACHE_DIR/lld-thinlto" ] || fail "no lld-thinlto in the store"
	[ "$(find "$OFFLINK_CACHE_DIR/lld-thinlto" -name 'llvmcache-*' | wc -l)" = 3 ] ||
		fail "lld's cache in the store does not hold one object per module"
	[ ! -e x ] || fail "lld was handed a relative cache directory: $(find x)"
	link ../two -Wl,--wrapper-verbose
	contains ../two.err "hit (local)"
	cd ..
	[ "$(run one)" = "dev=11 k1=18 host=0" ] || fail "one: $(run one)"
	same_bytes one two
	[ -z "$(ls "$TMPDIR")" ] || fail "temporaries left in TMPDIR: $(ls "$TMPDIR")"
	echo "ok: commas: TMPDIR and the store's path with commas link, hit and keep lld's files in the store"
fi

if part cap; then
	export OFFLINK_CACHE_SIZE=16K
	lld=$OFFLINK_CACHE_DIR/lld-thinlto
	compile dev.c dev.o -DDEVVAL=11
	# bytes on disk of the store's files that the cap covers: entries and
	# lld's (not the shards' counters)
	on_disk() { find "$OFFLINK_CACHE_DIR" -type f \( -name 'llvmcache-*' -o -regex '.*/[0-9a-f]/[0-9a-f]*' \) \
		-printf '%b\n' | awk '{ s += $1 * 512 } END { print s + 0 }'; }
	lld_bytes() { find "$lld" -name 'llvmcache-*' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
	for k in 1 2 3 4 5 6 7 8; do
		compile k1.c k1.o -DK1=$k
		link p$k
		[ "$(run p$k)" = "dev=11 k1=$((6 * k)) host=0" ] || fail "p$k: $(run p$k)"
		b=$(lld_bytes) d=$(on_disk)
		echo "link $k: lld's files $b bytes, the store $d bytes on disk"
		[ "$b" -le 4096 ] || fail "link $k: lld's files take $b bytes, over their quarter of 16 KiB"
		[ "$d" -le 16384 ] || fail "link $k: the store holds $d bytes on disk, over its 16 KiB cap"
	done
	# a store of the default size keeps lld's files; the statistics count them
	unset OFFLINK_CACHE_SIZE
	compile k1.c k1.o -DK1=9
	link p9
	"$BIN/offlink" --cache-stats >stats.txt || fail "--cache-stats"
	n=$(find "$lld" -name 'llvmcache-*' | wc -l)
	[ "$n" = 3 ] || fail "lld's cache holds $n objects, not one per module (3)"
	contains stats.txt "lld ThinLTO files:$(printf '%8d' "$n")"
	size=$(awk '/^  size:/ { print $2, $3 }' stats.txt)
	[ "$size" = "$(echo "$(on_disk)" | awk '{ printf "%.1f KiB", $1 / 1024 }')" ] ||
		fail "--cache-stats says the store holds $size, not what its entries and lld's files take: $(cat stats.txt)"
	echo "ok: cap: lld's files stay in their share, the store under its cap, and are counted"
fi
echo PASS
