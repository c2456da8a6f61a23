#!/usr/bin/env bash
# docs/howto-library-vendors.md, tried as a new user would: every ```sh
# block is run, in order, in an empty directory, with offlink's compat
# directory where the page says to put it; the page's promised output must
# appear.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-19 gcc ar

page=$OFFLINK_SRC/docs/howto-library-vendors.md
awk '/^```sh$/ {on = 1; next} /^```$/ {on = 0} on' "$page" >howto.sh
[ "$(grep -c . howto.sh)" -gt 10 ] || fail "no shell blocks found in $page"
OFFLINK_COMPAT=$COMPAT bash -e howto.sh >howto.out 2>howto.err ||
	fail "the how-to failed: $(tail -5 howto.err)"
contains howto.out "ran on the device: 12 24 36"
contains howto.out "[linked]"
echo "PASS: the library vendors' how-to works as written"
