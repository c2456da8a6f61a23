/* libcurl, loaded the first time a remote store is named (dlopen), not
 * at offlink's start: its libraries' constructors (GnuTLS, Kerberos, LDAP,
 * ...) cost about 5 ms at every start of a process linked with it, and
 * most links name no remote.  Every use of libcurl goes through this
 * table (remote.c, remote_http.c). */
#ifndef OFFLINK_CACHE_CURL_LAZY_H
#define OFFLINK_CACHE_CURL_LAZY_H

#include <curl/curl.h>

#include "common/diag.h"

struct ol_curl {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *c, CURLoption o, ...);
	CURLcode (*easy_perform)(CURL *c);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO i, ...);
	void (*easy_reset)(CURL *c);
	void (*easy_cleanup)(CURL *c);
	const char *(*easy_strerror)(CURLcode e);
	CURLU *(*url)(void);
	CURLUcode (*url_set)(CURLU *u, CURLUPart what, const char *part, unsigned int flags);
	CURLUcode (*url_get)(const CURLU *u, CURLUPart what, char **part, unsigned int flags);
	void (*url_cleanup)(CURLU *u);
	const char *(*url_strerror)(CURLUcode e);
	void (*free)(void *p);
};

/* libcurl's functions, loaded once; NULL, with d saying why, when
 * libcurl cannot be loaded (the remote is then skipped with a warning,
 * as for any remote that cannot be used). */
const struct ol_curl *ol_curl(struct ol_diag *d);

/* Start loading libcurl in a thread of its own (some thirty libraries,
 * 5 ms): a link that names a remote calls this as it starts, and the
 * load overlaps the scan of its inputs; ol_curl waits for it. */
void ol_curl_preload(void);

#endif
