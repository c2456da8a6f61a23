/* An output made of bytes an encoder wrote and bytes that lie elsewhere
 * (an input's mapping), kept apart so that the latter are written
 * straight from where they are, never copied into a buffer first: a
 * 512 MiB image costs 512 MiB of page cache, not a second 512 MiB of heap.
 *
 * The encoder appends its own bytes to p->own (the ol_buf functions) and
 * calls ol_pieces_ref for the others; ol_pieces_finish closes the list. */
#ifndef OFFLINK_COMMON_PIECES_H
#define OFFLINK_COMMON_PIECES_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

struct ol_piece {
	const uint8_t *ptr;  /* elsewhere, or NULL: own.data + off */
	size_t off, len;
	int fd;              /* ptr lies in this file's mapping, or -1 */
	uint64_t file_off;   /* ... at this offset */
};

struct ol_pieces {
	struct ol_buf own;
	struct ol_piece *v;
	size_t n, cap;
	size_t open;         /* start of own bytes not yet in a piece */
};

/* Append a reference to len bytes at data (which must outlive p). */
enum ol_err ol_pieces_ref(struct ol_pieces *p, const void *data, size_t len);
/* The references that point into the mapping data[0..len) of the file
 * fd learn where they are in it, so a writer can reflink them or read
 * them from the file in large blocks instead of faulting in the mapping. */
void ol_pieces_attach_file(struct ol_pieces *p, const void *data, size_t len, int fd);
/* Close the list: the own bytes written since the last reference. */
enum ol_err ol_pieces_finish(struct ol_pieces *p);
/* The bytes of piece i. */
const uint8_t *ol_piece_data(const struct ol_pieces *p, size_t i);
/* Total length. */
uint64_t ol_pieces_len(const struct ol_pieces *p);
/* All of it, copied into out (for a compressor, which needs it whole). */
enum ol_err ol_pieces_flatten(const struct ol_pieces *p, struct ol_buf *out);
void ol_pieces_free(struct ol_pieces *p);

#endif
