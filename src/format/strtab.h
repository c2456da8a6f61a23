/* An ELF-style string table with tail merging, laid out the way LLVM's
 * StringTableBuilder(ELF) lays it out, so offload binaries come out byte
 * for byte as clang-offload-packager writes them:
 *   - byte 0 is NUL and the empty string is offset 0;
 *   - the other distinct strings are ordered by their reversed bytes,
 *     descending (a proper suffix sorts right after its superstring);
 *   - a string that is a suffix of the previously emitted one reuses its
 *     tail instead of being emitted again. */
#ifndef OFFLINK_FORMAT_STRTAB_H
#define OFFLINK_FORMAT_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/error.h"

struct ob_strtab_str {
	const char *s;   /* not necessarily NUL-terminated */
	size_t len;
	uint64_t offset; /* filled by ob_strtab_build */
};

/* Lay out the n strings (duplicates allowed; each gets its offset) and
 * append the table bytes to out. */
enum ol_err ob_strtab_build(struct ob_strtab_str *strs, size_t n,
			    struct ol_buf *out);

#endif
