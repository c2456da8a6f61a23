#!/bin/sh
# The layout's two rules, checked on a build tree's objects (docs/design.md,
# "Code layout and dependency direction"):
#  - no circle of files: no two files of src/ or runtime-stub/ that use
#    each other, directly or through others;
#  - each room (src/<room>/, runtime-stub/) uses only the rooms below it.
# File A uses file B when A's object needs a symbol B's object defines.
# Prints every circle and every use against the order; exits 1 if there is
# one, 0 if there is none, 2 when there is nothing to check.
# Usage: scripts/check-rooms.sh [build-dir]
set -eu
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
NM=${NM:-nm}
[ -d "$build" ] || { echo "check-rooms: no build directory $build" >&2; exit 2; }
list=$(mktemp) && trap 'rm -f "$list"' EXIT INT TERM
# Every object of the two trees, named by its source file (a file built
# twice, as runtime-stub/api_calls.c is, is one file; an object whose
# source is gone, left in an old build tree, is not counted).  Left out:
# the recorder, which defines libc's own names (posix_spawn, open, ...)
# to interpose on them inside clang, and is linked with nothing.
find "$build" -path '*CMakeFiles*' -name '*.c.o' | while read -r o; do
	rel=${o#"$build"/}
	rest=${rel#*CMakeFiles/}
	src=${rel%%CMakeFiles/*}${rest#*.dir/}
	src=${src%.o}
	case $src in
	src/os/probe_preload.c) ;;
	src/*|runtime-stub/*) [ -f "$root/$src" ] && printf '%s %s\n' "$src" "$o" ;;
	esac
done | sort > "$list"
[ -s "$list" ] || { echo "check-rooms: no objects of src/ or runtime-stub/ under $build" >&2; exit 2; }
# (one nm for all objects: "object:value type name", "object: U name")
objects=$(awk '{ print $2 }' "$list")
{
	awk '{ print "F", $2, $1 }' "$list"
	# shellcheck disable=SC2086
	"$NM" -A --defined-only -g $objects | awk '{ split($1, o, ":"); print "D", o[1], $NF }'
	# shellcheck disable=SC2086
	"$NM" -A -u $objects | awk '{ split($1, o, ":"); print "U", o[1], $NF }'
} | awk '
# The rooms each room may use (the table in docs/design.md).
BEGIN {
	below["common"] = ""
	below["os"] = "common"
	below["format"] = "common"
	below["extract"] = "format os common"
	below["cache"] = "os common"
	below["jobs"] = "os common"
	below["wrap"] = "format common"
	below["link"] = "extract cache jobs format os common"
	below["devplan"] = "link extract cache jobs format os common"
	below["devcache"] = "devplan link extract cache jobs format os common"
	below["thin"] = "devcache devplan link extract cache jobs format os common"
	below["targets"] = "thin devcache devplan link extract cache jobs format os common"
	below["devlink"] = "targets thin devcache devplan link extract cache jobs format os common"
	below["register"] = "devlink targets thin devcache devplan link wrap extract cache jobs format os common"
	below["driver"] = "register devlink targets thin devcache devplan link wrap extract cache jobs format os common"
	below["packager"] = "extract format os common"
	below["offload_wrapper"] = "wrap format os common"
	below["bundler"] = "extract format os common"
	below["runtime-stub"] = "format"
}
function room(f,    q) { split(f, q, "/"); return q[1] == "src" ? q[2] : q[1] }
function allowed(a, b,    r, m, i) {
	if (a == b) return 1
	m = split(below[a], r, " ")
	for (i = 1; i <= m; i++) if (r[i] == b) return 1
	return 0
}
$1 == "F" { file[$2] = $3; next }
$1 == "D" { if (!(($3, file[$2]) in defd)) { defd[$3, file[$2]] = 1; ndef[$3]++ }; def[$3] = file[$2]; next }
$1 == "U" { use[++n] = file[$2] SUBSEP $3; next }
END {
	bad = 0
	for (i = 1; i <= n; i++) {
		split(use[i], p, SUBSEP)
		# (a name more than one file defines, as main, is no edge)
		if (!(p[2] in def) || ndef[p[2]] > 1 || def[p[2]] == p[1]) continue
		a = p[1]; b = def[p[2]]
		if (!allowed(room(a), room(b)) && !((a, b) in said)) {
			said[a, b] = 1
			print "against the order: " a " (" room(a) ") uses " p[2] " of " b " (" room(b) ")"
			bad = 1
		}
		if (!((a, b) in edge)) {
			edge[a, b] = 1
			out[a] = out[a] " " b
			node[a] = node[b] = 1
		}
	}
	# reach[a, b]: b is reached from a (a breadth-first walk per file)
	for (a in node) {
		delete seen; head = 0; tail = 0
		q[tail++] = a
		while (head < tail) {
			x = q[head++]
			m = split(out[x], nx, " ")
			for (j = 1; j <= m; j++)
				if (!(nx[j] in seen)) { seen[nx[j]] = 1; reach[a, nx[j]] = 1; q[tail++] = nx[j] }
		}
	}
	for (a in node) {
		if (a in done) continue
		set = a
		for (b in node)
			if (b != a && ((a, b) in reach) && ((b, a) in reach)) { set = set " " b; done[b] = 1 }
		done[a] = 1
		if (set != a) { print "circle: " set; bad = 1 }
	}
	exit bad
}'
