/* SHA-256 (Nettle's, which uses the CPU's SHA instructions where there
 * are any: about 1.5 GB/s here), for the device-link cache's keys and
 * its values' check.  A cryptographic hash, because a cache shared
 * between users must not hand one of them an image another crafted to
 * collide. */
#ifndef OFFLINK_OS_DIGEST_H
#define OFFLINK_OS_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define OL_DIGEST_SIZE 32

struct ol_digest {
	uint64_t state[16]; /* room for Nettle's context, kept opaque here */
};

void ol_digest_init(struct ol_digest *h);
void ol_digest_add(struct ol_digest *h, const void *p, size_t n);
/* Add a string with its terminating NUL, so "ab","c" != "a","bc". */
void ol_digest_add_str(struct ol_digest *h, const char *s);
void ol_digest_add_u64(struct ol_digest *h, uint64_t v);
void ol_digest_final(struct ol_digest *h, uint8_t out[OL_DIGEST_SIZE]);
/* A check over bytes: HMAC-SHA256 keyed with a secret (how entries in a
 * cache that others can write are authenticated), or, with no secret,
 * plain SHA-256 (what catches a damaged entry in a private cache). */
struct ol_mac {
	uint64_t state[64]; /* room for Nettle's hmac_sha256_ctx */
	int keyed;
};
void ol_mac_init(struct ol_mac *m, const uint8_t *secret, size_t secret_len);
void ol_mac_add(struct ol_mac *m, const void *p, size_t n);
void ol_mac_final(struct ol_mac *m, uint8_t out[OL_DIGEST_SIZE]);
/* Compare two digests in time independent of where they differ. */
int ol_digest_equal(const uint8_t a[OL_DIGEST_SIZE], const uint8_t b[OL_DIGEST_SIZE]);
/* out: 64 hex digits and a NUL. */
void ol_digest_hex(const uint8_t d[OL_DIGEST_SIZE], char out[2 * OL_DIGEST_SIZE + 1]);

#endif
