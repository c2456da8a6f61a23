#include "format/offload_binary.h"

#include <stdlib.h>
#include <string.h>

#include "common/le.h"
#include "common/pieces.h"
#include "format/strtab.h"

unsigned ob_release_version(unsigned release)
{
	return release >= 24 ? 3 : release == 23 ? 2 : 1;
}

bool ob_is_offload_binary(const uint8_t *p, size_t len)
{
	return len >= 4 && memcmp(p, OB_MAGIC_BYTES, 4) == 0;
}

/* ---- decoding ---- */

/* The bytes being decoded and where to report faults. */
struct view {
	const uint8_t *p;
	uint64_t n;
	struct ol_diag *d;
};

static enum ol_err need(const struct view *v, uint64_t off, uint64_t width,
			const char *field)
{
	if (off > v->n || width > v->n - off)
		return ol_diag_at(v->d, OL_E_TRUNCATED, off, field,
				  "the binary ends after %llu bytes",
				  (unsigned long long)v->n);
	return OL_OK;
}

static enum ol_err rd16(const struct view *v, uint64_t off, const char *field,
			uint16_t *out)
{
	if (need(v, off, 2, field))
		return v->d->code;
	*out = ol_le16(v->p + off);
	return OL_OK;
}

static enum ol_err rd32(const struct view *v, uint64_t off, const char *field,
			uint32_t *out)
{
	if (need(v, off, 4, field))
		return v->d->code;
	*out = ol_le32(v->p + off);
	return OL_OK;
}

static enum ol_err rd64(const struct view *v, uint64_t off, const char *field,
			uint64_t *out)
{
	if (need(v, off, 8, field))
		return v->d->code;
	*out = ol_le64(v->p + off);
	return OL_OK;
}

/* A NUL-terminated string at off, which must lie inside the binary. */
static enum ol_err check_cstr(const struct view *v, uint64_t off,
			      uint64_t field_at, const char *field)
{
	if (off >= v->n)
		return ol_diag_at(v->d, OL_E_OUT_OF_BOUNDS, field_at, field,
				  "string offset %llu is past the end of the %llu-byte binary",
				  (unsigned long long)off, (unsigned long long)v->n);
	if (!memchr(v->p + off, 0, v->n - off))
		return ol_diag_at(v->d, OL_E_UNTERMINATED, field_at, field,
				  "the string at offset %llu has no NUL before the end of the binary",
				  (unsigned long long)off);
	return OL_OK;
}

struct raw_string {
	uint64_t key, value, value_size;
	bool copy; /* v2+ value not followed by a NUL: copy it out */
};

/* Validate the string entries of one entry and fill e->strings. */
static enum ol_err decode_strings(const struct view *v, uint32_t version,
				  uint64_t soff, struct ob_entry *e)
{
	uint64_t se = version == 1 ? OB_STRING_ENTRY_SIZE_V1 : OB_STRING_ENTRY_SIZE_V2;
	struct raw_string *raw;
	size_t extra = 0;
	char *pool;

	if (e->nstrings == 0)
		return OL_OK;
	raw = calloc(e->nstrings, sizeof(*raw));
	if (!raw)
		return ol_diag_set(v->d, OL_E_NOMEM, NULL, NULL);
	for (size_t j = 0; j < e->nstrings; j++) {
		uint64_t at = soff + se * j;
		struct raw_string *r = &raw[j];

		r->key = ol_le64(v->p + at);
		r->value = ol_le64(v->p + at + 8);
		if (check_cstr(v, r->key, at, "KeyOffset"))
			goto fail;
		if (version == 1) {
			if (check_cstr(v, r->value, at + 8, "ValueOffset"))
				goto fail;
			r->value_size = strlen((const char *)v->p + r->value);
			continue;
		}
		r->value_size = ol_le64(v->p + at + 16);
		if (r->value > v->n || r->value_size > v->n - r->value) {
			ol_diag_at(v->d, OL_E_OUT_OF_BOUNDS, at + 16, "ValueSize",
				   "value of %llu bytes at offset %llu runs past the end of the %llu-byte binary",
				   (unsigned long long)r->value_size,
				   (unsigned long long)r->value,
				   (unsigned long long)v->n);
			goto fail;
		}
		r->copy = r->value_size == v->n - r->value ||
			  v->p[r->value + r->value_size] != 0 ||
			  memchr(v->p + r->value, 0, r->value_size);
		if (r->copy)
			extra += r->value_size + 1;
	}
	/* One allocation: the table, then copies of values that need a NUL. */
	e->strings = malloc(e->nstrings * sizeof(*e->strings) + extra);
	if (!e->strings) {
		ol_diag_set(v->d, OL_E_NOMEM, NULL, NULL);
		goto fail;
	}
	pool = (char *)(e->strings + e->nstrings);
	for (size_t j = 0; j < e->nstrings; j++) {
		struct ob_string *s = &e->strings[j];

		s->key = (const char *)v->p + raw[j].key;
		s->value = (const char *)v->p + raw[j].value;
		s->value_len = raw[j].value_size;
		if (raw[j].copy) {
			memcpy(pool, s->value, s->value_len);
			pool[s->value_len] = '\0';
			s->value = pool;
			pool += s->value_len + 1;
		}
	}
	free(raw);
	return OL_OK;
fail:
	free(raw);
	return v->d->code;
}

