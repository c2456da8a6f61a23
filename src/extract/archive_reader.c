#include "extract/archive_reader.h"

#include <archive.h>
#include <archive_entry.h>
#include <string.h>

#include "common/le.h"

bool ol_is_archive(const uint8_t *p, size_t len)
{
	return len >= 8 && (memcmp(p, "!<arch>\n", 8) == 0 ||
			    memcmp(p, "!<thin>\n", 8) == 0);
}

static bool is_pseudo(const char *name)
{
	return strcmp(name, "/") == 0 || strcmp(name, "//") == 0 ||
	       strcmp(name, "/SYM64/") == 0 ||
	       strncmp(name, "__.SYMDEF", 9) == 0;
}

/* One checking point for libarchive results. */
#define AR_CHECK(a, call, what, d)                                          \
	do {                                                                 \
		int ar_rc_ = (call);                                         \
		if (ar_rc_ < ARCHIVE_WARN)                                   \
			return archive_fail((a), (what), (d));               \
	} while (0)

static enum ol_err archive_fail(struct archive *a, const char *what,
				struct ol_diag *d)
{
	const char *msg = archive_error_string(a);
	la_int64_t pos = archive_read_header_position(a);

	ol_diag_set(d, OL_E_BAD_ARCHIVE, NULL, "%s: %s", what,
		    msg ? msg : "unknown libarchive error");
	if (pos >= 0) {
		d->has_offset = true;
		d->offset = (uint64_t)pos;
	}
	return d->code;
}

static enum ol_err open_archive(struct archive **out, uint8_t *p, size_t len,
				struct ol_diag *d)
{
	struct archive *a;

	if (len >= 8 && memcmp(p, "!<thin>\n", 8) == 0)
		return ol_diag_set(d, OL_E_UNSUPPORTED, NULL,
				   "thin archives are not supported");
	a = archive_read_new();
	if (!a)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if (archive_read_support_format_ar(a) != ARCHIVE_OK ||
	    archive_read_open_memory(a, p, len) != ARCHIVE_OK) {
		archive_fail(a, "cannot read archive", d);
		archive_read_free(a);
		return d->code;
	}
	*out = a;
	return OL_OK;
}

/* The member's bytes as a slice of the mapping: libarchive reading from
 * memory returns pointers into it, which we verify rather than assume. */
static enum ol_err member_slice(struct archive *a, struct archive_entry *e,
				uint8_t *p, size_t len, struct ol_ar_member *m,
				struct ol_diag *d)
{
	const void *block = NULL;
	size_t bsize = 0;
	la_int64_t boff = 0;
	la_int64_t size = archive_entry_size(e);
	int rc;

	if (size < 0 || (uint64_t)size > len)
		return ol_diag_set(d, OL_E_BAD_ARCHIVE, "ar_size",
				   "member %s declares %lld bytes",
				   archive_entry_pathname(e), (long long)size);
	m->size = (size_t)size;
	if (size == 0) {
		m->data = p + m->header_offset;
		m->data_offset = m->header_offset;
		return OL_OK;
	}
	rc = archive_read_data_block(a, &block, &bsize, &boff);
	if (rc < ARCHIVE_WARN)
		return archive_fail(a, "cannot read member", d);
	if (rc == ARCHIVE_EOF || bsize != m->size || boff != 0 ||
	    (const uint8_t *)block < p ||
	    (size_t)((const uint8_t *)block - p) > len ||
	    bsize > len - (size_t)((const uint8_t *)block - p))
		return ol_diag_set(d, OL_E_BAD_ARCHIVE, "ar_size",
				   "member %s: %zu of its %zu bytes are present",
				   archive_entry_pathname(e),
				   rc == ARCHIVE_EOF ? (size_t)0 : bsize, m->size);
	m->data = (uint8_t *)p + ((const uint8_t *)block - p);
	m->data_offset = (uint64_t)((const uint8_t *)block - p);
	return OL_OK;
}

static enum ol_err walk(struct archive *a, uint8_t *p, size_t len,
			ol_ar_member_cb cb, void *ctx, bool pseudo_too,
			struct ol_diag *d)
{
	struct archive_entry *e;
	size_t index = 0;
	int rc;

	while ((rc = archive_read_next_header(a, &e)) == ARCHIVE_OK ||
	       rc == ARCHIVE_WARN) {
		struct ol_ar_member m;
		const char *name = archive_entry_pathname(e);

		if (!name)
			return ol_diag_set(d, OL_E_BAD_ARCHIVE, "ar_name",
					   "member without a name");
		if (is_pseudo(name) != pseudo_too)
			continue;
		memset(&m, 0, sizeof(m));
		m.name = name;
		m.header_offset = (uint64_t)archive_read_header_position(a);
		m.index = index++;
		if (member_slice(a, e, p, len, &m, d)) {
			ol_diag_locate(d, NULL, name, 0);
			return d->code;
		}
		if (cb(ctx, &m, d))
			return d->code;
	}
	if (rc != ARCHIVE_EOF)
		return archive_fail(a, "cannot read member header", d);
	return OL_OK;
}

