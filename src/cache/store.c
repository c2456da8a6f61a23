#include "cache/store.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/scratch.h"

#define SECRET_MIN 16
#define SECRET_MAX 4096

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

/* The shared secret: a regular file nobody outside its owner and group
 * can read, of 16 bytes to 4 KiB, taken as it is. */
static enum ol_err read_secret(struct ol_store *s, const char *path, struct ol_diag *d)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return ol_diag_errno(d, errno, "cannot open the cache secret (OFFLINK_CACHE_SECRET_FILE)",
				     path);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ol_diag_set(d, OL_E_IO, NULL, "cache secret %s: not a regular file", path);
	}
	if (st.st_mode & 0004) {
		close(fd);
		return ol_diag_set(d, OL_E_IO, NULL,
				   "cache secret %s: readable by everyone (mode %04o); it must be "
				   "readable only by the users who share the cache (chmod o-r)",
				   path, (unsigned)(st.st_mode & 07777));
	}
	if (st.st_size < SECRET_MIN || st.st_size > SECRET_MAX) {
		close(fd);
		return ol_diag_set(d, OL_E_IO, NULL, "cache secret %s: %lld bytes; expected %d to %d",
				   path, (long long)st.st_size, SECRET_MIN, SECRET_MAX);
	}
	s->secret.bytes = malloc((size_t)st.st_size);
	n = s->secret.bytes ? pread(fd, s->secret.bytes, (size_t)st.st_size, 0) : -1;
	close(fd);
	if (n != st.st_size) {
		free(s->secret.bytes);
		s->secret.bytes = NULL;
		return ol_diag_errno(d, errno, "cannot read the cache secret", path);
	}
	s->secret.len = (size_t)n;
	return OL_OK;
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
	s->have_local = true;
}

enum ol_err ol_store_open(struct ol_store *s, const struct ol_cache_config *c,
			  void (*warn)(void *ctx, const char *msg), void *warn_ctx,
			  struct ol_diag *d)
{
	enum ol_err rc;

	memset(s, 0, sizeof(*s));
	s->local.fd = -1;
	s->warn = warn;
	s->warn_ctx = warn_ctx;
	ol_fdigest_init(&s->files, c->memo_dir);
	if (c->secret_file && *c->secret_file && (rc = read_secret(s, c->secret_file, d)))
		return rc;
	if (c->nremotes && !(s->remotes = calloc(c->nremotes, sizeof(*s->remotes))))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	for (size_t i = 0; i < c->nremotes; i++) {
		if ((rc = ol_remote_parse(c->remotes[i], &s->remotes[s->nremotes], d))) {
			ol_remote_free(&s->remotes[s->nremotes]);
			return rc;
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
	if (c->dir)
		open_local(s, c);
	return OL_OK;
}

void ol_store_close(struct ol_store *s)
{
	for (size_t i = 0; i < s->nremotes; i++)
		ol_remote_free(&s->remotes[i]);
	free(s->remotes);
	if (s->have_local)
		ol_local_close(&s->local);
	if (s->secret.bytes) {
		memset(s->secret.bytes, 0, s->secret.len);
		free(s->secret.bytes);
	}
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
				ol_local_put(&s->local, type, key, value, vlen, &d);
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
