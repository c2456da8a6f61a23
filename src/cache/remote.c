#include "cache/remote.h"

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

/* %XX escapes in the user and password of a URL. */
static void percent_decode(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		unsigned v;

		if (*r == '%' && r[1] && r[2] && sscanf(r + 1, "%2x", &v) == 1) {
			*w++ = (char)v;
			r += 2;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
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
	return ol_diag_set(d, OL_E_USAGE, NULL,
			   "cache remote %s: unknown attribute '%.*s' (read-only, "
			   "connect-timeout=<ms>, operation-timeout=<ms>)",
			   r->shown ? r->shown : "?", (int)(n > 64 ? 64 : n), a);
}

/* scheme://[user[:password]@]host[:port][/path] */
static enum ol_err parse_url(struct ol_remote *r, const char *url, struct ol_diag *d)
{
	const char *p = strstr(url, "://"), *auth_end, *host, *host_end, *port;

	for (size_t i = 0; p && i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strlen(backends[i]->scheme) == (size_t)(p - url) &&
		    strncmp(url, backends[i]->scheme, (size_t)(p - url)) == 0)
			r->be = backends[i];
	if (!r->be)
		return ol_diag_set(d, OL_E_USAGE, NULL,
				   "cache remote: expected redis://host[:port][/db] or "
				   "http://host[:port]/path/, not '%.60s'", p ? "a URL of another scheme" : url);
	p += 3;
	host = p;
	host_end = p + strcspn(p, "/");
	auth_end = memchr(p, '@', (size_t)(host_end - p));
	if (auth_end) {
		const char *colon = memchr(p, ':', (size_t)(auth_end - p));

		r->user = dupn(p, (size_t)((colon ? colon : auth_end) - p));
		r->password = colon ? dupn(colon + 1, (size_t)(auth_end - colon - 1)) : NULL;
		if (r->user)
			percent_decode(r->user);
		if (r->password)
			percent_decode(r->password);
		host = auth_end + 1;
	}
	port = memchr(host, ':', (size_t)(host_end - host));
	r->host = dupn(host, (size_t)((port ? port : host_end) - host));
	r->port = r->be->default_port;
	if (port) {
		char *end;
		long v = strtol(port + 1, &end, 10);

		if (end != host_end || v <= 0 || v > 65535)
			return ol_diag_set(d, OL_E_USAGE, NULL, "cache remote %s: bad port", r->shown);
		r->port = (int)v;
	}
	r->path = strdup(*host_end ? host_end : "/");
	if (!r->host || !r->path || !*r->host)
		return ol_diag_set(d, OL_E_USAGE, NULL, "cache remote %s: no host", r->shown);
	return OL_OK;
}

/* The URL as it may be shown: a password becomes ***. */
static char *redact(const char *url)
{
	const char *p = strstr(url, "://"), *at, *colon, *end;
	char *out;

	if (!p)
		return strdup(url);
	end = p + 3 + strcspn(p + 3, "/");
	at = memchr(p + 3, '@', (size_t)(end - p - 3));
	colon = at ? memchr(p + 3, ':', (size_t)(at - p - 3)) : NULL;
	if (!colon)
		return strdup(url);
	if (asprintf(&out, "%.*s:***%s", (int)(colon - url), url, at) < 0)
		return NULL;
	return out;
}

enum ol_err ol_remote_parse(const char *spec, struct ol_remote *r, struct ol_diag *d)
{
	const char *bar = strchr(spec, '|');
	enum ol_err rc;

	memset(r, 0, sizeof(*r));
	r->connect_ms = 100;
	r->op_ms = 10000;
	r->max_value = (size_t)1 << 31;
	if (!(r->url = dupn(spec, bar ? (size_t)(bar - spec) : strlen(spec))) ||
	    !(r->shown = redact(r->url)))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if ((rc = parse_url(r, r->url, d)))
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
