#include "os/digest.h"

#include <string.h>

#include <nettle/hmac.h>
#include <nettle/sha2.h>

_Static_assert(sizeof(struct sha256_ctx) <= sizeof(struct ol_digest),
	       "struct ol_digest too small for Nettle's sha256_ctx");

static struct sha256_ctx *ctx(struct ol_digest *h)
{
	return (struct sha256_ctx *)(void *)h->state;
}

void ol_digest_init(struct ol_digest *h)
{
	sha256_init(ctx(h));
}

void ol_digest_add(struct ol_digest *h, const void *p, size_t n)
{
	sha256_update(ctx(h), n, p);
}

void ol_digest_add_str(struct ol_digest *h, const char *s)
{
	ol_digest_add(h, s, strlen(s) + 1);
}

void ol_digest_add_u64(struct ol_digest *h, uint64_t v)
{
	uint8_t b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	ol_digest_add(h, b, sizeof(b));
}

void ol_digest_final(struct ol_digest *h, uint8_t out[OL_DIGEST_SIZE])
{
	sha256_digest(ctx(h), OL_DIGEST_SIZE, out);
}

void ol_digest_hex(const uint8_t d[OL_DIGEST_SIZE], char out[2 * OL_DIGEST_SIZE + 1])
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < OL_DIGEST_SIZE; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[2 * OL_DIGEST_SIZE] = '\0';
}

_Static_assert(sizeof(struct hmac_sha256_ctx) <= sizeof(((struct ol_mac *)0)->state),
	       "struct ol_mac too small for Nettle's hmac_sha256_ctx");

static struct hmac_sha256_ctx *mac_ctx(struct ol_mac *m)
{
	return (struct hmac_sha256_ctx *)(void *)m->state;
}

void ol_mac_init(struct ol_mac *m, const uint8_t *secret, size_t secret_len)
{
	m->keyed = secret != NULL;
	if (m->keyed)
		hmac_sha256_set_key(mac_ctx(m), secret_len, secret);
	else
		sha256_init((struct sha256_ctx *)(void *)m->state);
}

void ol_mac_add(struct ol_mac *m, const void *p, size_t n)
{
	if (m->keyed)
		hmac_sha256_update(mac_ctx(m), n, p);
	else
		sha256_update((struct sha256_ctx *)(void *)m->state, n, p);
}

void ol_mac_final(struct ol_mac *m, uint8_t out[OL_DIGEST_SIZE])
{
	if (m->keyed)
		hmac_sha256_digest(mac_ctx(m), OL_DIGEST_SIZE, out);
	else
		sha256_digest((struct sha256_ctx *)(void *)m->state, OL_DIGEST_SIZE, out);
}

int ol_digest_equal(const uint8_t a[OL_DIGEST_SIZE], const uint8_t b[OL_DIGEST_SIZE])
{
	uint8_t diff = 0;

	for (size_t i = 0; i < OL_DIGEST_SIZE; i++)
		diff |= (uint8_t)(a[i] ^ b[i]);
	return diff == 0;
}
