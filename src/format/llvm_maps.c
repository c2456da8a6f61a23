#include "format/llvm_maps.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/le.h"

uint32_t ol_llvm_djb_hash(const char *s, size_t len)
{
	uint32_t h = 0;

	for (size_t i = 0; i < len; i++)
		h = (h << 5) + h + (unsigned char)s[i];
	return h;
}

/* ---- llvm::hash_value(StringRef): CityHash-derived, ADT/Hashing.h ---- */

static const uint64_t k0 = 0xc3a5c85c97cb3127ull, k1 = 0xb492b66fbe98f273ull,
		      k2 = 0x9ae16a3b2f90404full, k3 = 0xc949d7c7509e6557ull;
/* get_execution_seed() of a build without ABI-breaking checks. */
static const uint64_t execution_seed = 0xff51afd7ed558ccdull;

static uint64_t fetch64(const char *p) { return ol_le64((const uint8_t *)p); }
static uint64_t fetch32(const char *p) { return ol_le32((const uint8_t *)p); }

static uint64_t rotate(uint64_t v, unsigned s)
{
	return s == 0 ? v : (v >> s) | (v << (64 - s));
}

static uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }

static uint64_t hash_16(uint64_t low, uint64_t high)
{
	const uint64_t mul = 0x9ddfea08eb382d69ull;
	uint64_t a = (low ^ high) * mul, b;

	a ^= a >> 47;
	b = (high ^ a) * mul;
	b ^= b >> 47;
	return b * mul;
}

static uint64_t hash_1to3(const char *s, size_t len, uint64_t seed)
{
	uint8_t a = (uint8_t)s[0], b = (uint8_t)s[len >> 1], c = (uint8_t)s[len - 1];
	uint32_t y = (uint32_t)a + ((uint32_t)b << 8);
	uint32_t z = (uint32_t)len + ((uint32_t)c << 2);

	return shift_mix((uint64_t)y * k2 ^ (uint64_t)z * k3 ^ seed) * k2;
}

static uint64_t hash_4to8(const char *s, size_t len, uint64_t seed)
{
	return hash_16(len + (fetch32(s) << 3), seed ^ fetch32(s + len - 4));
}

static uint64_t hash_9to16(const char *s, size_t len, uint64_t seed)
{
	uint64_t a = fetch64(s), b = fetch64(s + len - 8);

	return hash_16(seed ^ a, rotate(b + len, (unsigned)len)) ^ b;
}

static uint64_t hash_17to32(const char *s, size_t len, uint64_t seed)
{
	uint64_t a = fetch64(s) * k1, b = fetch64(s + 8);
	uint64_t c = fetch64(s + len - 8) * k2, d = fetch64(s + len - 16) * k0;

	return hash_16(rotate(a - b, 43) + rotate(c ^ seed, 30) + d,
		       a + rotate(b ^ k3, 20) - c + len + seed);
}

static uint64_t hash_33to64(const char *s, size_t len, uint64_t seed)
{
	uint64_t z = fetch64(s + 24), a = fetch64(s) + (len + fetch64(s + len - 16)) * k0;
	uint64_t b = rotate(a + z, 52), c = rotate(a, 37), vf, vs, wf, ws, r;

	a += fetch64(s + 8);
	c += rotate(a, 7);
	a += fetch64(s + 16);
	vf = a + z;
	vs = b + rotate(a, 31) + c;
	a = fetch64(s + 16) + fetch64(s + len - 32);
	z = fetch64(s + len - 8);
	b = rotate(a + z, 52);
	c = rotate(a, 37);
	a += fetch64(s + len - 24);
	c += rotate(a, 7);
	a += fetch64(s + len - 16);
	wf = a + z;
	ws = b + rotate(a, 31) + c;
	r = shift_mix((vf + ws) * k2 + (wf + vs) * k0);
	return shift_mix((seed ^ (r * k0)) + vs) * k2;
}

