#include "common/strmap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "common/le.h"

/* Keys come from input files, which may be built to collide: SipHash-1-3
 * keyed with random bytes drawn once per process, so nobody can predict
 * which keys share a slot.  Nothing iterates a map, so the key cannot
 * change an output. */
static uint64_t seed[2];

static void init_seed(void)
{
	uint8_t b[16];

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		/* No entropy yet (early boot): still unpredictable enough. */
		uint64_t t = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
		uint64_t where = (uint64_t)(uintptr_t)&t; /* address randomisation */

		memcpy(b, &t, 8);
		memcpy(b + 8, &where, 8);
	}
	seed[0] = ol_le64(b) | 1; /* never all zero: 0 means "not drawn" */
	seed[1] = ol_le64(b + 8);
}

static uint64_t rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

#define SIPROUND(v0, v1, v2, v3)                                                   \
	do {                                                                       \
		v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);          \
		v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;                             \
		v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;                             \
		v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);          \
	} while (0)

static uint64_t hash_bytes(const char *key, size_t len)
{
	const uint8_t *p = (const uint8_t *)key;
	uint64_t v0, v1, v2, v3, m, last;
	size_t i = 0;

	if (!seed[0])
		init_seed();
	v0 = seed[0] ^ 0x736f6d6570736575ull;
	v1 = seed[1] ^ 0x646f72616e646f6dull;
	v2 = seed[0] ^ 0x6c7967656e657261ull;
	v3 = seed[1] ^ 0x7465646279746573ull;
	for (; i + 8 <= len; i += 8) {
		m = ol_le64(p + i);
		v3 ^= m;
		SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	last = (uint64_t)(len & 0xff) << 56;
	for (size_t k = 0; i + k < len; k++)
		last |= (uint64_t)p[i + k] << (8 * k);
	v3 ^= last;
	SIPROUND(v0, v1, v2, v3);
	v0 ^= last;
	v2 ^= 0xff;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

static struct ol_strmap_slot *find(const struct ol_strmap *m, const char *key,
				   size_t len, uint64_t h)
{
	size_t mask = m->cap - 1;

	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct ol_strmap_slot *s = &m->slots[i];

		if (!s->key)
			return s;
		if (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0)
			return s;
	}
}

uintptr_t *ol_strmap_get(const struct ol_strmap *m, const char *key, size_t len)
{
	struct ol_strmap_slot *s;

	if (!m->cap)
		return NULL;
	s = find(m, key, len, hash_bytes(key, len));
	return s->key ? &s->value : NULL;
}

static int grow(struct ol_strmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 1024;
	struct ol_strmap old = *m;

	m->slots = calloc(cap, sizeof(*m->slots));
	if (!m->slots) {
		*m = old;
		return -1;
	}
	m->cap = cap;
	for (size_t i = 0; i < old.cap; i++) {
		if (old.slots[i].key)
			*find(m, old.slots[i].key, old.slots[i].len,
			      old.slots[i].hash) = old.slots[i];
	}
	free(old.slots);
	return 0;
}

uintptr_t *ol_strmap_put(struct ol_strmap *m, const char *key, size_t len)
{
	uint64_t h = hash_bytes(key, len);
	struct ol_strmap_slot *s;

	if ((m->n + 1) * 4 > m->cap * 3 && grow(m))
		return NULL;
	s = find(m, key, len, h);
	if (!s->key) {
		*s = (struct ol_strmap_slot){ key, len, h, 0 };
		m->n++;
	}
	return &s->value;
}

void ol_strmap_free(struct ol_strmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
