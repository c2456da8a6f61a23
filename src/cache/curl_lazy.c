#include "cache/curl_lazy.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>

/* (the soname libcurl has kept since 7.16; Debian's libcurl4 and
 * libcurl3-gnutls both give one) */
static const char *const sonames[] = { "libcurl.so.4", "libcurl-gnutls.so.4" };

static struct ol_curl fns;
static bool failed;
static pthread_once_t once = PTHREAD_ONCE_INIT;
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

static void load_once(void)
{
	failed = !load();
}

static void *preload_main(void *arg)
{
	(void)arg;
	pthread_once(&once, load_once);
	return NULL;
}

void ol_curl_preload(void)
{
	sigset_t all, old;
	pthread_t t;

	/* The thread takes no signal: an interrupt is the main thread's,
	 * whose handlers (os/cleanup.h) expect to run there. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&t, NULL, preload_main, NULL) == 0)
		pthread_detach(t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

const struct ol_curl *ol_curl(struct ol_diag *d)
{
	/* (waits for a preload still under way) */
	pthread_once(&once, load_once);
	if (failed) {
		ol_diag_set(d, OL_E_UNSUPPORTED, NULL, "%s", why);
		return NULL;
	}
	return &fns;
}