static enum ol_err decode_entry(const struct view *v, uint32_t version,
				uint64_t at, struct ob_entry *e)
{
	uint64_t se = version == 1 ? OB_STRING_ENTRY_SIZE_V1 : OB_STRING_ENTRY_SIZE_V2;
	uint64_t soff, nstr;

	if (rd16(v, at, "ImageKind", &e->image_kind) ||
	    rd16(v, at + 2, "OffloadKind", &e->offload_kind_raw) ||
	    rd32(v, at + 4, "Flags", &e->flags) ||
	    rd64(v, at + 8, "StringOffset", &soff) ||
	    rd64(v, at + 16, "NumStrings", &nstr) ||
	    rd64(v, at + 24, "ImageOffset", &e->image_offset) ||
	    rd64(v, at + 32, "ImageSize", &e->image_size))
		return v->d->code;
	e->offload_kind = ob_offload_kind_from_raw(e->offload_kind_raw);
	if (soff > v->n)
		return ol_diag_at(v->d, OL_E_OUT_OF_BOUNDS, at + 8, "StringOffset",
				  "offset %llu is past the end of the %llu-byte binary",
				  (unsigned long long)soff, (unsigned long long)v->n);
	if (nstr > (v->n - soff) / se)
		return ol_diag_at(v->d, OL_E_OUT_OF_BOUNDS, at + 16, "NumStrings",
				  "%llu string entries at offset %llu run past the end of the %llu-byte binary",
				  (unsigned long long)nstr, (unsigned long long)soff,
				  (unsigned long long)v->n);
	if (e->image_offset > v->n)
		return ol_diag_at(v->d, OL_E_OUT_OF_BOUNDS, at + 24, "ImageOffset",
				  "offset %llu is past the end of the %llu-byte binary",
				  (unsigned long long)e->image_offset,
				  (unsigned long long)v->n);
	if (e->image_size > v->n - e->image_offset)
		return ol_diag_at(v->d, OL_E_OUT_OF_BOUNDS, at + 32, "ImageSize",
				  "image of %llu bytes at offset %llu runs past the end of the %llu-byte binary",
				  (unsigned long long)e->image_size,
				  (unsigned long long)e->image_offset,
				  (unsigned long long)v->n);
	e->image = v->p + e->image_offset;
	e->nstrings = (size_t)nstr;
	return decode_strings(v, version, soff, e);
}

struct header {
	uint32_t version;
	uint64_t size, entries_offset, count_or_size, inflated;
	uint64_t header_size;
};

static enum ol_err decode_header(const struct view *v, struct header *h)
{
	const uint8_t *p = v->p;

