/* A growable byte buffer, used for encoder output and generated text. */
#ifndef OFFLINK_COMMON_BUF_H
#define OFFLINK_COMMON_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

struct ol_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

/* Make sure at least extra more bytes fit without reallocating. */
enum ol_err ol_buf_reserve(struct ol_buf *b, size_t extra);
/* Append len bytes. */
enum ol_err ol_buf_append(struct ol_buf *b, const void *p, size_t len);
/* Append n zero bytes. */
enum ol_err ol_buf_zeros(struct ol_buf *b, size_t n);
/* Append a NUL-terminated string without its NUL. */
enum ol_err ol_buf_puts(struct ol_buf *b, const char *s);
/* Append printf-style text (no NUL counted in len; data stays terminated). */
enum ol_err ol_buf_printf(struct ol_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append little-endian integers. */
enum ol_err ol_buf_le16(struct ol_buf *b, uint16_t v);
enum ol_err ol_buf_le32(struct ol_buf *b, uint32_t v);
enum ol_err ol_buf_le64(struct ol_buf *b, uint64_t v);
/* Release the storage and reset to empty. */
void ol_buf_free(struct ol_buf *b);

#endif
