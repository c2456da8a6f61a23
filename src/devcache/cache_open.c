/* The device-link cache's stores: where they are (options first, then
 * the environment), opened for the link; offlink --cache-stats and
 * --cache-clear. */
#include "devcache/cache.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/env.h"
#include "common/message.h"
#include "common/response_file.h"
#include "cache/curl_lazy.h"
#include "cache/program.h"
#include "os/findprog.h"

#define DEFAULT_CAP ((uint64_t)1 << 30)

static void warn_cache(void *ctx, const char *msg)
{
	ol_link_warnf(ctx, "%s", msg);
}

/* A boolean switch (common/env.h); configure() refused a value that is
 * not one before anything reads it here. */
bool ol_dc_env_on(const char *name)
{
	const char *v = getenv(name);
	bool on = false;

	return v && ol_parse_bool(v, &on) && on;
}

/* Where remembered digests go when the local store cannot hold them:
 * the user's own cache directory (cache/store.c checks that it is). */
static const char *memo_dir(struct ol_link *l)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return ol_arena_printf(&l->arena, "%s/offlink-digests", xdg);
	if (home && *home == '/')
		return ol_arena_printf(&l->arena, "%s/.cache/offlink-digests", home);
	return NULL;
}

static enum ol_err check_switch(struct ol_link *l, const char *name)
{
	struct ol_diag d;
	bool on;

	ol_diag_clear(&d);
	if (ol_env_bool(name, false, &on, &d))
		ol_link_error(l, &d);
	return d.code;
}

/* --no-cache, or images given (--override-image: nothing is linked). */
static bool cache_off(const struct ol_link *l)
{
	return l->opt.no_cache || l->opt.override_images.n;
}

/* Where the stores are: options first, then the environment. */
static enum ol_err configure(struct ol_link *l, struct ol_cache_config *c, struct ol_strvec *remotes)
{
	const char *env = getenv("OFFLINK_CACHE_DIR"), *size = getenv("OFFLINK_CACHE_SIZE");
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	const char *remote = getenv("OFFLINK_CACHE_REMOTE");
	const char *base = getenv("OFFLINK_CACHE_BASE_DIR");

	memset(c, 0, sizeof(*c));
	if (check_switch(l, "OFFLINK_CACHE_SHARED") | check_switch(l, "OFFLINK_CACHE_EXPLAIN"))
		return OL_E_USAGE;
	c->cap = l->opt.cache_size;
	if (!c->cap && size && *size && ol_cache_parse_size(size, &c->cap)) {
		ol_link_errorf(l, "OFFLINK_CACHE_SIZE=%s: expected a size such as 500M or 2G",
			       ol_link_quote(l, size));
		return OL_E_USAGE;
	}
	if (!c->cap)
		c->cap = DEFAULT_CAP;
	if (cache_off(l))
		return OL_OK;
	if (l->opt.cache_dir)
		c->dir = l->opt.cache_dir;
	else if (env && *env)
		c->dir = env;
	else if (xdg && *xdg == '/')
		c->dir = ol_arena_printf(&l->arena, "%s/offlink", xdg);
	else if (home && *home == '/')
		c->dir = ol_arena_printf(&l->arena, "%s/.cache/offlink", home);
	if (c->dir && strcmp(c->dir, "off") == 0)
		c->dir = NULL;
	c->shared = l->opt.cache_shared || ol_dc_env_on("OFFLINK_CACHE_SHARED");
	c->secret_file = l->opt.cache_secret_file ? l->opt.cache_secret_file
						  : getenv("OFFLINK_CACHE_SECRET_FILE");
	ol_strvec_extend(remotes, &l->opt.cache_remotes);
	if (!l->opt.cache_remotes.n && remote && *remote)
		ol_tokenize_gnu(remote, strlen(remote), remotes);
	c->remotes = (const char *const *)remotes->v;
	c->nremotes = remotes->n;
	c->memo_dir = memo_dir(l);
	if (l->opt.cache_base_dir)
		l->cache_base_dir = strdup(l->opt.cache_base_dir);
	else if (base && *base == '/')
		l->cache_base_dir = strdup(base);
	return remotes->err;
}

/* The tools the keys will read by content (ptxas, nvlink: no build ID),
 * digested in threads while the lookup goes on. */
