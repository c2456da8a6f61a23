/* A hash map from byte strings to a uintptr_t, for symbol tables and
 * duplicate checks.  Keys are not copied: they point into mapped inputs or
 * the arena, which live as long as the map.  The hash is keyed with random
 * bytes per process (inputs cannot be built to collide), so nothing may
 * depend on where a key lands: maps are looked up, never iterated. */
#ifndef OFFLINK_COMMON_STRMAP_H
#define OFFLINK_COMMON_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct ol_strmap_slot {
	const char *key;
	size_t len;
	uint64_t hash;
	uintptr_t value;
};

struct ol_strmap {
	struct ol_strmap_slot *slots;
	size_t cap; /* power of two */
	size_t n;
};

/* The value slot of key, or NULL if absent. */
uintptr_t *ol_strmap_get(const struct ol_strmap *m, const char *key, size_t len);
/* The value slot of key, inserted with value 0 if absent; NULL when out of
 * memory. */
uintptr_t *ol_strmap_put(struct ol_strmap *m, const char *key, size_t len);
void ol_strmap_free(struct ol_strmap *m);

#endif
