#include "cache/curl_lazy.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>

/* (the soname libcurl has kept since 7.16; Debian's libcurl4 and
 * libcurl3-gnutls both give one) */
static const char *const sonames[] = { "libcurl.so.4", "libcurl-gnutls.so.4" };

static struct ol_curl fns;
static bool loaded, failed;
static char why[256];

/* dlsym's void * into a function pointer, as POSIX allows. */
#define GET(field, name)                                                   \
	do {                                                               \
		void *p_ = dlsym(h, name);                                 \
		if (!p_) {                                                 \
			snprintf(why, sizeof(why), "%s has no %s", so, name); \
			return false;                                      \
		}                                                          \
		memcpy(&fns.field, &p_, sizeof(p_));                       \
	} while (0)

static bool load(void)
{
	void *h = NULL;
	const char *so = NULL;

	for (size_t i = 0; i < sizeof(sonames) / sizeof(sonames[0]) && !h; i++)
		if ((h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL)))
			so = sonames[i];
	if (!h) {
		snprintf(why, sizeof(why), "libcurl cannot be loaded (%s)", dlerror());
		return false;
	}
	GET(global_init, "curl_global_init");
	GET(easy_init, "curl_easy_init");
	GET(easy_setopt, "curl_easy_setopt");
	GET(easy_perform, "curl_easy_perform");
	GET(easy_getinfo, "curl_easy_getinfo");
	GET(easy_reset, "curl_easy_reset");
	GET(easy_cleanup, "curl_easy_cleanup");
	GET(easy_strerror, "curl_easy_strerror");
	GET(url, "curl_url");
	GET(url_set, "curl_url_set");
	GET(url_get, "curl_url_get");
	GET(url_cleanup, "curl_url_cleanup");
	GET(url_strerror, "curl_url_strerror");
	GET(free, "curl_free");
	return true;
}

const struct ol_curl *ol_curl(struct ol_diag *d)
{
	if (!loaded && !failed) {
		if (load())
			loaded = true;
		else
			failed = true;
	}
	if (failed) {
		ol_diag_set(d, OL_E_UNSUPPORTED, NULL, "%s", why);
		return NULL;
	}
	return &fns;
}