	if (v->n < 4)
		return ol_diag_at(v->d, OL_E_TRUNCATED, 0, "Magic",
				  "only %llu bytes; an offload binary starts with a 32-byte header",
				  (unsigned long long)v->n);
	if (memcmp(p, OB_MAGIC_BYTES, 4) != 0)
		return ol_diag_at(v->d, OL_E_BAD_MAGIC, 0, "Magic",
				  "found %02x %02x %02x %02x, expected 10 ff 10 ad",
				  p[0], p[1], p[2], p[3]);
	if (rd32(v, 4, "Version", &h->version))
		return v->d->code;
	if (h->version < 1 || h->version > 3)
		return ol_diag_at(v->d, OL_E_BAD_VERSION, 4, "Version",
				  "version %u; offlink reads versions 1 to 3",
				  h->version);
	h->header_size = h->version == 3 ? OB_HEADER_SIZE_V3 : OB_HEADER_SIZE_V1;
	if (rd64(v, 8, "Size", &h->size) ||
	    rd64(v, 16, h->version == 1 ? "EntryOffset" : "EntriesOffset",
		 &h->entries_offset) ||
	    rd64(v, 24, h->version == 1 ? "EntrySize" : "EntriesCount",
		 &h->count_or_size))
		return v->d->code;
	h->inflated = 0;
	if (h->version == 3 && rd64(v, 32, "InflatedSize", &h->inflated))
		return v->d->code;
	if (h->size < h->header_size)
		return ol_diag_at(v->d, OL_E_BAD_FIELD, 8, "Size",
				  "declares %llu bytes, less than its %llu-byte header",
				  (unsigned long long)h->size,
				  (unsigned long long)h->header_size);
	if (h->size > v->n)
		return ol_diag_at(v->d, OL_E_TRUNCATED, 8, "Size",
				  "declares %llu bytes but only %llu remain",
				  (unsigned long long)h->size,
				  (unsigned long long)v->n);
	return OL_OK;
}

/* Check the entry table of an uncompressed binary; returns its count. */
static enum ol_err check_entry_table(const struct view *v, const struct header *h,
				     size_t *count)
{
	uint64_t eo = h->entries_offset;

	if (h->version == 1) {
		if (eo < h->header_size)
			return ol_diag_at(v->d, OL_E_BAD_FIELD, 16, "EntryOffset",
					  "offset %llu points into the header",
					  (unsigned long long)eo);
		if (eo > v->n || OB_ENTRY_SIZE > v->n - eo)
			return ol_diag_at(v->d, OL_E_OUT_OF_BOUNDS, 16, "EntryOffset",
					  "a 40-byte entry at offset %llu does not fit in the %llu-byte binary",
					  (unsigned long long)eo, (unsigned long long)v->n);
		if (h->count_or_size != OB_ENTRY_SIZE)
			return ol_diag_at(v->d, OL_E_BAD_FIELD, 24, "EntrySize",
					  "is %llu; version 1 entries are 40 bytes",
					  (unsigned long long)h->count_or_size);
		*count = 1;
		return OL_OK;
	}
	if (h->count_or_size == 0)
		return ol_diag_at(v->d, OL_E_NO_ENTRIES, 24, "EntriesCount", NULL);
	if (eo < h->header_size)
		return ol_diag_at(v->d, OL_E_BAD_FIELD, 16, "EntriesOffset",
				  "offset %llu points into the header",
				  (unsigned long long)eo);
	if (eo > v->n || h->count_or_size > (v->n - eo) / OB_ENTRY_SIZE)
		return ol_diag_at(v->d, OL_E_OUT_OF_BOUNDS, 24, "EntriesCount",
				  "%llu entries of 40 bytes at offset %llu do not fit in the %llu-byte binary",
				  (unsigned long long)h->count_or_size,
				  (unsigned long long)eo, (unsigned long long)v->n);
	*count = (size_t)h->count_or_size;
	return OL_OK;
}

