#include "extract/archive_reader.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/grow.h"
#include "common/le.h"

bool ol_is_archive(const uint8_t *p, size_t len)
{
	return len >= 8 && (memcmp(p, "!<arch>\n", 8) == 0 ||
			    memcmp(p, "!<thin>\n", 8) == 0);
}

bool ol_is_thin_archive(const uint8_t *p, size_t len)
{
	return len >= 8 && memcmp(p, "!<thin>\n", 8) == 0;
}

void ol_ar_keep_free(struct ol_ar_keep *k)
{
	for (size_t i = 0; i < k->n; i++)
		ol_unmap(&k->maps[i]);
	free(k->maps);
	memset(k, 0, sizeof(*k));
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

/* ---- thin archives: our own header walk ---- */

enum { AR_HEADER = 60, AR_SIZE_AT = 48, AR_SIZE_LEN = 10, AR_MAGIC_AT = 58 };

struct thin {
	const char *path;    /* the archive */
	uint8_t *p;
	size_t len;
	const char *names;   /* the "//" long-name table, when seen */
	size_t nnames;
	ol_ar_member_cb cb;
	void *ctx;
	bool pseudo_too;
	struct ol_ar_keep *keep;
	size_t index;
};

static enum ol_err thin_fail(uint64_t at, const char *field, struct ol_diag *d,
			     const char *what)
{
	return ol_diag_at(d, OL_E_BAD_ARCHIVE, at, field, "thin archive: %s", what);
}

/* The decimal size field: digits, then spaces. */
static enum ol_err header_size(const uint8_t *h, uint64_t at, uint64_t *size,
			       struct ol_diag *d)
{
	size_t i = 0;

	*size = 0;
	for (; i < AR_SIZE_LEN && h[AR_SIZE_AT + i] >= '0' && h[AR_SIZE_AT + i] <= '9'; i++)
		*size = *size * 10 + (uint64_t)(h[AR_SIZE_AT + i] - '0');
	if (i == 0)
		return thin_fail(at + AR_SIZE_AT, "ar_size", d, "member size is not a number");
	for (; i < AR_SIZE_LEN; i++)
		if (h[AR_SIZE_AT + i] != ' ')
			return thin_fail(at + AR_SIZE_AT, "ar_size", d, "member size is not a number");
	return OL_OK;
}

/* A member's name: "name/" inline, or "/<offset>" into the long-name
 * table, where names end with "/\n".  Copied into out. */
static enum ol_err member_name(const struct thin *t, const uint8_t *h, uint64_t at,
			       char *out, size_t outlen, struct ol_diag *d)
{
	const char *s;
	size_t n;

	if (h[0] == '/' && h[1] >= '0' && h[1] <= '9') {
		uint64_t off = 0;

		for (size_t i = 1; i < 16 && h[i] >= '0' && h[i] <= '9'; i++)
			off = off * 10 + (uint64_t)(h[i] - '0');
		if (!t->names || off >= t->nnames)
			return thin_fail(at, "ar_name", d, "long name outside the name table");
		s = t->names + off;
		for (n = 0; off + n + 1 < t->nnames && !(s[n] == '/' && s[n + 1] == '\n'); n++)
			;
		if (off + n + 1 >= t->nnames)
			return thin_fail(at, "ar_name", d, "unterminated long name");
	} else {
		s = (const char *)h;
		for (n = 0; n < 16 && s[n] != '/'; n++)
			;
		if (n == 16)
			return thin_fail(at, "ar_name", d, "member name without its '/'");
	}
	if (n == 0 || n >= outlen || memchr(s, '\0', n))
		return thin_fail(at, "ar_name", d, "bad member name");
	memcpy(out, s, n);
	out[n] = '\0';
	return OL_OK;
}

/* The member file, beside the archive unless its name is absolute. */
static enum ol_err thin_member(struct thin *t, const char *name, uint64_t at,
			       struct ol_diag *d)
{
	const char *slash = strrchr(t->path, '/');
	struct ol_buf file = { 0 };
	struct ol_ar_member m;
	struct ol_map map;
	enum ol_err rc;

	if (name[0] != '/' && slash)
		rc = ol_buf_printf(&file, "%.*s/%s", (int)(slash - t->path), t->path, name);
	else
		rc = ol_buf_puts(&file, name);
	if (rc)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	rc = ol_map_file((char *)file.data, &map, d);
	if (rc) {
		/* Reported as the archive's member, naming the file. */
		ol_diag_prefix(d, "thin archive member file %s", (char *)file.data);
		d->file[0] = '\0';
		ol_diag_locate(d, NULL, name, 0);
	}
	ol_buf_free(&file);
	if (rc)
		return d->code;
	m = (struct ol_ar_member){ name, map.data, map.len, at, 0, t->index++ };
	rc = t->cb(t->ctx, &m, d);
	if (!t->keep) {
		ol_unmap(&map);
	} else {
		struct ol_map *k = ol_grow(t->keep->maps, t->keep->n, &t->keep->cap,
					   sizeof(*k), 16);

		if (!k) {
			ol_unmap(&map);
			return rc ? rc : ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		}
		t->keep->maps = k;
		t->keep->maps[t->keep->n++] = map;
	}
	return rc;
}

/* A pseudo-member, whose data is in the archive: the symbol index (to the
 * callback when asked) or the long-name table (kept for the names). */
static enum ol_err thin_pseudo(struct thin *t, const uint8_t *h, uint64_t at,
			       uint64_t size, bool *is_pseudo, struct ol_diag *d)
{
	static const char *const names[] = { "/               ", "/SYM64/         ",
					      "//              " };
	size_t data = (size_t)at + AR_HEADER;
	struct ol_ar_member m;

	*is_pseudo = false;
	for (size_t i = 0; i < 3 && !*is_pseudo; i++)
		*is_pseudo = memcmp(h, names[i], 16) == 0;
	if (!*is_pseudo)
		return OL_OK;
	if (data > t->len || size > t->len - data)
		return thin_fail(at + AR_SIZE_AT, "ar_size", d, "table runs past the end");
	if (h[1] == '/') {
		t->names = (const char *)t->p + data;
		t->nnames = (size_t)size;
		return OL_OK;
	}
	if (!t->pseudo_too)
		return OL_OK;
	m = (struct ol_ar_member){ h[1] == 'S' ? "/SYM64/" : "/", t->p + data, (size_t)size,
				   at, data, 0 };
	return t->cb(t->ctx, &m, d);
}

static enum ol_err thin_walk(struct thin *t, struct ol_diag *d)
{
	uint64_t at = 8;

	while (at < t->len) {
		const uint8_t *h = t->p + at;
		char name[4096];
		uint64_t size;
		bool pseudo;

		if (t->len - at < AR_HEADER)
			return thin_fail(at, "ar_hdr", d, "truncated member header");
		if (h[AR_MAGIC_AT] != '`' || h[AR_MAGIC_AT + 1] != '\n')
			return thin_fail(at + AR_MAGIC_AT, "ar_fmag", d, "bad member header");
		if (header_size(h, at, &size, d) || thin_pseudo(t, h, at, size, &pseudo, d))
			return d->code;
		if (pseudo) {
			/* data and its padding to an even offset */
			at += AR_HEADER + size + (size & 1);
			continue;
		}
		if (member_name(t, h, at, name, sizeof(name), d))
			return d->code;
		if (!t->pseudo_too && thin_member(t, name, at, d))
			return d->code;
		at += AR_HEADER; /* a thin member's data is its own file */
	}
	return OL_OK;
}

enum ol_err ol_archive_for_each(const char *path, uint8_t *p, size_t len,
				ol_ar_member_cb cb, void *ctx, struct ol_ar_keep *keep,
				struct ol_diag *d)
{
	struct archive *a;
	enum ol_err rc;

	if (ol_is_thin_archive(p, len)) {
		struct thin t = { path, p, len, NULL, 0, cb, ctx, false, keep, 0 };

		return thin_walk(&t, d);
	}
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
	if (ol_is_thin_archive(p, len)) {
		struct thin t = { "", p, len, NULL, 0, on_pseudo, &s, true, NULL, 0 };

		return thin_walk(&t, d);
	}
	if (open_archive(&a, p, len, d))
		return d->code;
	rc = walk(a, p, len, on_pseudo, &s, true, d);
	archive_read_free(a);
	return rc;
}
