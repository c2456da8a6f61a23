/* Explicit little-endian loads and stores on byte pointers.
 *
 * Every offload container is little-endian whatever the host; reading
 * through these (never by casting a buffer to a struct) keeps decoders free
 * of alignment and aliasing assumptions.  Callers check bounds first. */
#ifndef OFFLINK_COMMON_LE_H
#define OFFLINK_COMMON_LE_H

#include <stdint.h>

static inline uint16_t ol_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static inline uint32_t ol_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t ol_le64(const uint8_t *p)
{
	return (uint64_t)ol_le32(p) | (uint64_t)ol_le32(p + 4) << 32;
}

static inline uint32_t ol_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline uint64_t ol_be64(const uint8_t *p)
{
	return (uint64_t)ol_be32(p) << 32 | ol_be32(p + 4);
}

static inline void ol_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void ol_put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void ol_put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A little-endian field of n bytes (1 to 8), for code that handles fields
 * of several widths alike (the test mutators: a table of offsets and
 * widths). */
static inline uint64_t ol_le_n(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline void ol_put_le_n(uint8_t *p, int n, uint64_t v)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Round v up to a multiple of align (a power of two).  Callers make sure
 * v is far from UINT64_MAX; see ol_align_up_checked for untrusted input. */
static inline uint64_t ol_align_up(uint64_t v, uint64_t align)
{
	return (v + align - 1) & ~(align - 1);
}

/* As ol_align_up, but reports overflow instead of wrapping. */
static inline int ol_align_up_checked(uint64_t v, uint64_t align, uint64_t *out)
{
	if (v > UINT64_MAX - (align - 1))
		return -1;
	*out = ol_align_up(v, align);
	return 0;
}

#endif