/* Version 3 with InflatedSize: inflate header + body into out->owned. */
static enum ol_err inflate_body(const struct view *v, const struct header *h,
				struct ob_binary *out)
{
	struct ol_buf ub = { 0 };
	const uint8_t *body = v->p + OB_HEADER_SIZE_V3;
	size_t blen = (size_t)(h->size - OB_HEADER_SIZE_V3);

	if (h->inflated < OB_HEADER_SIZE_V3)
		return ol_diag_at(v->d, OL_E_BAD_FIELD, 32, "InflatedSize",
				  "%llu is smaller than the 40-byte header",
				  (unsigned long long)h->inflated);
	if (h->inflated - OB_HEADER_SIZE_V3 > ol_inflate_max(blen))
		return ol_diag_at(v->d, OL_E_BAD_FIELD, 32, "InflatedSize",
				  "%llu bytes from %zu compressed: more than %u times as much, "
				  "plus %u bytes", (unsigned long long)h->inflated, blen,
				  OL_INFLATE_RATIO, OL_INFLATE_SLACK);
	out->compression = ol_compression_sniff(body, blen);
	if (ol_buf_append(&ub, v->p, OB_HEADER_SIZE_V3))
		return ol_diag_set(v->d, OL_E_NOMEM, NULL, NULL);
	if (ol_decompress(out->compression, body, blen,
			  h->inflated - OB_HEADER_SIZE_V3, &ub, v->d)) {
		ol_buf_free(&ub);
		v->d->has_offset = true;
		v->d->offset = OB_HEADER_SIZE_V3;
		v->d->field = "compressed payload";
		return v->d->code;
	}
	out->owned = ub.data;
	out->bytes = ub.data;
	out->nbytes = h->inflated;
	return OL_OK;
}

enum ol_err ob_decode(const uint8_t *buf, size_t len, struct ob_binary *out,
		      struct ol_diag *d)
{
	struct view v = { buf, len, d };
	struct header h;
	size_t count = 0;

	memset(out, 0, sizeof(*out));
	if (decode_header(&v, &h))
		return d->code;
	out->version = h.version;
	out->size = h.size;
	out->inflated_size = h.inflated;
	out->bytes = buf;
	out->nbytes = h.size;
	if (h.inflated && inflate_body(&v, &h, out))
		return d->code;
	v.p = out->bytes;
	v.n = out->nbytes;
	if (check_entry_table(&v, &h, &count))
		goto fail;
	out->entries = calloc(count, sizeof(*out->entries));
	if (!out->entries) {
		ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		goto fail;
	}
	out->nentries = count;
	for (size_t i = 0; i < count; i++)
		if (decode_entry(&v, h.version,
				 h.entries_offset + (uint64_t)OB_ENTRY_SIZE * i,
				 &out->entries[i]))
			goto fail;
	return OL_OK;
fail:
	ob_binary_free(out);
	return d->code;
}

void ob_binary_free(struct ob_binary *b)
{
	for (size_t i = 0; i < b->nentries; i++)
		free(b->entries[i].strings);
	free(b->entries);
	free(b->owned);
	memset(b, 0, sizeof(*b));
}

const char *ob_entry_get(const struct ob_entry *e, const char *key)
{
	for (size_t i = 0; i < e->nstrings; i++)
		if (strcmp(e->strings[i].key, key) == 0)
			return e->strings[i].value;
	return NULL;
}

void ob_walk_init(struct ob_walk *w, const uint8_t *buf, size_t len)
{
	w->buf = buf;
	w->len = len;
	w->off = 0;
	w->count = 0;
}

enum ol_err ob_walk_next(struct ob_walk *w, struct ob_binary *out, bool *have,
			 struct ol_diag *d)
{
	size_t rest = w->len - w->off, next;
	enum ol_err rc;

