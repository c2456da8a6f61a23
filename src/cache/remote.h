/* Remote storage for the device-link cache, on servers a build farm
 * already runs: one small interface (get a key: the entry, absent, or a
 * failure; put a key), implemented once per backend, a file each, as
 * ccache does it.
 *
 *   redis://[[user]:password@]host[:port][/db]       hiredis
 *   http://[user:password@]host[:port]/path/          libcurl: GET, PUT
 *     (nginx's WebDAV module, bazel-remote, any object store that takes
 *      plain HTTP PUT); an entry is <path><key>
 *
 * Attributes follow the URL after '|': read-only (never written: workers
 * read what a trusted builder stored), connect-timeout=<ms> (default 100)
 * and operation-timeout=<ms> (default 10000).  A remote is an
 * optimisation, never a dependency: a failure of any kind makes it
 * "failed" and it is not asked again during the link; one operation
 * (a command, a transfer) has one deadline, and a reply that declares
 * more than the largest entry is refused before it is read.  URLs are
 * read by libcurl's URL parser, and a URL is shown only as scheme, host,
 * port and path: never its user or password. */
#ifndef OFFLINK_CACHE_REMOTE_H
#define OFFLINK_CACHE_REMOTE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"
#include "common/diag.h"

enum ol_remote_result { OL_REMOTE_FOUND, OL_REMOTE_ABSENT, OL_REMOTE_FAILED };

struct ol_remote;

struct ol_remote_backend {
	const char *scheme;
	int default_port;
	/* key: 64 hex digits; the entry's bytes appended to out */
	enum ol_remote_result (*get)(struct ol_remote *r, const char *key, struct ol_buf *out,
				     struct ol_diag *d);
	enum ol_remote_result (*put)(struct ol_remote *r, const char *key, const void *p,
				     size_t n, struct ol_diag *d);
	void (*close)(struct ol_remote *r);
};

struct ol_remote {
	const struct ol_remote_backend *be;
	char *url;       /* without attributes; may hold a password: never shown */
	char *shown;     /* scheme://host[:port]/path: what messages show */
	char *user, *password, *host, *path;
	int port;
	bool read_only;
	long connect_ms, op_ms;
	size_t max_value; /* larger values are neither fetched nor stored */
	bool failed;      /* failed once: skipped for the rest of the link */
	void *conn;       /* the backend's connection */
};

/* Parse "URL[|attribute...]", the index-th remote (for messages about a
 * URL that cannot be shown); values larger than max_value (what the local
 * store would keep) are refused from their header. */
enum ol_err ol_remote_parse(const char *spec, size_t index, size_t max_value,
			    struct ol_remote *r, struct ol_diag *d);
void ol_remote_free(struct ol_remote *r);

extern const struct ol_remote_backend ol_remote_redis;
extern const struct ol_remote_backend ol_remote_http;

#endif