static uint64_t hash_short(const char *s, size_t len, uint64_t seed)
{
	if (len >= 4 && len <= 8)
		return hash_4to8(s, len, seed);
	if (len > 8 && len <= 16)
		return hash_9to16(s, len, seed);
	if (len > 16 && len <= 32)
		return hash_17to32(s, len, seed);
	if (len > 32)
		return hash_33to64(s, len, seed);
	if (len)
		return hash_1to3(s, len, seed);
	return k2 ^ seed;
}

/* The 56-byte state for inputs over 64 bytes. */
struct state {
	uint64_t h0, h1, h2, h3, h4, h5, h6;
};

static void mix_32(const char *s, uint64_t *a, uint64_t *b)
{
	uint64_t c, d;

	*a += fetch64(s);
	c = fetch64(s + 24);
	*b = rotate(*b + *a + c, 21);
	d = *a;
	*a += fetch64(s + 8) + fetch64(s + 16);
	*b += rotate(*a, 44) + d;
	*a += c;
}

static void mix(struct state *st, const char *s)
{
	uint64_t t;

	st->h0 = rotate(st->h0 + st->h1 + st->h3 + fetch64(s + 8), 37) * k1;
	st->h1 = rotate(st->h1 + st->h4 + fetch64(s + 48), 42) * k1;
	st->h0 ^= st->h6;
	st->h1 += st->h3 + fetch64(s + 40);
	st->h2 = rotate(st->h2 + st->h5, 33) * k1;
	st->h3 = st->h4 * k1;
	st->h4 = st->h0 + st->h5;
	mix_32(s, &st->h3, &st->h4);
	st->h5 = st->h2 + st->h6;
	st->h6 = st->h1 + fetch64(s + 16);
	mix_32(s + 32, &st->h5, &st->h6);
	t = st->h2;
	st->h2 = st->h0;
	st->h0 = t;
}

/* LLVM up to 22: CityHash64 with the execution seed. */
static uint64_t city_hash_value(const char *s, size_t len)
{
	uint64_t seed = execution_seed;
	struct state st;
	const char *end = s + len, *aligned_end = s + (len & ~(size_t)63);

	if (len <= 64)
		return hash_short(s, len, seed);
	st = (struct state){ 0, seed, hash_16(seed, k1), rotate(seed ^ k1, 49),
			     seed * k1, shift_mix(seed), 0 };
	st.h6 = hash_16(st.h4, st.h5);
	mix(&st, s);
	for (s += 64; s != aligned_end; s += 64)
		mix(&st, s);
	if (len & 63)
		mix(&st, end - 64);
	return hash_16(hash_16(st.h3, st.h5) + shift_mix(st.h1) * k1 + st.h2,
		       hash_16(st.h4, st.h6) + shift_mix(len) * k1 + st.h0);
}

uint64_t ol_llvm_hash_value(const char *s, size_t len, unsigned release)
{
	/* (LLVM's xxh3_64bits is XXH3_64bits with seed 0; the execution
	 * seed is XORed into the result, not fed to the hash) */
	if (release >= 23)
		return XXH3_64bits(s, len) ^ execution_seed;
	return city_hash_value(s, len);
}

/* ---- the tables: open addressing with quadratic probing ---- */

/* A table of key indexes (SIZE_MAX empty) and their 32-bit hashes.
 * Collisions probe quadratically (1, 2, 3, ... buckets further each
 * time), or linearly: LLVM 23's DenseMap. */
struct table {
	size_t *slot;
	uint32_t *hash;
	size_t nbuckets, nitems;
	bool linear;
};

static size_t probe(const struct table *t, uint32_t h)
{
	size_t mask = t->nbuckets - 1, b = h & mask, step = 1;

	while (t->slot[b] != SIZE_MAX)
		b = (b + (t->linear ? 1 : step++)) & mask;
	return b;
}

/* Rebuild with nbuckets, moving entries in old bucket order (both
 * StringMap's RehashTable and DenseMap's moveFromOldBuckets do). */