	*have = false;
	if (w->off >= w->len)
		return OL_OK;
	rc = ob_decode(w->buf + w->off, rest, out, d);
	if (rc) {
		if (w->count > 0 && (rc == OL_E_BAD_MAGIC || rest < 4)) {
			return ol_diag_at(d, OL_E_TRAILING, w->off, NULL,
					  "%zu bytes after offload binary #%zu are not another binary",
					  rest, w->count);
		}
		ol_diag_locate(d, NULL, NULL, w->off);
		return rc;
	}
	/* Skip the zero padding up to the next 8-byte boundary. */
	next = w->off + (size_t)out->size;
	while (next < w->len && next % 8) {
		if (w->buf[next] != 0) {
			ob_binary_free(out);
			return ol_diag_at(d, OL_E_TRAILING, next, NULL,
					  "non-zero padding after offload binary #%zu",
					  w->count + 1);
		}
		next++;
	}
	w->off = next;
	w->count++;
	*have = true;
	return OL_OK;
}

/* ---- encoding ---- */

/* Lay out the keys and values of n images in one string table; offsets of
 * image i's j-th pair are at strs[2*(first_i + j)] and [+1]. */
static enum ol_err build_strings(const struct ob_image_desc *imgs, size_t n,
				 struct ob_strtab_str **out_strs,
				 struct ol_buf *tab)
{
	size_t total = 0, k = 0;
	struct ob_strtab_str *strs;

	for (size_t i = 0; i < n; i++)
		total += imgs[i].nstrings;
	strs = calloc(total ? 2 * total : 1, sizeof(*strs));
	if (!strs)
		return OL_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < imgs[i].nstrings; j++) {
			const struct ob_kv *kv = &imgs[i].strings[j];

			strs[k++] = (struct ob_strtab_str){ kv->key, strlen(kv->key), 0 };
			strs[k++] = (struct ob_strtab_str){ kv->value, strlen(kv->value), 0 };
		}
	}
	if (ob_strtab_build(strs, k, tab)) {
		free(strs);
		return OL_E_NOMEM;
	}
	*out_strs = strs;
	return OL_OK;
}

static enum ol_err put_entry(struct ol_buf *out, const struct ob_image_desc *img,
			     uint64_t string_off, uint64_t image_off)
{
	enum ol_err rc = OL_OK;

	rc |= ol_buf_le16(out, img->image_kind);
	rc |= ol_buf_le16(out, img->offload_kind_raw);
	rc |= ol_buf_le32(out, img->flags);
	rc |= ol_buf_le64(out, string_off);
	rc |= ol_buf_le64(out, img->nstrings);
	rc |= ol_buf_le64(out, image_off);
	rc |= ol_buf_le64(out, img->image_size);
	return rc ? OL_E_NOMEM : OL_OK;
}

static enum ol_err put_header(struct ol_buf *out, uint32_t version, uint64_t size,
			      uint64_t entries_offset, uint64_t word3)
{
	enum ol_err rc = OL_OK;

	rc |= ol_buf_append(out, OB_MAGIC_BYTES, 4);
	rc |= ol_buf_le32(out, version);
	rc |= ol_buf_le64(out, size);
	rc |= ol_buf_le64(out, entries_offset);
	rc |= ol_buf_le64(out, word3);
	return rc ? OL_E_NOMEM : OL_OK;
}

/* The bytes of a version 1 binary before its image, laid out as LLVM
 * 19's packager does. */
static enum ol_err v1_head(const struct ob_image_desc *img, struct ol_buf *out,
			   uint64_t *image_offset, uint64_t *tail_pad)
{
	struct ob_strtab_str *strs = NULL;
	struct ol_buf tab = { 0 };
	uint64_t string_off = OB_HEADER_SIZE_V1 + OB_ENTRY_SIZE;
	uint64_t strtab_off = string_off + OB_STRING_ENTRY_SIZE_V1 * img->nstrings;
	uint64_t data_size, total;
	enum ol_err rc = OL_OK;

	if (build_strings(img, 1, &strs, &tab))
		return OL_E_NOMEM;
	data_size = ol_align_up(strtab_off + tab.len, 8);
	total = ol_align_up(data_size + img->image_size, 8);
	rc |= put_header(out, 1, total, OB_HEADER_SIZE_V1, OB_ENTRY_SIZE);
	rc |= put_entry(out, img, string_off, data_size);
	for (size_t j = 0; j < img->nstrings; j++) {
		rc |= ol_buf_le64(out, strtab_off + strs[2 * j].offset);
		rc |= ol_buf_le64(out, strtab_off + strs[2 * j + 1].offset);
	}
	rc |= ol_buf_append(out, tab.data, tab.len);
	rc |= ol_buf_zeros(out, (size_t)(data_size - strtab_off - tab.len));
	free(strs);
	ol_buf_free(&tab);
	*image_offset = data_size;
	*tail_pad = total - data_size - img->image_size;
	return rc ? OL_E_NOMEM : OL_OK;
}

