/* A cache entry, the same bytes in the local directory and on a remote:
 *
 *   0  16  magic "OFFLINK-CACHE\0\0\2" (the last byte: format 2)
 *  16   1  type: 1 a linked image, 2 a manifest, 3 what clang runs
 *          (cache/probe_memo.h; devcache/cache_probe.c), 4 one step's
 *          output within a link (a ThinLTO module's backend or assembler
 *          result, thin/thin_cache.c)
 *  17   1  check: 0 SHA-256, 1 HMAC-SHA256 with the shared secret
 *  18   6  zero
 *  24   8  the value's size, little-endian
 *  32  32  the key the value was stored under
 *  64  32  the check over bytes 0-63 and the value
 *  96      the value
 *
 * A reader takes a value only if its recorded key is the key asked for
 * and its check holds: in a private cache a SHA-256 (a damaged or
 * truncated file), in a shared directory or a remote an HMAC keyed with
 * the secret the farm's users share, so that someone who can write the
 * store but does not hold the secret cannot plant an image. */
#ifndef OFFLINK_CACHE_ENTRY_H
#define OFFLINK_CACHE_ENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "os/digest.h"

#define OL_ENTRY_HEADER 96

enum ol_entry_type { OL_ENTRY_IMAGE = 1, OL_ENTRY_MANIFEST = 2, OL_ENTRY_PROBE = 3, OL_ENTRY_STEP = 4 };

/* The shared secret (OFFLINK_CACHE_SECRET_FILE), or none (bytes NULL). */
struct ol_secret {
	uint8_t *bytes;
	size_t len;
};

/* The header of an entry holding value[0..n) under key. */
void ol_entry_header(uint8_t out[OL_ENTRY_HEADER], enum ol_entry_type type,
		     const uint8_t key[OL_DIGEST_SIZE], const void *value, size_t n,
		     const struct ol_secret *secret);

/* Whether p[0..n) is an entry of that type for key whose check holds
 * (an HMAC with secret when secret->bytes, else SHA-256); its value in
 * *value, *vlen. */
bool ol_entry_check(const uint8_t *p, size_t n, enum ol_entry_type type,
		    const uint8_t key[OL_DIGEST_SIZE], const struct ol_secret *secret,
		    const uint8_t **value, size_t *vlen);

#endif
