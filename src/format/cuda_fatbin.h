/* NVIDIA's fat binary (what nvcc, fatbinary and nvlink write: the
 * container of `.nv_fatbin`, `__nv_relfatbin` and a CUDA program's
 * registration), read from plain bytes (docs/format.md, "NVIDIA fat
 * binary"):
 *
 *   header  u32 magic 0xBA55ED50, u16 version 1, u16 header size (16),
 *           u64 size of the entries that follow
 *   entry   u16 kind (1 PTX, 2 ELF: a cubin, 8 LTO IR), u16 version,
 *           u32 header size (64; 80 for PTX), u64 payload size (padded),
 *           u32 stored size when compressed, u32 (64 for PTX), u16 and
 *           u16 the code's version (minor, major), u32 the SM number,
 *           u32 offset and u32 length of an object name (after the header),
 *           u64 flags (0x1 64-bit, 0x2000 compressed by NVIDIA's LZ4
 *           block scheme, 0x8000 compressed with zstd, 0x100000 for that
 *           SM exactly: sm_90a, 0x200000 for its family: sm_100f), u64,
 *           u64 the size once decompressed; then the payload.
 *
 * Several fat binaries follow each other in a linked section (one per
 * object), each at a multiple of 8 after the last, zero bytes between. */
#ifndef OFFLINK_FORMAT_CUDA_FATBIN_H
#define OFFLINK_FORMAT_CUDA_FATBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/diag.h"
#include "format/spans.h"

#define OL_FATBIN_MAGIC 0xBA55ED50u
#define OL_FATBIN_HEADER 16

enum ol_fatbin_kind {
	OL_FATBIN_PTX = 1,
	OL_FATBIN_ELF = 2,
	OL_FATBIN_LTOIR = 8,
};

enum {
	OL_FATBIN_FLAG_64BIT = 0x1,
	OL_FATBIN_FLAG_DEBUG = 0x2,
	OL_FATBIN_FLAG_LZ = 0x2000,   /* NVIDIA's LZ4-block compression */
	OL_FATBIN_FLAG_ZSTD = 0x8000,
	/* code for one SM exactly (nvcc 13, -arch=sm_90a, sm_100a, and their
	 * compute_90a PTX), or for one family (sm_100f): the SM number
	 * alone would name another target */
	OL_FATBIN_FLAG_ARCH_SPECIFIC = 0x100000,
	OL_FATBIN_FLAG_FAMILY = 0x200000,
};

struct ol_fatbin_entry {
	size_t offset;             /* of its header, in the fat binary */
	unsigned kind;             /* enum ol_fatbin_kind, or another value */
	unsigned arch;             /* the SM number: 90 for sm_90 */
	unsigned major, minor;     /* the code's version */
	uint64_t flags;
	const char *name;          /* its object name (not NUL-terminated), or NULL */
	size_t name_len;
	const uint8_t *payload;    /* as stored: compressed when flags say so */
	size_t stored;             /* bytes of payload that hold data */
	uint64_t size;             /* once decompressed (= stored when not) */
};

struct ol_fatbin {
	size_t size;               /* the bytes it occupies: header and entries */
	size_t n;
	struct ol_fatbin_entry *v;
};

/* True if p starts with the fat binary magic. */
bool ol_is_fatbin(const uint8_t *p, size_t len);

/* Decode the fat binary at the start of p[0..len) (more may follow);
 * every size, offset and name is checked against its bounds.  Entries
 * point into p.  Offsets in *d are relative to p. */
enum ol_err ol_fatbin_decode(const uint8_t *p, size_t len, struct ol_fatbin *out,
			     struct ol_diag *d);
void ol_fatbin_free(struct ol_fatbin *f);

/* Several fat binaries back to back (a linked .nv_fatbin): where each
 * is in p, into *v (malloc'd; format/spans.h).  A byte after one that is
 * neither zero padding nor the next's magic is an error at its offset. */
enum ol_err ol_fatbin_spans(const uint8_t *p, size_t len, struct ol_span **v, size_t *n,
			    struct ol_diag *d);

/* The entry's code: *data points into the payload when stored plainly,
 * else into out, which receives it decompressed (exactly e->size bytes);
 * *len its size (a PTX text without the padding after it). */
enum ol_err ol_fatbin_entry_code(const struct ol_fatbin_entry *e, struct ol_buf *out,
				 const uint8_t **data, size_t *len, struct ol_diag *d);

/* "elf", "ptx", "ltoir", or "kind-<n>" into buf. */
const char *ol_fatbin_kind_name(unsigned kind, char *buf, size_t len);
/* The entry's target as nvcc names it: "sm_90", "compute_90" (PTX), with
 * its suffix, "sm_90a", "sm_100f".  Into buf (32 bytes hold any). */
const char *ol_fatbin_arch_name(const struct ol_fatbin_entry *e, char *buf, size_t len);
/* "zstd", "lz", or NULL when the entry is stored plainly. */
const char *ol_fatbin_compression(const struct ol_fatbin_entry *e);

/* Decompress NVIDIA's LZ4-block scheme (flag 0x2000): exactly want bytes
 * into out. */
enum ol_err ol_fatbin_unlz(const uint8_t *src, size_t len, uint64_t want, struct ol_buf *out,
			   struct ol_diag *d);

#endif
