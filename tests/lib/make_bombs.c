/* Hostile containers, built at test time (issue 39, items 2 and 3):
 *
 *   make_bombs seq N SIZE STORED OUT
 *       N compressed bundles (CCOB version 3, zstd) back to back, each a
 *       binary bundle of SIZE bytes -- a host entry and one HIP entry
 *       holding the rest, zeros -- in a stream of about STORED bytes: the
 *       bundle's header and zeros up to STORED as raw blocks, the other
 *       zeros as RLE blocks (4 bytes for each 128 KiB: 512 MiB in 16 KiB,
 *       32,000:1).  Each hash is the MD5 of its bytes, as LLVM writes it,
 *       so a reader that inflates it finds nothing wrong but its size.
 *
 *   make_bombs nest DEPTH FANOUT OUT [LEAF]
 *       Binary bundles nested DEPTH deep: each one's FANOUT entries all
 *       point at the same inner bundle, the innermost one's at the same
 *       LEAF bytes (16): FANOUT^DEPTH images in a file of a few KiB; or,
 *       one deep, FANOUT images of LEAF bytes in a file of one.
 *
 * Both are written by hand from the formats (docs/format.md; RFC 8878
 * for the zstd frame), so that no compressor is asked to make them. */
#include <md5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- seq ---- */

static const char host_id[] = "host-x86_64-unknown-linux-gnu-";
static const char hip_id[] = "hip-amdgcn-amd-amdhsa--gfx90a";

/* The binary bundle's header: two entries, the host's empty, the HIP
 * one holding everything after the header (size bytes in all). */
static size_t bundle_header(uint8_t *h, uint64_t size)
{
	size_t n = 24 + 8 + 2 * 24 + strlen(host_id) + strlen(hip_id), at = 32;

	memcpy(h, "__CLANG_OFFLOAD_BUNDLE__", 24);
	le(h + 24, 2, 8);
	le(h + at, n, 8), le(h + at + 8, 0, 8), le(h + at + 16, strlen(host_id), 8);
	memcpy(h + at + 24, host_id, strlen(host_id));
	at += 24 + strlen(host_id);
	le(h + at, n, 8), le(h + at + 8, size - n, 8), le(h + at + 16, strlen(hip_id), 8);
	memcpy(h + at + 24, hip_id, strlen(hip_id));
	return n;
}

/* A zstd block header: last flag, type (0 raw, 1 RLE), size. */
static void block(FILE *f, int last, int type, uint32_t size)
{
	uint32_t v = (uint32_t)last | (uint32_t)type << 1 | size << 3;

	fputc((int)(v & 0xff), f), fputc((int)(v >> 8 & 0xff), f), fputc((int)(v >> 16), f);
}

#define BLOCK_MAX (128u << 10)

/* The stream of `size` bytes, its header first, then zeros: raw blocks
 * up to `stored` bytes, RLE blocks after.  Into f; its length returned. */
static long stream(FILE *f, const uint8_t *hdr, size_t nhdr, uint64_t size, uint64_t stored)
{
	static const uint8_t zeros[BLOCK_MAX];
	long start = ftell(f);
	uint64_t done = 0;

	fputc(0x28, f), fputc(0xb5, f), fputc(0x2f, f), fputc(0xfd, f);
	fputc(0x00, f); /* no content size, no checksum, a window descriptor */
	fputc(0x50, f); /* a 1 MiB window */
	uint64_t raw_end = stored > nhdr ? stored : nhdr;

	while (done < size) {
		uint64_t left = size - done;
		int raw = done < raw_end;
		uint32_t n = (uint32_t)(left < BLOCK_MAX ? left : BLOCK_MAX);

		if (raw && raw_end - done < n)
			n = (uint32_t)(raw_end - done);
		block(f, done + n == size, raw ? 0 : 1, n);
		if (!raw) {
			fputc(0, f);
		} else {
			/* (the header's bytes where this block covers them) */
			uint32_t from_hdr = done < nhdr ? (uint32_t)(nhdr - done < n ? nhdr - done : n) : 0;

			fwrite(hdr + done, 1, from_hdr, f);
			fwrite(zeros, 1, n - from_hdr, f);
		}
		done += n;
	}
	return ftell(f) - start;
}

