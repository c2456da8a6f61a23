#include "format/bundle.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/le.h"
#include "common/pieces.h"
#include "common/strmap.h"

static const struct {
	const char *type;
	const char *comment; /* NULL: binary */
} types[] = {
	{ "i", "//" }, { "ii", "//" }, { "cui", "//" }, { "hipi", "//" },
	{ "d", "#" }, { "ll", ";" }, { "s", "#" }, { "bc", NULL },
	{ "o", NULL }, { "a", NULL }, { "gch", NULL }, { "ast", NULL },
};

const char *ol_bundle_text_comment(const char *type)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(type, types[i].type) == 0)
			return types[i].comment;
	return NULL;
}

bool ol_bundle_type_known(const char *type)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(type, types[i].type) == 0)
			return true;
	return false;
}

bool ol_is_binary_bundle(const uint8_t *p, size_t len)
{
	return len >= OL_BUNDLE_MAGIC_LEN &&
	       memcmp(p, OL_BUNDLE_MAGIC, OL_BUNDLE_MAGIC_LEN) == 0;
}

void ol_bundle_free(struct ol_bundle *b)
{
	free(b->entries);
	b->entries = NULL;
	b->n = 0;
}

static enum ol_err read64(const uint8_t *p, size_t len, uint64_t at,
			  const char *field, uint64_t *v, struct ol_diag *d)
{
	if (at > len || 8 > len - at)
		return ol_diag_at(d, OL_E_TRUNCATED, at, field,
				  "the bundle ends after %zu bytes", len);
	*v = ol_le64(p + at);
	return OL_OK;
}

/* One header entry at *at: offset, size, ID. */
static enum ol_err decode_entry(const uint8_t *p, size_t len, uint64_t *at,
				struct ol_bundle_entry *e, struct ol_diag *d)
{
	uint64_t off, size, idlen, where = *at;

	if (read64(p, len, where, "Offset", &off, d) ||
	    read64(p, len, where + 8, "Size", &size, d) ||
	    read64(p, len, where + 16, "IDLength", &idlen, d))
		return d->code;
	where += 24;
	if (idlen == 0 || idlen > len - where)
		return ol_diag_at(d, OL_E_OUT_OF_BOUNDS, *at + 16, "IDLength",
				  "an ID of %llu bytes does not fit",
				  (unsigned long long)idlen);
	if (off > len || size > len - off)
		return ol_diag_at(d, OL_E_OUT_OF_BOUNDS, *at, "Offset",
				  "%llu bytes at offset %llu run past the end of the %zu-byte bundle",
				  (unsigned long long)size, (unsigned long long)off, len);
	e->id = (const char *)p + where;
	e->id_len = (size_t)idlen;
	e->data = p + off;
	e->size = size;
	*at = where + idlen;
	return OL_OK;
}

/* No ID twice: a hash set, so 160k entries take milliseconds, not the
 * minute pairwise comparison took. */
static enum ol_err check_unique_ids(const struct ol_bundle *b, struct ol_diag *d)
{
	struct ol_strmap seen = { 0 };
	enum ol_err rc = OL_OK;

	for (size_t i = 0; i < b->n && !rc; i++) {
		const struct ol_bundle_entry *e = &b->entries[i];
		uintptr_t *v = ol_strmap_put(&seen, e->id, e->id_len);

		if (!v)
			rc = ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		else if (*v)
			rc = ol_diag_set(d, OL_E_BAD_BUNDLE, "ID", "entry '%.*s' appears twice",
					 (int)e->id_len, e->id);
		else
			*v = 1;
	}
	ol_strmap_free(&seen);
	return rc;
}

enum ol_err ol_bundle_decode_binary(const uint8_t *p, size_t len,
				    struct ol_bundle *out, struct ol_diag *d)
{
	uint64_t count, at = OL_BUNDLE_MAGIC_LEN + 8;

	memset(out, 0, sizeof(*out));
	if (!ol_is_binary_bundle(p, len))
		return ol_diag_at(d, OL_E_BAD_MAGIC, 0, "Magic",
				  "not an offload bundle");
	if (read64(p, len, OL_BUNDLE_MAGIC_LEN, "NumberOfBundles", &count, d))
		return d->code;
	if (count == 0)
		return ol_diag_at(d, OL_E_NO_ENTRIES, OL_BUNDLE_MAGIC_LEN,
				  "NumberOfBundles", NULL);
	/* Only a bound on what we allocate: a truncated header is reported
	 * at the field where the data ends. */
	if (count > len)
		return ol_diag_at(d, OL_E_OUT_OF_BOUNDS, OL_BUNDLE_MAGIC_LEN,
				  "NumberOfBundles",
				  "declares %llu entries, more than the %zu-byte bundle can hold",
				  (unsigned long long)count, len);
	out->entries = calloc((size_t)count, sizeof(*out->entries));
	if (!out->entries)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	for (uint64_t i = 0; i < count; i++) {
		if (decode_entry(p, len, &at, &out->entries[i], d)) {
			ol_bundle_free(out);
			return d->code;
		}
		out->n++;
	}
	if (check_unique_ids(out, d)) {
		ol_bundle_free(out);
		return d->code;
	}
	return OL_OK;
}

enum ol_err ol_bundle_binary_extent(const uint8_t *p, size_t len, uint64_t *extent,
				    struct ol_diag *d)
{
	struct ol_bundle b;
	uint64_t header = OL_BUNDLE_MAGIC_LEN + 8, data = 0;