static void prefetch_tools(struct ol_link *l)
{
	for (size_t i = 0; i < l->ngroups; i++) {
		const struct ol_group *g = &l->groups[i];

		for (size_t s = 0; g->image_path && s < g->nsteps; s++) {
			char *prog = ol_find_in_path(g->steps[s].argv.v[0]);

			ol_program_prefetch(&l->cache.files, prog ? prog : g->steps[s].argv.v[0]);
			free(prog);
		}
	}
}

void ol_cache_preload(struct ol_link *l)
{
	const char *remote = getenv("OFFLINK_CACHE_REMOTE");

	if (cache_off(l) || l->opt.dry_run)
		return;
	if (l->opt.cache_remotes.n || (remote && *remote))
		ol_curl_preload();
}

enum ol_err ol_open_cache(struct ol_link *l)
{
	struct ol_cache_config c;
	struct ol_strvec remotes = { 0 };
	struct ol_diag d;
	char cwd[PATH_MAX];
	enum ol_err rc;

	ol_diag_clear(&d);
	if ((rc = configure(l, &c, &remotes))) {
		ol_strvec_free(&remotes);
		return rc;
	}
	if (!c.dir && !c.nremotes) {
		ol_strvec_free(&remotes);
		return OL_OK;
	}
	ol_store_open_local(&l->cache, &c, warn_cache, l);
	l->cache_opened = true;
	/* the tools' digests begin while libcurl may still be loading */
	if (!l->opt.dry_run && (l->cache.have_local || c.nremotes))
		prefetch_tools(l);
	rc = ol_store_open_remotes(&l->cache, &c, &d);
	ol_strvec_free(&remotes);
	if (rc) {
		ol_link_error(l, &d);
		return rc;
	}
	l->cache_on = ol_store_active(&l->cache);
	if (getcwd(cwd, sizeof(cwd)))
		l->cwd = strdup(cwd);
	return OL_OK;
}

/* ---- offlink --cache-stats, --cache-clear ---- */

static void print_size(const char *label, uint64_t n)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = 0;

	while (v >= 1024 && u < 4)
		v /= 1024, u++;
	printf("%s%.1f %s", label, v, units[u]);
}

enum ol_err ol_cache_command(struct ol_link *l)
{
	uint64_t c[OL_STAT__COUNT], hits, lookups;
	struct ol_local_usage u;
	enum ol_err rc = ol_open_cache(l);

	if (rc)
		return rc;
	if (!l->cache_on) {
		printf("device-link cache: off\n");
		return OL_OK;
	}
	if (l->opt.cache_clear && l->cache.have_local) {
		ol_local_clear(&l->cache.local);
		printf("device-link cache %s: cleared\n", l->cache.local.dir);
	}
	if (!l->opt.cache_stats)
		return OL_OK;
	if (l->cache.have_local) {
		ol_local_stats(&l->cache.local, c, &u);
		hits = c[OL_STAT_LOCAL_HIT] + c[OL_STAT_REMOTE_HIT];
		lookups = hits + c[OL_STAT_MISS];
		printf("device-link cache: %s (%s)\n", l->cache.local.dir,
		       l->cache.local.shared ? "shared, entries authenticated" : "private");
		printf("  hits:             %8llu / %llu", (unsigned long long)hits,
		       (unsigned long long)lookups);
		if (lookups)
			printf(" (%.1f %%)", 100.0 * (double)hits / (double)lookups);
		printf("\n");
		for (int i = 0; i < OL_STAT__COUNT; i++)
			printf("  %-17s %8llu\n", ol_stat_name((enum ol_stat)i),
			       (unsigned long long)c[i]);
		printf("  entries:          %8llu\n", (unsigned long long)u.entries);
		if (u.tool_files) {
			printf("  lld ThinLTO files:%8llu", (unsigned long long)u.tool_files);
			print_size(" (", u.tool_bytes);
			printf(", in the size below)\n");
		}
		print_size("  size:             ", u.bytes);
		print_size(" of ", l->cache.local.cap);
		printf("\n");
	} else {
		printf("device-link cache: no local store\n");
	}
	for (size_t i = 0; i < l->cache.nremotes; i++)
		printf("  remote:           %s%s\n", l->cache.remotes[i].shown,
		       l->cache.remotes[i].read_only ? " (read-only)" : "");
	return OL_OK;
}
