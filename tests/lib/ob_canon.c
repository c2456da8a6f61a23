/* ob_canon IN OUT: rewrite a file of concatenated version 1 offload
 * binaries with each binary's string-entry records sorted by key.
 *
 * LLVM's packager writes those records in hash-table order and offlink in
 * key order; everything else must be identical.  Canonicalising both sides
 * and comparing bytes proves exactly that: the only permitted difference
 * is a permutation of the 16-byte records. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static const uint8_t *base;
static size_t limit;

static int cmp_rec(const void *a, const void *b)
{
	uint64_t ka = le64(a), kb = le64(b);

	if (ka >= limit || kb >= limit)
		return ka < kb ? -1 : ka > kb;
	return strcmp((const char *)base + ka, (const char *)base + kb);
}

int main(int argc, char **argv)
{
	FILE *f;
	uint8_t *buf;
	long len;
	size_t off = 0;

	if (argc != 3 || !(f = fopen(argv[1], "rb")))
		return 2;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc(len ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
		return 2;
	fclose(f);
	while (off + 72 <= (size_t)len) {
		uint8_t *b = buf + off;
		uint64_t size = le64(b + 8), soff = le64(b + 40), n = le64(b + 48);

		if (memcmp(b, "\x10\xff\x10\xad", 4) || size < 72 || size > (size_t)len - off ||
		    soff + 16 * n > size)
			return 3;
		base = b;
		limit = size;
		qsort(b + soff, n, 16, cmp_rec);
		off += size;
	}
	if (!(f = fopen(argv[2], "wb")) || fwrite(buf, 1, (size_t)len, f) != (size_t)len)
		return 2;
	fclose(f);
	free(buf);
	return 0;
}
