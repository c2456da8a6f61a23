#include "cache/store.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/secret.h"
#include "common/grow.h"
#include "os/scratch.h"


enum ol_err ol_cache_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || *s < '0' || *s > '9')
		return OL_E_USAGE;
	errno = 0;
	v = strtoull(s, &end, 10);
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	case 'T': case 't': shift = 40; end++; break;
	default: break;
	}
	if (errno || *end || v == 0 || v > (UINT64_MAX >> shift))
		return OL_E_USAGE;
	*out = (uint64_t)v << shift;
	return OL_OK;
}

static void warnf(struct ol_store *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warnf(struct ol_store *s, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!s->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->warn(s->warn_ctx, msg);
}

static void open_local(struct ol_store *s, const struct ol_cache_config *c)
{
	struct ol_diag d;
	char msg[1024];

	ol_diag_clear(&d);
	if (c->shared && !s->secret.bytes) {
		warnf(s, "device-link cache %s: --cache-shared needs a secret shared by its users "
			 "(OFFLINK_CACHE_SECRET_FILE); not used", c->dir);
		return;
	}
	if (ol_local_open(&s->local, c->dir, c->cap, c->shared, &s->secret, &d)) {
		ol_diag_format(&d, msg, sizeof(msg));
		if (d.code == OL_E_UNSUPPORTED)
			warnf(s, "device-link cache not used: %s; someone else could plant device "
				 "code there (a cache that others may write needs --cache-shared and "
				 "OFFLINK_CACHE_SECRET_FILE)", msg);
		else
			warnf(s, "device-link cache not used: %s", msg);
		ol_local_close(&s->local);
		return;
	}
	s->local.warn = s->warn;
	s->local.warn_ctx = s->warn_ctx;
	s->have_local = true;
}

/* The largest value a remote may hand over: what the local store would
 * keep (its cap), and an entry's header. */
static size_t max_value(const struct ol_cache_config *c)
{
	uint64_t cap = c->cap ? c->cap : (uint64_t)1 << 30;

	return cap > SIZE_MAX - OL_ENTRY_HEADER ? SIZE_MAX : (size_t)cap + OL_ENTRY_HEADER;
}

/* Whether the directory a and the one b names are one. */
static bool same_dir(const char *a, const char *b)
{
	struct stat x, y;

	return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* The remembered digests belong to the user alone: beside a private
 * store that was accepted, else in c->memo_dir, never inside a store
 * that was refused or is shared (anyone who can write a record there
 * decides what a file's digest is). */
static void open_memo(struct ol_store *s, const struct ol_cache_config *c)
{
	char *own = NULL, *parent;
	const char *dir = NULL;

	if (s->have_local && !c->shared && asprintf(&own, "%s/digests", c->dir) >= 0)
		dir = own;
	else if (c->memo_dir && (parent = strdup(c->memo_dir))) {
		char *slash = strrchr(parent, '/');

		if (slash && slash != parent)
			*slash = '\0';
		if (!c->dir || !same_dir(parent, c->dir))
			dir = c->memo_dir;
		free(parent);
	}
	ol_fdigest_init(&s->files, dir);
	free(own);
}

enum ol_err ol_store_open_local(struct ol_store *s, const struct ol_cache_config *c,
				void (*warn)(void *ctx, const char *msg), void *warn_ctx)
{
	memset(s, 0, sizeof(*s));
	s->local.fd = -1;
	s->files.memo_fd = -1;
	s->warn = warn;
	s->warn_ctx = warn_ctx;
	/* A secret that cannot be used is said, and the link goes on without
	 * the stores that need it. */
	if (c->secret_file && *c->secret_file) {
		struct ol_diag sd;
		char msg[1024];

		ol_diag_clear(&sd);
		if (ol_secret_read(&s->secret, c->secret_file, &sd)) {
			ol_diag_format(&sd, msg, sizeof(msg));
			warnf(s, "%s; the secret is not used", msg);
		}
	}
	if (c->dir)
		open_local(s, c);
	open_memo(s, c);
	return OL_OK;
}

enum ol_err ol_store_open_remotes(struct ol_store *s, const struct ol_cache_config *c,
				  struct ol_diag *d)
{
	if (c->nremotes && !(s->remotes = calloc(c->nremotes, sizeof(*s->remotes))))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	for (size_t i = 0; i < c->nremotes; i++) {
		struct ol_diag rd;
		char msg[1024];

		/* A remote is an optimisation: one that cannot be used is said,
		 * never a reason to fail the link. */
		ol_diag_clear(&rd);
		if (ol_remote_parse(c->remotes[i], i + 1, max_value(c), &s->remotes[s->nremotes], &rd)) {
			ol_diag_format(&rd, msg, sizeof(msg));
			warnf(s, "%s; not used", msg);
			ol_remote_free(&s->remotes[s->nremotes]);
			continue;
		}
		if (!s->secret.bytes) {
			/* a remote is written by others: unauthenticated, anyone who
			 * can write it could plant device code */
			warnf(s, "device-link cache remote %s not used: remotes need a secret shared "
				 "by their users (OFFLINK_CACHE_SECRET_FILE)",
			      s->remotes[s->nremotes].shown);
			ol_remote_free(&s->remotes[s->nremotes]);
			continue;
		}
		s->nremotes++;
	}
	return OL_OK;
}

void ol_store_close(struct ol_store *s)
{
	ol_store_flush(s);
	free(s->copies);
	for (size_t i = 0; i < s->nremotes; i++)
		ol_remote_free(&s->remotes[i]);
	free(s->remotes);
	if (s->have_local)
		ol_local_close(&s->local);
	ol_secret_free(&s->secret);
	ol_fdigest_free(&s->files);
	memset(s, 0, sizeof(*s));
}

bool ol_store_active(const struct ol_store *s)
{
	return s->have_local || s->nremotes;
}

void ol_store_count(struct ol_store *s, const uint8_t key[32], enum ol_stat stat)
{
	if (s->have_local)
		ol_local_count(&s->local, key, stat);
}

/* A remote failed: one warning, and it is not asked again this link. */
static void remote_failed(struct ol_store *s, struct ol_remote *r, const char *what,
			  const struct ol_diag *d)
{
	uint8_t zero[32] = { 0 };

	r->failed = true;
	warnf(s, "device-link cache remote %s: %s failed (%s); not used for the rest of this link",
	      r->shown, what, d->detail[0] ? d->detail : ol_strerror(d->code));
	ol_store_count(s, zero, OL_STAT_REMOTE_ERROR);
}

/* The local copy of a remote hit is made later (ol_store_flush), from
 * the reply itself (taken over, not copied); kept at once if that
 * cannot be. */
static void keep_later(struct ol_store *s, enum ol_entry_type type, const uint8_t key[32],
		       struct ol_buf *reply, const uint8_t *value, size_t n)
{
	struct ol_store_copy *v = ol_grow(s->copies, s->ncopies, &s->capcopies,
					  sizeof(*s->copies), 8);
	struct ol_diag d;

	if (!v) {
		ol_diag_clear(&d);
		ol_local_put(&s->local, type, key, value, n, &d);
		return;
	}
	s->copies = v;
	v = &v[s->ncopies++];
	v->type = type;
	memcpy(v->key, key, 32);
	v->reply = *reply;
	v->value = value;
	v->len = n;
	*reply = (struct ol_buf){ 0 };
}

void ol_store_flush(struct ol_store *s)
{
	for (size_t i = 0; i < s->ncopies; i++) {
		struct ol_store_copy *c = &s->copies[i];
		struct ol_diag d;

		ol_diag_clear(&d);
		if (s->have_local)
			ol_local_put(&s->local, c->type, c->key, c->value, c->len, &d);
		ol_buf_free(&c->reply);
	}
	s->ncopies = 0;
	if (s->have_local)
		ol_local_flush_counts(&s->local);
	ol_fdigest_flush(&s->files);
}

static enum ol_found from_remote(struct ol_store *s, enum ol_entry_type type,
				 const uint8_t key[32], const char *dest, struct ol_buf *out,
				 const struct ol_remote **which)
{
	char hex[65];

	ol_digest_hex(key, hex);
	for (size_t i = 0; i < s->nremotes; i++) {
		struct ol_remote *r = &s->remotes[i];
		struct ol_buf b = { 0 };
		struct ol_diag d;
		const uint8_t *value;
		size_t vlen;
		enum ol_remote_result res;
		bool used = false;

		if (r->failed)
			continue;
		ol_diag_clear(&d);
		res = r->be->get(r, hex, &b, &d);
		if (res == OL_REMOTE_FAILED) {
			remote_failed(s, r, "lookup", &d);
		} else if (res == OL_REMOTE_FOUND &&
			   !ol_entry_check(b.data, b.len, type, key, &s->secret, &value, &vlen)) {
			ol_store_count(s, key, OL_STAT_REJECTED); /* junk or forged: a miss */
			s->rejected++;
		} else if (res == OL_REMOTE_FOUND) {
			ol_diag_clear(&d);
			used = dest ? ol_scratch_write(dest, value, vlen, &d) == OL_OK
				    : ol_buf_append(out, value, vlen) == OL_OK;
			if (used && s->have_local)
				keep_later(s, type, key, &b, value, vlen);
		}
		ol_buf_free(&b);
		if (used) {
			*which = r;
			return OL_FOUND_REMOTE;
		}
	}
	return OL_FOUND_NONE;
}

enum ol_found ol_store_get(struct ol_store *s, enum ol_entry_type type, const uint8_t key[32],
			   const char *dest, struct ol_buf *out, const struct ol_remote **remote)
{
	*remote = NULL;
	if (s->have_local) {
		enum ol_local_result r = ol_local_get(&s->local, type, key, dest, out);

		if (r == OL_LOCAL_HIT)
			return OL_FOUND_LOCAL;
		if (r == OL_LOCAL_REJECTED) {
			ol_store_count(s, key, OL_STAT_REJECTED);
			s->rejected++;
		}
	}
	return from_remote(s, type, key, dest, out, remote);
}

size_t ol_store_put(struct ol_store *s, enum ol_entry_type type, const uint8_t key[32],
		    const void *value, size_t n)
{
	uint8_t header[OL_ENTRY_HEADER];
	struct ol_buf b = { 0 };
	struct ol_diag d;
	char hex[65];
	size_t stored = 0;

	ol_diag_clear(&d);
	if (s->have_local)
		ol_local_put(&s->local, type, key, value, n, &d);
	ol_digest_hex(key, hex);
	for (size_t i = 0; i < s->nremotes; i++) {
		struct ol_remote *r = &s->remotes[i];

		if (r->failed || r->read_only || n > r->max_value)
			continue;
		if (!b.len) {
			ol_entry_header(header, type, key, value, n, &s->secret);
			if (ol_buf_append(&b, header, sizeof(header)) || ol_buf_append(&b, value, n))
				break;
		}
		ol_diag_clear(&d);
		if (r->be->put(r, hex, b.data, b.len, &d) == OL_REMOTE_FAILED)
			remote_failed(s, r, "store", &d);
		else
			stored++;
	}
	ol_buf_free(&b);
	return stored;
}