static enum ol_err resize(struct table *t, size_t nbuckets)
{
	struct table n = { malloc(nbuckets * sizeof(size_t)),
			   malloc(nbuckets * sizeof(uint32_t)), nbuckets, t->nitems, t->linear };

	if (!n.slot || !n.hash) {
		free(n.slot);
		free(n.hash);
		return OL_E_NOMEM;
	}
	for (size_t i = 0; i < nbuckets; i++)
		n.slot[i] = SIZE_MAX;
	for (size_t i = 0; i < t->nbuckets; i++) {
		size_t b;

		if (t->slot[i] == SIZE_MAX)
			continue;
		b = probe(&n, t->hash[i]);
		n.slot[b] = t->slot[i];
		n.hash[b] = t->hash[i];
	}
	free(t->slot);
	free(t->hash);
	*t = n;
	return OL_OK;
}

static void insert(struct table *t, size_t key, uint32_t h)
{
	size_t b = probe(t, h);

	t->slot[b] = key;
	t->hash[b] = h;
	t->nitems++;
}

static void read_order(struct table *t, size_t *order)
{
	size_t k = 0;

	for (size_t i = 0; i < t->nbuckets; i++)
		if (t->slot[i] != SIZE_MAX)
			order[k++] = t->slot[i];
	free(t->slot);
	free(t->hash);
}

enum ol_err ol_llvm_stringmap_order(const char *const *keys, size_t n, size_t *order)
{
	struct table t = { 0 };

	/* init(16) at the first insertion; after each insertion, a table
	 * more than 3/4 full doubles. */
	if (n && resize(&t, 16))
		return OL_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		insert(&t, i, ol_llvm_djb_hash(keys[i], strlen(keys[i])));
		if (t.nitems * 4 > t.nbuckets * 3 && resize(&t, t.nbuckets * 2)) {
			free(t.slot);
			free(t.hash);
			return OL_E_NOMEM;
		}
	}
	if (n)
		read_order(&t, order);
	return OL_OK;
}

enum ol_err ol_llvm_densemap_order_hashed(const uint32_t *hashes, size_t n, unsigned release,
					  size_t *order)
{
	struct table t = { .linear = release >= 23 };

	/* 64 buckets at the first insertion; before an insertion that would
	 * fill the table to 3/4, it doubles. */
	for (size_t i = 0; i < n; i++) {
		if ((t.nitems + 1) * 4 >= t.nbuckets * 3 &&
		    resize(&t, t.nbuckets ? t.nbuckets * 2 : 64)) {
			free(t.slot);
			free(t.hash);
			return OL_E_NOMEM;
		}
		insert(&t, i, hashes[i]);
	}
	if (n)
		read_order(&t, order);
	return OL_OK;
}

enum ol_err ol_llvm_densemap_order(const char *const *keys, size_t n, unsigned release,
				   size_t *order)
{
	uint32_t *hashes = malloc((n ? n : 1) * sizeof(*hashes));
	enum ol_err rc;

	if (!hashes)
		return OL_E_NOMEM;
	for (size_t i = 0; i < n; i++)
		hashes[i] = (uint32_t)ol_llvm_hash_value(keys[i], strlen(keys[i]), release);
	rc = ol_llvm_densemap_order_hashed(hashes, n, release, order);
	free(hashes);
	return rc;
}

uint32_t ol_llvm_pair_hash(uint32_t first, uint32_t second)
{
	/* DenseMapInfo<std::pair>'s combineHashValue: a 64-bit mix of the
	 * two 32-bit hashes, truncated. */
	uint64_t key = (uint64_t)first << 32 | second;

	key += ~(key << 32);
	key ^= key >> 22;
	key += ~(key << 13);
	key ^= key >> 8;
	key += key << 3;
	key ^= key >> 15;
	key += ~(key << 27);
	key ^= key >> 31;
	return (uint32_t)key;
}
