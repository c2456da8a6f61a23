# Helpers for tests that check links through the runtime stub (sourced
# after testlib.sh).  The stub's log is JSON lines; jq turns each kind of
# record into sorted text lines that a test compares with what its
# sources declare.
need jq
export LC_ALL=C # sort order
STUB=$OFFLINK_BUILD/lib/liboffstub.so
STUBDIR=$OFFLINK_BUILD/lib/offstub # libomptarget.so, libcudart.so, libamdhip64.so
[ -e "$STUB" ] || fail "$STUB is not built"
GPU_SRC=$OFFLINK_SRC/tests/e2e/gpu

# stub_images LOG: "runtime triple arch elf_machine container", sorted.
stub_images() {
	jq -r 'select(.images) | .runtime as $r | .images[] |
		"\($r) \(.triple) \(.arch) \(.elf_machine) \(.container)"' "$1" | sort
}

# stub_entries LOG: "runtime kind name size [extern constant]", sorted.
stub_entries() {
	jq -r 'select(.images) | .runtime as $r | .entries[] |
		"\($r) \(.kind) \(.name) \(.size)" +
		(if has("extern") then " \(.extern) \(.constant)" else "" end)' "$1" | sort
}

# stub_launches LOG: "runtime name grid block", in launch order.
stub_launches() {
	jq -r 'select(.launch) | "\(.runtime) \(.launch) \(.grid | join("x")) \(.block | join("x"))"' "$1"
}

# expect_text FILE: FILE must equal stdin (shown as a diff otherwise).
expect_text() {
	cat >"$1.want"
	diff -u "$1.want" "$1" >&2 || fail "$1 is not what the sources declare"
}