static void md5_of(const uint8_t *hdr, size_t nhdr, uint64_t size, uint8_t out[16])
{
	static const uint8_t zeros[1 << 16];
	MD5_CTX c;

	MD5Init(&c);
	MD5Update(&c, hdr, nhdr);
	for (uint64_t left = size - nhdr; left;) {
		size_t n = left < sizeof(zeros) ? (size_t)left : sizeof(zeros);

		MD5Update(&c, zeros, n);
		left -= n;
	}
	MD5Final(out, &c);
}

static int seq(unsigned n, uint64_t size, uint64_t stored, const char *out)
{
	uint8_t hdr[256], head[32], md5[16];
	size_t nhdr = bundle_header(hdr, size);
	FILE *f = fopen(out, "wb+");

	if (!f || size < nhdr)
		return 1;
	md5_of(hdr, nhdr, size, md5);
	for (unsigned i = 0; i < n; i++) {
		long at = ftell(f), len;

		fwrite(head, 1, sizeof(head), f); /* filled in below */
		len = stream(f, hdr, nhdr, size, stored);
		memcpy(head, "CCOB", 4);
		le(head + 4, 3, 2), le(head + 6, 1, 2);
		le(head + 8, (uint64_t)len + 32, 8);
		le(head + 16, size, 8);
		memcpy(head + 24, md5, 8);
		fseek(f, at, SEEK_SET);
		fwrite(head, 1, sizeof(head), f);
		fseek(f, 0, SEEK_END);
	}
	return fclose(f) == 0 ? 0 : 1;
}

/* ---- nest ---- */

static int nest(unsigned depth, unsigned fanout, size_t leaf, const char *out)
{
	uint8_t *inner = malloc(leaf), *outer;
	size_t n = leaf;
	FILE *f;

	if (!inner)
		return 1;
	memset(inner, 'x', leaf);
	for (unsigned level = 0; level < depth; level++) {
		unsigned entries = fanout;
		size_t hsize = 32, at = 32;
		char id[64];

		for (unsigned e = 0; e < entries; e++)
			hsize += 24 + (size_t)snprintf(id, sizeof(id), "openmp-x86_64-unknown-linux-gnu-l%ue%u", level, e);
		if (!(outer = malloc(hsize + n)))
			return 1;
		memcpy(outer, "__CLANG_OFFLOAD_BUNDLE__", 24);
		le(outer + 24, entries, 8);
		for (unsigned e = 0; e < entries; e++) {
			int len = snprintf(id, sizeof(id), "openmp-x86_64-unknown-linux-gnu-l%ue%u", level, e);

			le(outer + at, hsize, 8), le(outer + at + 8, n, 8), le(outer + at + 16, (uint64_t)len, 8);
			memcpy(outer + at + 24, id, (size_t)len);
			at += 24 + (size_t)len;
		}
		memcpy(outer + hsize, inner, n);
		free(inner);
		inner = outer;
		n += hsize;
	}
	if (!(f = fopen(out, "wb")) || fwrite(inner, 1, n, f) != n) {
		free(inner);
		return 1;
	}
	free(inner);
	return fclose(f) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "seq"))
		return seq((unsigned)strtoul(argv[2], NULL, 10), strtoull(argv[3], NULL, 10),
			   strtoull(argv[4], NULL, 10), argv[5]);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "nest"))
		return nest((unsigned)strtoul(argv[2], NULL, 10), (unsigned)strtoul(argv[3], NULL, 10),
			    argc == 6 ? strtoul(argv[5], NULL, 10) : 16, argv[4]);
	fprintf(stderr, "usage: make_bombs seq N SIZE STORED OUT | "
		"make_bombs nest DEPTH FANOUT OUT [LEAF]\n");
	return 2;
}
