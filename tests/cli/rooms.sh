#!/usr/bin/env bash
# The layout's rules hold in this build: no circle of files in src/ or
# runtime-stub/, no room using one above it (scripts/check-rooms.sh,
# docs/design.md).  And the check can fail: a small tree with a circle of
# two files and a use against the order is caught, each by name.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need nm cc

check "the rooms of this build" bash "$OFFLINK_SRC/scripts/check-rooms.sh" "$OFFLINK_BUILD"

# a tree of its own: src/wrap/a.c and b.c call each other; src/common/c.c
# calls into src/driver/d.c
mkdir -p fake/scripts fake/src/wrap fake/src/common fake/src/driver fake/build/CMakeFiles/t.dir/src/wrap \
	fake/build/CMakeFiles/t.dir/src/common fake/build/CMakeFiles/t.dir/src/driver
cp "$OFFLINK_SRC/scripts/check-rooms.sh" fake/scripts/
printf 'int b(int);\nint a(int x) { return x ? b(x - 1) : 0; }\n' >fake/src/wrap/a.c
printf 'int a(int);\nint b(int x) { return a(x); }\n' >fake/src/wrap/b.c
printf 'int d(void);\nint c(void) { return d(); }\n' >fake/src/common/c.c
printf 'int d(void) { return 1; }\n' >fake/src/driver/d.c
for f in wrap/a wrap/b common/c driver/d; do
	check "compile $f" cc -c "fake/src/$f.c" -o "fake/build/CMakeFiles/t.dir/src/$f.c.o"
done
expect_status 1 bash fake/scripts/check-rooms.sh fake/build
cat "$T/stdout"
grep -q '^circle: .*src/wrap/a.c' "$T/stdout" && grep -q '^circle: .*src/wrap/b.c' "$T/stdout" ||
	fail "the circle of a.c and b.c was not reported"
contains "$T/stdout" "against the order: src/common/c.c (common) uses d of src/driver/d.c (driver)"
# an object whose source is gone (an old build tree) is not counted
rm fake/src/wrap/b.c fake/src/driver/d.c
check "stale objects ignored" bash fake/scripts/check-rooms.sh fake/build
echo "PASS: rooms"