/* The encoders write their own bytes to pc->own and refer to the images
 * where they lie (common/pieces.h). */
static enum ol_err encode_v1(const struct ob_image_desc *imgs, size_t n,
			     struct ol_pieces *pc)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t image_offset, pad;

		if (v1_head(&imgs[i], &pc->own, &image_offset, &pad) ||
		    ol_pieces_ref(pc, imgs[i].image, (size_t)imgs[i].image_size) ||
		    ol_buf_zeros(&pc->own, (size_t)pad))
			return OL_E_NOMEM;
	}
	return OL_OK;
}

/* Versions 2 and 3: one binary, n entries, one shared string table, the
 * images back to back after the first 8-aligned one.  Appends the bytes
 * before the first image to out; *image_off is where it starts, *tail_pad
 * how many zero bytes follow the last. */
static enum ol_err multi_head(const struct ob_image_desc *imgs, size_t n, unsigned version,
			      struct ol_buf *out, uint64_t *image_off, uint64_t *tail_pad)
{
	uint64_t hsize = version == 3 ? OB_HEADER_SIZE_V3 : OB_HEADER_SIZE_V1;
	uint64_t se_off = hsize + OB_ENTRY_SIZE * n, nstr = 0, strtab_off;
	uint64_t images = 0, k = 0, total;
	struct ob_strtab_str *strs = NULL;
	struct ol_buf tab = { 0 };
	enum ol_err rc = OL_OK;

	for (size_t i = 0; i < n; i++) {
		nstr += imgs[i].nstrings;
		images += imgs[i].image_size;
	}
	if (build_strings(imgs, n, &strs, &tab))
		return OL_E_NOMEM;
	strtab_off = se_off + OB_STRING_ENTRY_SIZE_V2 * nstr;
	*image_off = ol_align_up(strtab_off + tab.len, 8);
	total = ol_align_up(*image_off + images, 8);
	*tail_pad = total - *image_off - images;
	rc |= put_header(out, version, total, hsize, n);
	if (version == 3)
		rc |= ol_buf_le64(out, 0);
	for (size_t i = 0, s = 0, img = *image_off; i < n; i++) {
		rc |= put_entry(out, &imgs[i], se_off + OB_STRING_ENTRY_SIZE_V2 * s, img);
		s += imgs[i].nstrings;
		img += imgs[i].image_size;
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < imgs[i].nstrings; j++, k += 2) {
			rc |= ol_buf_le64(out, strtab_off + strs[k].offset);
			rc |= ol_buf_le64(out, strtab_off + strs[k + 1].offset);
			rc |= ol_buf_le64(out, strs[k + 1].len);
		}
	}
	rc |= ol_buf_append(out, tab.data, tab.len);
	rc |= ol_buf_zeros(out, (size_t)(*image_off - strtab_off - tab.len));
	free(strs);
	ol_buf_free(&tab);
	return rc ? OL_E_NOMEM : OL_OK;
}

static enum ol_err encode_multi(const struct ob_image_desc *imgs, size_t n,
				unsigned version, struct ol_pieces *pc)
{
	uint64_t image_off, pad;
	enum ol_err rc = multi_head(imgs, n, version, &pc->own, &image_off, &pad);

	for (size_t i = 0; i < n; i++)
		rc |= ol_pieces_ref(pc, imgs[i].image, (size_t)imgs[i].image_size);
	rc |= ol_buf_zeros(&pc->own, (size_t)pad);
	return rc ? OL_E_NOMEM : OL_OK;
}

