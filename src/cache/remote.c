#include "cache/remote.h"

#include "cache/curl_lazy.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct ol_remote_backend *const backends[] = { &ol_remote_redis, &ol_remote_http };

static char *dupn(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

static enum ol_err attribute(struct ol_remote *r, const char *a, size_t n, struct ol_diag *d)
{
	char *end;
	long v;

	if (n == 9 && strncmp(a, "read-only", 9) == 0) {
		r->read_only = true;
		return OL_OK;
	}
	if (n > 16 && strncmp(a, "connect-timeout=", 16) == 0) {
		errno = 0;
		v = strtol(a + 16, &end, 10);
		if (!errno && end == a + n && v > 0 && v <= 600000) {
			r->connect_ms = v;
			return OL_OK;
		}
	} else if (n > 18 && strncmp(a, "operation-timeout=", 18) == 0) {
		errno = 0;
		v = strtol(a + 18, &end, 10);
		if (!errno && end == a + n && v > 0 && v <= 3600000) {
			r->op_ms = v;
			return OL_OK;
		}
	}
	{
		/* (an attribute may be a mistyped credential: shown only as far
		 * as its name) */
		size_t name = strcspn(a, "=|");

		return ol_diag_set(d, OL_E_USAGE, NULL,
				   "device-link cache remote %s: unknown attribute '%.*s' (read-only, "
				   "connect-timeout=<ms>, operation-timeout=<ms>)",
				   r->shown ? r->shown : "?", (int)(name > 32 || name > n ? 0 : name), a);
	}
}

/* One part of u, decoded when decode; NULL when absent. */
static char *part(const struct ol_curl *cu, CURLU *u, CURLUPart what, bool decode)
{
	char *v = NULL, *copy;

	if (cu->url_get(u, what, &v, decode ? CURLU_URLDECODE : 0) != CURLUE_OK || !v)
		return NULL;
	copy = strdup(v);
	cu->free(v);
	return copy;
}

/* scheme://[user[:password]@]host[:port][/path], read by libcurl's URL
 * parser (IPv6 hosts in brackets, percent-escapes, '@' and '/' in a
 * password), so that what is shown is exactly scheme, host, port and
 * path: never a credential, whatever the URL holds. */
static enum ol_err parse_url(struct ol_remote *r, const char *url, size_t index,
			     struct ol_diag *d)
{
	const struct ol_curl *cu = ol_curl(d);
	CURLU *u;
	CURLUcode uc;
	char *scheme = NULL, *port = NULL;
	enum ol_err rc = OL_OK;

	if (!cu) {
		ol_diag_prefix(d, "device-link cache remote %zu", index);
		return d->code;
	}
	if (!(u = cu->url()))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	uc = cu->url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME);
	if (uc != CURLUE_OK) {
		rc = ol_diag_set(d, OL_E_USAGE, NULL, "device-link cache remote %zu: not a URL (%s)", index,
				 cu->url_strerror(uc));
		goto out;
	}
	scheme = part(cu, u, CURLUPART_SCHEME, false);
	for (size_t i = 0; scheme && i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strcmp(scheme, backends[i]->scheme) == 0)
			r->be = backends[i];
	if (!r->be) {
		rc = ol_diag_set(d, OL_E_USAGE, NULL,
				 "device-link cache remote %zu: expected redis://host[:port][/db] or "
				 "http://host[:port]/path/", index);
		goto out;
	}
	r->host = part(cu, u, CURLUPART_HOST, false);
	r->path = part(cu, u, CURLUPART_PATH, false);
	r->user = part(cu, u, CURLUPART_USER, true);
	r->password = part(cu, u, CURLUPART_PASSWORD, true);
	port = part(cu, u, CURLUPART_PORT, false);
	r->port = port ? atoi(port) : r->be->default_port;
	if (!r->path)
		r->path = strdup("/");
	if (!r->host || !*r->host || !r->path) {
		rc = ol_diag_set(d, OL_E_USAGE, NULL, "device-link cache remote %zu: no host", index);
		goto out;
	}
	if (asprintf(&r->shown, "%s://%s%s%s%s", scheme, r->host, port ? ":" : "", port ? port : "",
		     strcmp(r->path, "/") == 0 ? "" : r->path) < 0) {
		r->shown = NULL;
		rc = ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		goto out;
	}
	/* hiredis wants an IPv6 address without its brackets */
	if (r->host[0] == '[' && r->host[strlen(r->host) - 1] == ']') {
		memmove(r->host, r->host + 1, strlen(r->host) - 2);
		r->host[strlen(r->host) - 2] = '\0';
	}
out:
	free(scheme);
	free(port);
	cu->url_cleanup(u);
	return rc;
}

enum ol_err ol_remote_parse(const char *spec, size_t index, size_t max_value,
			    struct ol_remote *r, struct ol_diag *d)
{
	const char *bar = strchr(spec, '|');
	enum ol_err rc;

	memset(r, 0, sizeof(*r));
	r->connect_ms = 100;
	r->op_ms = 10000;
	r->max_value = max_value;
	if (!(r->url = dupn(spec, bar ? (size_t)(bar - spec) : strlen(spec))))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if ((rc = parse_url(r, r->url, index, d)))
		return rc;
	while (bar) {
		const char *a = bar + 1;

		bar = strchr(a, '|');
		if ((rc = attribute(r, a, bar ? (size_t)(bar - a) : strlen(a), d)))
			return rc;
	}
	return OL_OK;
}

void ol_remote_free(struct ol_remote *r)
{
	if (r->be && r->conn)
		r->be->close(r);
	free(r->url);
	free(r->shown);
	free(r->user);
	free(r->password);
	free(r->host);
	free(r->path);
	memset(r, 0, sizeof(*r));
}
