#include "cache/entry.h"

#include <string.h>

#include "common/le.h"
#include "common/nonstring.h"

static const uint8_t magic[16] OL_NONSTRING = "OFFLINK-CACHE\0\0\2";

static void check(const uint8_t head[64], const void *value, size_t n,
		  const struct ol_secret *secret, uint8_t out[OL_DIGEST_SIZE])
{
	struct ol_mac m;

	ol_mac_init(&m, secret && secret->bytes ? secret->bytes : NULL,
		    secret && secret->bytes ? secret->len : 0);
	ol_mac_add(&m, head, 64);
	ol_mac_add(&m, value, n);
	ol_mac_final(&m, out);
}

void ol_entry_header(uint8_t out[OL_ENTRY_HEADER], enum ol_entry_type type,
		     const uint8_t key[OL_DIGEST_SIZE], const void *value, size_t n,
		     const struct ol_secret *secret)
{
	memset(out, 0, OL_ENTRY_HEADER);
	memcpy(out, magic, sizeof(magic));
	out[16] = (uint8_t)type;
	out[17] = secret && secret->bytes ? 1 : 0;
	ol_put_le64(out + 24, (uint64_t)n);
	memcpy(out + 32, key, OL_DIGEST_SIZE);
	check(out, value, n, secret, out + 64);
}

bool ol_entry_check(const uint8_t *p, size_t n, enum ol_entry_type type,
		    const uint8_t key[OL_DIGEST_SIZE], const struct ol_secret *secret,
		    const uint8_t **value, size_t *vlen)
{
	uint8_t want[OL_DIGEST_SIZE];
	bool keyed = secret && secret->bytes;

	if (n < OL_ENTRY_HEADER || memcmp(p, magic, sizeof(magic)) != 0 || p[16] != type ||
	    p[17] != (keyed ? 1 : 0) || ol_le64(p + 24) != (uint64_t)(n - OL_ENTRY_HEADER) ||
	    !ol_digest_equal(p + 32, key))
		return false;
	check(p, p + OL_ENTRY_HEADER, n - OL_ENTRY_HEADER, secret, want);
	if (!ol_digest_equal(want, p + 64))
		return false;
	*value = p + OL_ENTRY_HEADER;
	*vlen = n - OL_ENTRY_HEADER;
	return true;
}
