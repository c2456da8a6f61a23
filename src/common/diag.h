/* A diagnostic: what went wrong (an ol_err code) and where.
 *
 * Decoders know the offset and the field; the layer that opened the file
 * knows its name, the archive member and the base offset of the buffer it
 * handed down.  Each layer fills what it knows, so the final message reads
 *   lib.a(k.o): offset 0x2c8: field 'NumStrings': offset or size outside ...
 */
#ifndef OFFLINK_COMMON_DIAG_H
#define OFFLINK_COMMON_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

struct ol_diag {
	enum ol_err code;
	bool has_offset;
	uint64_t offset;        /* byte offset inside file (or member) */
	const char *field;      /* static string naming the field, or NULL */
	char file[1024];        /* file the fault is in, or "" */
	char member[256];       /* archive member, or "" */
	char detail[512];       /* free text added by the reporter */
};

/* Reset to "no error, no context". */
void ol_diag_clear(struct ol_diag *d);

/* Record an error with an optional field and printf-style detail; returns
 * code so callers can write `return ol_diag_set(d, ...)`. */
enum ol_err ol_diag_set(struct ol_diag *d, enum ol_err code, const char *field,
			const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* As ol_diag_set, also recording the byte offset of the fault. */
enum ol_err ol_diag_at(struct ol_diag *d, enum ol_err code, uint64_t offset,
		       const char *field, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Record an OL_E_IO error from errno with a detail prefix (e.g. "open"). */
enum ol_err ol_diag_errno(struct ol_diag *d, int err, const char *what,
			  const char *path);

/* Add the location of the buffer a lower layer decoded: its file, member
 * and the offset of the buffer inside that file (added to the offset the
 * decoder reported).  Fields already set by a deeper layer are kept. */
void ol_diag_locate(struct ol_diag *d, const char *file, const char *member,
		    uint64_t base);

/* Prefix the detail with a short context ("section .llvm.offloading"). */
void ol_diag_prefix(struct ol_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Render the whole diagnostic as one line (no trailing newline): location,
 * then the code's message, then the detail; a detail with no location
 * stands alone. */
void ol_diag_format(const struct ol_diag *d, char *out, size_t outlen);

#endif
