#include "format/cuda_fatbin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/le.h"
#include "format/compress.h"
#include "format/spans.h"

bool ol_is_fatbin(const uint8_t *p, size_t len)
{
	return len >= 4 && ol_le32(p) == OL_FATBIN_MAGIC;
}

void ol_fatbin_free(struct ol_fatbin *f)
{
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* The entry whose header is at p[at..end): checked and filled in. */
static enum ol_err decode_entry(const uint8_t *p, size_t at, size_t end,
				struct ol_fatbin_entry *e, struct ol_diag *d)
{
	const uint8_t *h = p + at;
	uint32_t hsize, stored32, name_off, name_len;
	uint64_t payload;

	if (end - at < 64)
		return ol_diag_at(d, OL_E_TRUNCATED, at, "entry header",
				  "%zu bytes left, an entry header has 64", end - at);
	memset(e, 0, sizeof(*e));
	e->offset = at;
	e->kind = ol_le16(h);
	hsize = ol_le32(h + 4);
	payload = ol_le64(h + 8);
	stored32 = ol_le32(h + 16);
	e->minor = ol_le16(h + 24);
	e->major = ol_le16(h + 26);
	e->arch = ol_le32(h + 28);
	name_off = ol_le32(h + 32);
	name_len = ol_le32(h + 36);
	e->flags = ol_le64(h + 40);
	e->size = ol_le64(h + 56);
	if (hsize < 64 || hsize > end - at)
		return ol_diag_at(d, OL_E_OUT_OF_BOUNDS, at + 4, "header size",
				  "%u bytes, %zu left", hsize, end - at);
	if (payload > end - at - hsize)
		return ol_diag_at(d, OL_E_OUT_OF_BOUNDS, at + 8, "payload size",
				  "%llu bytes after a %u-byte header, %zu left",
				  (unsigned long long)payload, hsize, end - at - hsize);
	e->payload = h + hsize;
	if (e->flags & (OL_FATBIN_FLAG_LZ | OL_FATBIN_FLAG_ZSTD)) {
		if ((e->flags & OL_FATBIN_FLAG_LZ) && (e->flags & OL_FATBIN_FLAG_ZSTD))
			return ol_diag_at(d, OL_E_BAD_FIELD, at + 40, "flags",
					  "0x%llx: compressed two ways", (unsigned long long)e->flags);
		if (stored32 == 0 || stored32 > payload)
			return ol_diag_at(d, OL_E_OUT_OF_BOUNDS, at + 16, "compressed size",
					  "%u bytes in a %llu-byte payload", stored32,
					  (unsigned long long)payload);
		/* (a bound on what is allocated for it: real code compresses
		 * a few times over, not thousands) */
		if (e->size == 0 || e->size > ol_inflate_max(stored32))
			return ol_diag_at(d, OL_E_BAD_FIELD, at + 56, "uncompressed size",
					  "%llu bytes from %u compressed: more than %u times as "
					  "much, plus %u bytes", (unsigned long long)e->size, stored32,
					  OL_INFLATE_RATIO, OL_INFLATE_SLACK);
		e->stored = stored32;
	} else {
		e->stored = (size_t)payload;
		e->size = payload;
	}
	if (name_len) {
		/* (an object name, counted from the header's start) */
		if (name_off < 64 || name_off > hsize || name_len > hsize - name_off)
			return ol_diag_at(d, OL_E_OUT_OF_BOUNDS, at + 32, "object name",
					  "%u bytes at %u in a %u-byte header", name_len, name_off,
					  hsize);
		e->name = (const char *)h + name_off;
		e->name_len = name_len;
	}
	return OL_OK;
}

enum ol_err ol_fatbin_decode(const uint8_t *p, size_t len, struct ol_fatbin *out,
			     struct ol_diag *d)
{
	uint16_t version, hsize;
	uint64_t size;
	size_t at, end, cap = 0;

	memset(out, 0, sizeof(*out));
	if (len < OL_FATBIN_HEADER)
		return ol_diag_at(d, OL_E_TRUNCATED, 0, "header", "%zu bytes, the header has 16",
				  len);
	if (!ol_is_fatbin(p, len))
		return ol_diag_at(d, OL_E_BAD_MAGIC, 0, "magic", "0x%08x, not 0xba55ed50",
				  ol_le32(p));
	version = ol_le16(p + 4);
	hsize = ol_le16(p + 6);
	size = ol_le64(p + 8);
	if (version != 1)
		return ol_diag_at(d, OL_E_BAD_VERSION, 4, "version", "version %u; offlink reads 1",
				  version);
	if (hsize < OL_FATBIN_HEADER || hsize > len)
		return ol_diag_at(d, OL_E_OUT_OF_BOUNDS, 6, "header size", "%u bytes of %zu",
				  hsize, len);
	if (size > len - hsize)
		return ol_diag_at(d, OL_E_OUT_OF_BOUNDS, 8, "size",
				  "%llu bytes of entries after the header, %zu left",
				  (unsigned long long)size, len - hsize);
	end = hsize + (size_t)size;
	for (at = hsize; at < end; ) {
		struct ol_fatbin_entry *v = ol_grow(out->v, out->n, &cap, sizeof(*v), 4);

		if (!v) {
			ol_fatbin_free(out);
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		}
		out->v = v;
		if (decode_entry(p, at, end, &out->v[out->n], d)) {
			ol_fatbin_free(out);
			return d->code;
		}
		at = (size_t)(out->v[out->n].payload - p) +
		     (size_t)ol_le64(p + out->v[out->n].offset + 8);
		out->n++;
	}
	out->size = end;
	return OL_OK;
}

static enum ol_err fatbin_extent(const uint8_t *p, size_t len, uint64_t *extent,
				 struct ol_diag *d)
{
	struct ol_fatbin f;

	if (ol_fatbin_decode(p, len, &f, d))
		return d->code;
	*extent = f.size;
	ol_fatbin_free(&f);
	return OL_OK;
}

static const struct ol_span_kind fatbin_kind = { "fat binary", ol_is_fatbin, fatbin_extent,
						 OL_E_BAD_FATBIN };

enum ol_err ol_fatbin_spans(const uint8_t *p, size_t len, struct ol_span **v, size_t *n,
			    struct ol_diag *d)
{
	return ol_spans(&fatbin_kind, p, len, v, n, d);
}

/* ---- NVIDIA's LZ4 block scheme ---- */

/* A length continued by bytes of 255: adds to *n; false past the end. */
static bool more_length(const uint8_t *src, size_t len, size_t *i, size_t *n)
{
	uint8_t b;

	do {
		if (*i >= len)
			return false;
		b = src[(*i)++];
		if (*n > SIZE_MAX - 255)
			return false;
		*n += b;
	} while (b == 255);
	return true;
}

enum ol_err ol_fatbin_unlz(const uint8_t *src, size_t len, uint64_t want, struct ol_buf *out,
			   struct ol_diag *d)
{
	size_t i = 0, base = out->len, got;

	if (want > ((uint64_t)1 << 32) || ol_buf_reserve(out, (size_t)want))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	while (i < len) {
		uint8_t token = src[i++];
		size_t lit = token >> 4, match = token & 15, offset;

		if ((lit == 15 && !more_length(src, len, &i, &lit)) || lit > len - i ||
		    lit > want - (out->len - base))
			goto bad;
		memcpy(out->data + out->len, src + i, lit);
		out->len += lit;
		i += lit;
		if (i == len)
			break; /* the last sequence: literals only */
		if (len - i < 2)
			goto bad;
		offset = (size_t)src[i] | (size_t)src[i + 1] << 8;
		i += 2;
		if ((match == 15 && !more_length(src, len, &i, &match)) || match > SIZE_MAX - 4)
			goto bad;
		match += 4;
		got = out->len - base;
		if (offset == 0 || offset > got || match > want - got)
			goto bad;
		/* (byte by byte: a match may overlap what it copies) */
		for (size_t k = 0; k < match; k++, out->len++)
			out->data[out->len] = out->data[out->len - offset];
	}
	if (out->len - base != want) {
		ol_diag_set(d, OL_E_DECOMPRESS, "compressed data",
			    "%zu bytes decompressed, the entry declares %llu", out->len - base,
			    (unsigned long long)want);
		out->len = base;
		return d->code;
	}
	return OL_OK;
bad:
	out->len = base;
	return ol_diag_set(d, OL_E_DECOMPRESS, "compressed data",
			   "the LZ stream breaks off or points outside itself at byte %zu", i);
}

enum ol_err ol_fatbin_entry_code(const struct ol_fatbin_entry *e, struct ol_buf *out,
				 const uint8_t **data, size_t *len, struct ol_diag *d)
{
	size_t base = out->len;

	if (e->flags & OL_FATBIN_FLAG_ZSTD) {
		if (ol_decompress(OL_COMP_ZSTD, e->payload, e->stored, e->size, out, d))
			return d->code;
	} else if (e->flags & OL_FATBIN_FLAG_LZ) {
		if (ol_fatbin_unlz(e->payload, e->stored, e->size, out, d))
			return d->code;
	} else {
		*data = e->payload;
		*len = e->stored;
		goto text;
	}
	*data = out->data + base;
	*len = out->len - base;
text:
	/* PTX is text, padded with NULs to the payload's size */
	if (e->kind == OL_FATBIN_PTX) {
		const uint8_t *z = memchr(*data, 0, *len);

		if (z)
			*len = (size_t)(z - *data);
	}
	return OL_OK;
}

const char *ol_fatbin_kind_name(unsigned kind, char *buf, size_t len)
{
	switch (kind) {
	case OL_FATBIN_PTX: return "ptx";
	case OL_FATBIN_ELF: return "elf";
	case OL_FATBIN_LTOIR: return "ltoir";
	default:
		snprintf(buf, len, "kind-%u", kind);
		return buf;
	}
}

const char *ol_fatbin_arch_name(const struct ol_fatbin_entry *e, char *buf, size_t len)
{
	const char *suffix = e->flags & OL_FATBIN_FLAG_ARCH_SPECIFIC ? "a"
			     : e->flags & OL_FATBIN_FLAG_FAMILY ? "f" : "";

	snprintf(buf, len, "%s_%u%s", e->kind == OL_FATBIN_PTX ? "compute" : "sm", e->arch, suffix);
	return buf;
}

const char *ol_fatbin_compression(const struct ol_fatbin_entry *e)
{
	return (e->flags & OL_FATBIN_FLAG_ZSTD) ? "zstd" : (e->flags & OL_FATBIN_FLAG_LZ) ? "lz" : NULL;
}