	if (ol_bundle_decode_binary(p, len, &b, d))
		return d->code;
	for (size_t i = 0; i < b.n; i++) {
		uint64_t last = (uint64_t)(b.entries[i].data - p) + b.entries[i].size;

		header += 24 + b.entries[i].id_len;
		if (last > data)
			data = last;
	}
	ol_bundle_free(&b);
	/* (the header's end, after every entry's ID, may lie past the data) */
	*extent = header > data ? header : data;
	return OL_OK;
}

enum ol_err ol_bundle_encode_binary(const struct ol_bundle_entry *e, size_t n,
				    uint64_t align, struct ol_pieces *pc,
				    struct ol_diag *d)
{
	struct ol_buf *out = &pc->own;
	uint64_t end = OL_BUNDLE_MAGIC_LEN + 8, at;
	enum ol_err rc = OL_OK;

	if (align == 0 || (align & (align - 1)))
		return ol_diag_set(d, OL_E_USAGE, NULL,
				   "bundle alignment %llu is not a power of two",
				   (unsigned long long)align);
	for (size_t i = 0; i < n; i++)
		end += 24 + e[i].id_len;
	rc |= ol_buf_append(out, OL_BUNDLE_MAGIC, OL_BUNDLE_MAGIC_LEN);
	rc |= ol_buf_le64(out, n);
	for (size_t i = 0; i < n; i++) {
		end = ol_align_up(end, align);
		rc |= ol_buf_le64(out, end);
		rc |= ol_buf_le64(out, e[i].size);
		rc |= ol_buf_le64(out, e[i].id_len);
		rc |= ol_buf_append(out, e[i].id, e[i].id_len);
		end += e[i].size;
	}
	at = ol_pieces_len(pc) + (out->len - pc->open);
	for (size_t i = 0; i < n && !rc; i++) {
		uint64_t want = ol_align_up(at, align);

		rc |= ol_buf_zeros(out, (size_t)(want - at));
		rc |= ol_pieces_ref(pc, e[i].data, (size_t)e[i].size);
		at = want + e[i].size;
	}
	rc |= ol_pieces_finish(pc);
	return rc ? ol_diag_set(d, OL_E_NOMEM, NULL, NULL) : OL_OK;
}

static const char start_tag[] = " __CLANG_OFFLOAD_BUNDLE____START__ ";
static const char end_tag[] = " __CLANG_OFFLOAD_BUNDLE____END__ ";

enum ol_err ol_bundle_encode_text(const struct ol_bundle_entry *e, size_t n,
				  const char *comment, struct ol_pieces *pc)
{
	enum ol_err rc = OL_OK;

	for (size_t i = 0; i < n; i++) {
		rc |= ol_buf_printf(&pc->own, "\n%s%s%.*s\n", comment, start_tag,
				    (int)e[i].id_len, e[i].id);
		rc |= ol_pieces_ref(pc, e[i].data, (size_t)e[i].size);
		rc |= ol_buf_printf(&pc->own, "\n%s%s%.*s\n", comment, end_tag,
				    (int)e[i].id_len, e[i].id);
	}
	rc |= ol_pieces_finish(pc);
	return rc ? OL_E_NOMEM : OL_OK;
}

/* Find "\n<comment><tag>" at or after from; NULL if absent. */
static const uint8_t *find_marker(const uint8_t *p, size_t len, size_t from,
				  const char *comment, const char *tag)
{
	size_t cl = strlen(comment), tl = strlen(tag);

	for (const uint8_t *q = p + from;
	     (q = memchr(q, '\n', len - (size_t)(q - p))) != NULL; q++) {
		size_t rest = len - (size_t)(q - p) - 1;

		if (rest >= cl + tl && memcmp(q + 1, comment, cl) == 0 &&
		    memcmp(q + 1 + cl, tag, tl) == 0)
			return q;
		if (q + 1 >= p + len)
			break;
	}
	return NULL;
}

static enum ol_err add_text_entry(struct ol_bundle *out, size_t *cap,
				  const struct ol_bundle_entry *e, struct ol_diag *d)
{
	struct ol_bundle_entry *n = ol_grow(out->entries, out->n, cap, sizeof(*n), 8);

	if (!n)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	out->entries = n;
	out->entries[out->n++] = *e;
	return OL_OK;
}

enum ol_err ol_bundle_decode_text(const uint8_t *p, size_t len,
				  const char *comment, struct ol_bundle *out,
				  struct ol_diag *d)
{
	size_t cl = strlen(comment), cap = 0, from = 0;
	const uint8_t *start;

	memset(out, 0, sizeof(*out));
	while ((start = find_marker(p, len, from, comment, start_tag)) != NULL) {
		const uint8_t *id = start + 1 + cl + strlen(start_tag);
		const uint8_t *eol = memchr(id, '\n', len - (size_t)(id - p));
		const uint8_t *end;
		struct ol_bundle_entry e;

		if (!eol) {
			ol_diag_at(d, OL_E_BAD_BUNDLE, (uint64_t)(start - p), "START",
				   "start marker without an end of line");
			goto fail;
		}
		end = find_marker(p, len, (size_t)(eol - p), comment, end_tag);
		/* The content runs to the newline that begins the end marker;
		 * a bundle with empty content has that newline right here. */
		if (!end) {
			ol_diag_at(d, OL_E_BAD_BUNDLE, (uint64_t)(start - p), "END",
				   "no end marker for '%.*s'", (int)(eol - id), id);
			goto fail;
		}
		e = (struct ol_bundle_entry){ (const char *)id, (size_t)(eol - id),
					      eol + 1 > end ? end : eol + 1, 0 };
		e.size = (uint64_t)(end - e.data);
		if (add_text_entry(out, &cap, &e, d))
			goto fail;
		from = (size_t)(end - p) + 1;
	}
	return OL_OK; /* no markers at all: a text file with no bundles */
fail:
	ol_bundle_free(out);
	return d->code;
}
