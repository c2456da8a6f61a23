/* A cache key under construction: the SHA-256 of labelled ingredients,
 * and, when asked for (OFFLINK_CACHE_EXPLAIN), the same ingredients as
 * text lines, so a user can see why two links did not share an entry.
 *
 * Paths enter a key in a form that travels: the link's private
 * temporary directory as "<TMP>", and, under a base directory
 * (--cache-base-dir, as ccache's base_dir), a path relative to the
 * working directory, so that two checkouts at different places, or two
 * machines, compute the same key.  Only paths that cannot reach the
 * output are rewritten (a file read, a search directory); text that the
 * linker copies into its output (an -rpath) enters as it is. */
#ifndef OFFLINK_CACHE_KEY_H
#define OFFLINK_CACHE_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/strvec.h"
#include "os/digest.h"
#include "os/spawn.h"

struct ol_fdigest;
struct stat;

struct ol_key {
	struct ol_digest h;
	struct ol_buf *explain;   /* ingredient lines, or NULL */
	const char *tmpdir;       /* written as <TMP>, or NULL */
	const char *base_dir;     /* NULL: paths enter as they are */
	const char *cwd;          /* for paths under base_dir */
	struct ol_fdigest *files; /* content digests */
	const struct ol_run_opts *run; /* how probes run (-v prints them) */
	/* Every file the key was computed from (k->files' records), so that
	 * the link it keys can be shown to have read the same (a file
	 * rewritten between the key and the link's end stores nothing). */
	size_t *deps;
	size_t ndeps, capdeps;
	/* Absolute paths the key holds in their travelling form (relative
	 * to the working directory, under the base directory): if one of
	 * them reaches the linked image, the image is not the same for
	 * every checkout that shares the key. */
	struct ol_strvec *relative;
	/* Paths the key also holds as they are (they reach the image). */
	struct ol_strvec *verbatim;
	char uncacheable[320];    /* why not, set by the first ingredient that
				   * cannot be named: no caching; "" */
	bool whole_env;           /* the whole environment is in (environment.h) */
	bool opaque;              /* a program the recorder cannot see into: a
				   * static executable, or one a script names */
};

void ol_key_init(struct ol_key *k, const char *domain);
void ol_key_final(struct ol_key *k, uint8_t out[OL_DIGEST_SIZE]);
/* Free what the key collected (deps). */
void ol_key_free(struct ol_key *k);

/* Record that the key depends on path's state without reading its
 * content (a program keyed by its build ID, an input whose bytes were
 * keyed from memory); st: what fstat said of the descriptor read, or
 * NULL. */
void ol_key_depend(struct ol_key *k, const char *path, const struct stat *st);

/* label + text. */
void ol_key_text(struct ol_key *k, const char *label, const char *text);
void ol_key_u64(struct ol_key *k, const char *label, uint64_t v);
/* label + n bytes (explained as their size and digest). */
void ol_key_bytes(struct ol_key *k, const char *label, const void *p, size_t n);
/* label + a digest computed elsewhere. */
void ol_key_digest(struct ol_key *k, const char *label, const uint8_t d[OL_DIGEST_SIZE]);

/* path in its travelling form (<TMP>/..., relative under the base
 * directory, else as given), into buf; returns buf->data. */
const char *ol_key_path_form(const struct ol_key *k, const char *path, struct ol_buf *buf);
/* label + path's travelling form. */
void ol_key_path(struct ol_key *k, const char *label, const char *path);
/* label + path exactly as it is written (a path a linker copies into
 * the image: a shared object without an SONAME, given by path, becomes
 * its DT_NEEDED). */
void ol_key_verbatim(struct ol_key *k, const char *label, const char *path);
/* label + path's travelling form + its content's digest; a missing file
 * enters as missing.  False (and k->uncacheable set) for what cannot be a
 * link input: a FIFO, a device, a file that cannot be read. */
bool ol_key_file(struct ol_key *k, const char *label, const char *path);

/* label + path's travelling form + the program's content (its fast
 * digest, cache/filedigest.h); as ol_key_file otherwise. */
bool ol_key_program_content(struct ol_key *k, const char *label, const char *path);

/* Mark the key unusable, with why (the first reason wins; text from an
 * input is escaped for a terminal). */
void ol_key_refuse(struct ol_key *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* why, quoted for a message: ol_key_refuse(k, "option %s", ol_key_quote(x, buf)). */
const char *ol_key_quote(const char *text, char *buf, size_t len);

/* Whether path lies in the link's temporary directory (its files are
 * keyed by the images written there, not by their names or bytes). */
bool ol_key_is_tmp(const struct ol_key *k, const char *path);

#endif
