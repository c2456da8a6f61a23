#include "common/strmap.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a: short symbol names, no adversary. */
static uint64_t hash_bytes(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ull;
	}
	return h;
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