enum ol_err ol_archive_for_each(uint8_t *p, size_t len, ol_ar_member_cb cb,
				void *ctx, struct ol_diag *d)
{
	struct archive *a;
	enum ol_err rc;

	if (open_archive(&a, p, len, d))
		return d->code;
	rc = walk(a, p, len, cb, ctx, false, d);
	archive_read_free(a);
	return rc;
}

struct symidx {
	ol_ar_symbol_cb cb;
	void *ctx;
	bool *has_index;
};

/* GNU: count, then count big-endian offsets (4 or 8 bytes), then names. */
static enum ol_err parse_gnu_index(const struct ol_ar_member *m, unsigned w,
				   struct symidx *s, struct ol_diag *d)
{
	const uint8_t *p = m->data;
	uint64_t count, names;

	if (m->size < w)
		return ol_diag_set(d, OL_E_BAD_ARCHIVE, "symbol index",
				   "index of %zu bytes", m->size);
	count = w == 4 ? ol_be32(p) : ol_be64(p);
	if (count > (m->size - w) / w)
		return ol_diag_set(d, OL_E_BAD_ARCHIVE, "symbol index",
				   "%llu symbols do not fit in %zu bytes",
				   (unsigned long long)count, m->size);
	names = w + count * w;
	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *nul;
		uint64_t off = w == 4 ? ol_be32(p + w + i * w)
				      : ol_be64(p + w + i * w);

		if (names >= m->size ||
		    !(nul = memchr(p + names, 0, m->size - names)))
			return ol_diag_set(d, OL_E_BAD_ARCHIVE, "symbol index",
					   "symbol %llu has no NUL-terminated name",
					   (unsigned long long)i);
		if (s->cb(s->ctx, (const char *)p + names, off, d))
			return d->code;
		names = (uint64_t)(nul - p) + 1;
	}
	return OL_OK;
}

/* BSD: u32 byte size of ranlib array, {u32 strx, u32 off}..., u32 strsize,
 * strings (little-endian on the hosts offlink targets). */
static enum ol_err parse_bsd_index(const struct ol_ar_member *m,
				   struct symidx *s, struct ol_diag *d)
{
	const uint8_t *p = m->data;
	uint64_t rsize, ssize, strs;

	/* Two u32 length words at least; every bound in subtraction form. */
	if (m->size < 8 || (rsize = ol_le32(p)) > m->size - 8 || rsize % 8)
		return ol_diag_set(d, OL_E_BAD_ARCHIVE, "symbol index",
				   "malformed __.SYMDEF");
	ssize = ol_le32(p + 4 + rsize);
	strs = 8 + rsize;
	if (ssize > m->size - strs)
		return ol_diag_set(d, OL_E_BAD_ARCHIVE, "symbol index",
				   "malformed __.SYMDEF string table");
	for (uint64_t i = 0; i < rsize / 8; i++) {
		uint64_t strx = ol_le32(p + 4 + 8 * i);
		uint64_t off = ol_le32(p + 8 + 8 * i);

		if (strx >= ssize || !memchr(p + strs + strx, 0, ssize - strx))
			return ol_diag_set(d, OL_E_BAD_ARCHIVE, "symbol index",
					   "bad name in __.SYMDEF");
		if (s->cb(s->ctx, (const char *)p + strs + strx, off, d))
			return d->code;
	}
	return OL_OK;
}

static enum ol_err on_pseudo(void *ctx, const struct ol_ar_member *m,
			     struct ol_diag *d)
{
	struct symidx *s = ctx;

	if (strcmp(m->name, "/") == 0) {
		*s->has_index = true;
		return parse_gnu_index(m, 4, s, d);
	}
	if (strcmp(m->name, "/SYM64/") == 0) {
		*s->has_index = true;
		return parse_gnu_index(m, 8, s, d);
	}
	if (strncmp(m->name, "__.SYMDEF", 9) == 0) {
		*s->has_index = true;
		return parse_bsd_index(m, s, d);
	}
	return OL_OK;
}

enum ol_err ol_archive_for_each_symbol(uint8_t *p, size_t len,
				       ol_ar_symbol_cb cb, void *ctx,
				       bool *has_index, struct ol_diag *d)
{
	struct symidx s = { cb, ctx, has_index };
	struct archive *a;
	enum ol_err rc;

	*has_index = false;
	if (open_archive(&a, p, len, d))
		return d->code;
	rc = walk(a, p, len, on_pseudo, &s, true, d);
	archive_read_free(a);
	return rc;
}
