/* The device-link cache's storage, the one interface the driver sees:
 * look a key up (the local store, then each remote in turn; a remote hit
 * fills the local store), store a value (locally and on every remote
 * that may be written), count what happened.  Where the stores are and
 * how far they are trusted is decided once, when it is opened. */
#ifndef OFFLINK_CACHE_STORE_H
#define OFFLINK_CACHE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/entry.h"
#include "cache/filedigest.h"
#include "cache/local.h"
#include "cache/remote.h"
#include "common/buf.h"
#include "common/diag.h"

/* "500M", "2G", "65536": a size cap in bytes (K, M, G, T: powers of
 * 1024); OL_E_USAGE for anything else or 0. */
enum ol_err ol_cache_parse_size(const char *s, uint64_t *out);

struct ol_cache_config {
	const char *dir;           /* the local store, or NULL */
	uint64_t cap;
	bool shared;               /* --cache-shared: others may write dir */
	const char *secret_file;   /* OFFLINK_CACHE_SECRET_FILE, or NULL */
	const char *const *remotes;/* --cache-remote / OFFLINK_CACHE_REMOTE */
	size_t nremotes;
	const char *memo_dir;      /* remembered file digests when the local
				    * store cannot hold them (not used, or
				    * shared): a directory of the user's own,
				    * or NULL */
};

/* A remote's entry to copy into the local store (ol_store_flush). */
struct ol_store_copy {
	enum ol_entry_type type;
	uint8_t key[32];
	struct ol_buf reply;       /* the remote's reply, value inside */
	const uint8_t *value;
	size_t len;
};

struct ol_store {
	struct ol_local local;
	bool have_local;
	struct ol_remote *remotes;
	size_t nremotes;
	struct ol_secret secret;
	struct ol_fdigest files;
	size_t rejected;           /* entries that failed their check, this run */
	struct ol_store_copy *copies; /* remote hits, not yet kept locally */
	size_t ncopies, capcopies;
	/* Called with each warning (a store not used, a remote failing):
	 * the driver prints them. */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
};

enum ol_found { OL_FOUND_NONE, OL_FOUND_LOCAL, OL_FOUND_REMOTE };

void ol_store_close(struct ol_store *s); /* (flushes first) */

/* Open what c names, in two halves: the secret, the local store and the
 * digest memo; then the remotes (which load libcurl): a link digests its
 * large tools in between (ol_fdigest_prefetch needs the memo).  A store
 * that is unsafe or unusable, a remote URL that does not parse, a secret
 * that is missing or that others could change, is left out with a
 * warning: the link goes on without it.  Only running out of memory is
 * an error. */
enum ol_err ol_store_open_local(struct ol_store *s, const struct ol_cache_config *c,
				void (*warn)(void *ctx, const char *msg), void *warn_ctx);
enum ol_err ol_store_open_remotes(struct ol_store *s, const struct ol_cache_config *c,
				  struct ol_diag *d);

/* Keep the remote hits of this run in the local store, and write the
 * digests to remember: what a link does beside its host link, off its
 * critical path (each is a new file). */
void ol_store_flush(struct ol_store *s);

/* Whether any store is in use. */
bool ol_store_active(const struct ol_store *s);

/* Look key up; the value written to dest (a new file) or appended to out.
 * *remote: the remote that answered, for messages. */
enum ol_found ol_store_get(struct ol_store *s, enum ol_entry_type type, const uint8_t key[32],
			   const char *dest, struct ol_buf *out, const struct ol_remote **remote);

/* Store value[0..n) under key everywhere it may be written; returns how
 * many remotes took it. */
size_t ol_store_put(struct ol_store *s, enum ol_entry_type type, const uint8_t key[32],
		    const void *value, size_t n);

/* Count an event (cache/stats.h) in the local store's statistics. */
void ol_store_count(struct ol_store *s, const uint8_t key[32], enum ol_stat stat);

#endif
