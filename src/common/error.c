#include "common/error.h"

/* Indexed by enum ol_err; a missing entry is caught by the test in
 * tests/unit/test_common.c, which walks every code. */
static const char *const messages[OL_E__COUNT] = {
	[OL_OK] = "success",
	[OL_E_NOMEM] = "out of memory",
	[OL_E_IO] = "input/output error",
	[OL_E_USAGE] = "invalid command line",
	[OL_E_TRUNCATED] = "truncated: the data ends inside a field",
	[OL_E_BAD_MAGIC] = "bad magic bytes",
	[OL_E_BAD_VERSION] = "unsupported version",
	[OL_E_OUT_OF_BOUNDS] = "offset or size outside the container",
	[OL_E_OVERFLOW] = "offset plus size overflows",
	[OL_E_UNTERMINATED] = "string is not NUL-terminated inside the binary",
	[OL_E_BAD_FIELD] = "field holds an invalid value",
	[OL_E_NO_ENTRIES] = "binary declares no entries",
	[OL_E_TRAILING] = "trailing bytes after the last offload binary",
	[OL_E_DECOMPRESS] = "compressed data is corrupt",
	[OL_E_COMPRESS] = "compression failed",
	[OL_E_BAD_ELF] = "malformed ELF file",
	[OL_E_BAD_ARCHIVE] = "malformed static archive",
	[OL_E_BAD_BITCODE] = "malformed LLVM bitcode",
	[OL_E_UNRECOGNIZED] = "not an offload binary, ELF object or static archive",
	[OL_E_BAD_BUNDLE] = "malformed offload bundle",
	[OL_E_BAD_FATBIN] = "malformed CUDA fat binary",
	[OL_E_BAD_TARGET] = "malformed target",
	[OL_E_NOT_FOUND] = "not found",
	[OL_E_CONFLICT] = "conflicting inputs",
	[OL_E_TOOL_FAILED] = "subprocess failed",
	[OL_E_UNSUPPORTED] = "not supported",
	[OL_E_INTERRUPTED] = "interrupted",
	[OL_E_REPORTED] = "errors reported above",
};

const char *ol_strerror(enum ol_err err)
{
	if ((unsigned)err >= OL_E__COUNT || !messages[err])
		return "unknown error";
	return messages[err];
}