enum ol_err ob_encode_head(const struct ob_image_desc *img, unsigned version,
			   struct ol_buf *out, uint64_t *image_offset, uint64_t *tail_pad)
{
	return version < 2 ? v1_head(img, out, image_offset, tail_pad)
			   : multi_head(img, 1, version, out, image_offset, tail_pad);
}

/* Replace the uncompressed version 3 binary at out[base..] by its
 * compressed form: header (Size = 40 + payload, InflatedSize = the
 * uncompressed total), payload, zero pad to 8 not counted in Size. */
static enum ol_err compress_v3(struct ol_buf *out, size_t base,
			       const struct ob_encode_opts *o, struct ol_diag *d)
{
	uint64_t total = out->len - base;
	struct ol_buf z = { 0 };
	uint64_t size;

	if (ol_compress(o->method, o->level, 0, out->data + base + OB_HEADER_SIZE_V3,
			(size_t)(total - OB_HEADER_SIZE_V3), &z, d))
		return d->code;
	size = OB_HEADER_SIZE_V3 + z.len;
	ol_put_le64(out->data + base + 8, size);
	ol_put_le64(out->data + base + 32, total);
	out->len = base + OB_HEADER_SIZE_V3;
	if (ol_buf_append(out, z.data, z.len) ||
	    ol_buf_zeros(out, (size_t)(ol_align_up(size, 8) - size))) {
		ol_buf_free(&z);
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	ol_buf_free(&z);
	return OL_OK;
}

enum ol_err ob_encode_pieces(const struct ob_image_desc *imgs, size_t n,
			     const struct ob_encode_opts *opts, struct ol_pieces *pc,
			     struct ol_diag *d)
{
	unsigned version = opts && opts->version ? opts->version : 1;

	if (version > 3)
		return ol_diag_set(d, OL_E_BAD_VERSION, NULL,
				   "cannot write version %u", version);
	if (opts && opts->compress) {
		/* compressed: the whole binary passes through the compressor */
		struct ol_buf out = { 0 };
		enum ol_err rc = ob_encode(imgs, n, opts, &out, d);

		if (!rc && (ol_buf_append(&pc->own, out.data, out.len) || ol_pieces_finish(pc)))
			rc = ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		ol_buf_free(&out);
		return rc;
	}
	if (version != 1 && n == 0)
		return ol_diag_set(d, OL_E_NO_ENTRIES, NULL,
				   "a version %u binary needs at least one image", version);
	if ((version == 1 ? encode_v1(imgs, n, pc) : encode_multi(imgs, n, version, pc)) ||
	    ol_pieces_finish(pc))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	return OL_OK;
}

enum ol_err ob_encode(const struct ob_image_desc *imgs, size_t n,
		      const struct ob_encode_opts *opts, struct ol_buf *out,
		      struct ol_diag *d)
{
	unsigned version = opts && opts->version ? opts->version : 1;
	size_t base = out->len;
	struct ol_pieces pc = { 0 };
	enum ol_err rc;

	if (version > 3)
		return ol_diag_set(d, OL_E_BAD_VERSION, NULL,
				   "cannot write version %u", version);
	if (opts && opts->compress && version != 3)
		return ol_diag_set(d, OL_E_USAGE, NULL,
				   "compression needs format version 3");
	if (version != 1 && n == 0)
		return ol_diag_set(d, OL_E_NO_ENTRIES, NULL,
				   "a version %u binary needs at least one image", version);
	rc = version == 1 ? encode_v1(imgs, n, &pc) : encode_multi(imgs, n, version, &pc);
	if (rc || ol_pieces_finish(&pc) || ol_pieces_flatten(&pc, out)) {
		ol_pieces_free(&pc);
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	ol_pieces_free(&pc);
	if (opts && opts->compress)
		return compress_v3(out, base, opts, d);
	return OL_OK;
}
