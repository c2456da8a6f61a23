/* The HTTP backend (libcurl): an entry is the resource <url path><key>;
 * GET answers 200 with it or 404 without, PUT stores it (201 or 204, as
 * nginx's WebDAV module answers).  One connection is kept for the link. */
#include "cache/remote.h"

#include "cache/curl_lazy.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct fetch {
	struct ol_buf *out;
	size_t max;
	bool too_large;
	long long declared; /* Content-Length, or -1 */
};

/* Content-Length, for the message when it is too large. */
static size_t header(char *p, size_t size, size_t n, void *ctx)
{
	struct fetch *f = ctx;
	size_t len = size * n;

	if (len > 15 && strncasecmp(p, "content-length:", 15) == 0)
		f->declared = strtoll(p + 15, NULL, 10);
	return len;
}

static size_t collect(char *p, size_t size, size_t n, void *ctx)
{
	struct fetch *f = ctx;

	if (f->out->len + n > f->max) {
		f->too_large = true;
		return 0; /* stop: curl reports a write error */
	}
	return ol_buf_append(f->out, p, n * size) ? 0 : n * size;
}

static size_t discard(char *p, size_t size, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return size * n;
}

/* libcurl, loaded when the first remote's URL was read (remote.c). */
static const struct ol_curl *cu;

static CURL *handle(struct ol_remote *r, struct ol_diag *d)
{
	static bool initialised;

	if (r->conn)
		return r->conn;
	if (!cu && !(cu = ol_curl(d)))
		return NULL;
	if (!initialised) {
		if (cu->global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
			ol_diag_set(d, OL_E_IO, NULL, "libcurl does not start");
			return NULL;
		}
		initialised = true;
	}
	if (!(r->conn = cu->easy_init()))
		ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	return r->conn;
}

static bool prepare(struct ol_remote *r, CURL *c, const char *key, struct ol_diag *d)
{
	char *url = NULL;
	const char *sep = r->url[strlen(r->url) - 1] == '/' ? "" : "/";
	CURLcode rc;

	if (asprintf(&url, "%s%s%s", r->url, sep, key) < 0)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL), false;
	cu->easy_reset(c);
	rc = cu->easy_setopt(c, CURLOPT_URL, url);
	free(url);
	cu->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, r->connect_ms);
	/* one deadline for the whole transfer, however the bytes come */
	cu->easy_setopt(c, CURLOPT_TIMEOUT_MS, r->op_ms);
	cu->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	cu->easy_setopt(c, CURLOPT_USERAGENT, "offlink");
	cu->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	if (rc != CURLE_OK)
		ol_diag_set(d, OL_E_USAGE, NULL, "%s", cu->easy_strerror(rc));
	return rc == CURLE_OK;
}

static enum ol_remote_result http_get(struct ol_remote *r, const char *key, struct ol_buf *out,
				      struct ol_diag *d)
{
	CURL *c = handle(r, d);
	struct fetch f = { out, r->max_value, false, -1 };
	long status = 0;
	CURLcode rc;

	if (!c || !prepare(r, c, key, d))
		return OL_REMOTE_FAILED;
	cu->easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	cu->easy_setopt(c, CURLOPT_WRITEDATA, &f);
	cu->easy_setopt(c, CURLOPT_HEADERFUNCTION, header);
	cu->easy_setopt(c, CURLOPT_HEADERDATA, &f);
	/* a body declared larger than the largest entry is refused from its
	 * header (Content-Length), before it is read; one without a length
	 * is cut off when it gets there */
	cu->easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)r->max_value);
	rc = cu->easy_perform(c);
	cu->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (f.too_large || rc == CURLE_FILESIZE_EXCEEDED) {
		out->len = 0;
		if (f.declared > 0 && (unsigned long long)f.declared > r->max_value)
			ol_diag_set(d, OL_E_IO, NULL,
				    "the server announced a reply of %lld bytes, more than the largest "
				    "entry this cache keeps (%zu); not read", f.declared, r->max_value);
		else
			ol_diag_set(d, OL_E_IO, NULL, "a reply longer than the largest entry (%zu bytes)",
				    r->max_value);
		return OL_REMOTE_FAILED;
	}
	if (rc != CURLE_OK) {
		ol_diag_set(d, OL_E_IO, NULL, "%s", cu->easy_strerror(rc));
		return OL_REMOTE_FAILED;
	}
	if (status == 404) {
		out->len = 0;
		return OL_REMOTE_ABSENT;
	}
	if (status != 200) {
		ol_diag_set(d, OL_E_IO, NULL, "GET answered HTTP %ld", status);
		return OL_REMOTE_FAILED;
	}
	return OL_REMOTE_FOUND;
}

static enum ol_remote_result http_put(struct ol_remote *r, const char *key, const void *p,
				      size_t n, struct ol_diag *d)
{
	CURL *c = handle(r, d);
	long status = 0;
	CURLcode rc;

	if (!c || !prepare(r, c, key, d))
		return OL_REMOTE_FAILED;
	cu->easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PUT");
	cu->easy_setopt(c, CURLOPT_POSTFIELDS, p);
	cu->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)n);
	cu->easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	rc = cu->easy_perform(c);
	cu->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (rc != CURLE_OK) {
		ol_diag_set(d, OL_E_IO, NULL, "%s", cu->easy_strerror(rc));
		return OL_REMOTE_FAILED;
	}
	if (status < 200 || status > 299) {
		ol_diag_set(d, OL_E_IO, NULL, "PUT answered HTTP %ld", status);
		return OL_REMOTE_FAILED;
	}
	return OL_REMOTE_FOUND;
}

static void http_close(struct ol_remote *r)
{
	if (r->conn)
		cu->easy_cleanup(r->conn);
	r->conn = NULL;
}

const struct ol_remote_backend ol_remote_http = {
	.scheme = "http",
	.default_port = 80,
	.get = http_get,
	.put = http_put,
	.close = http_close,
};
