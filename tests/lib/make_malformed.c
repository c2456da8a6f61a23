/* make_malformed DIR: write the malformed offload binaries of the test
 * corpus into DIR, and DIR/MANIFEST with one line per case:
 *   <file>|<text the error message must contain>
 *
 * Every case starts from a valid binary built here (independently of
 * offlink's encoder) and breaks one thing: a cut at every field, a bad
 * magic or version, offsets and sizes past the end or overflowing, strings
 * without their NUL, zero or huge counts, bad compressed payloads, junk
 * after the last binary.  tests/cli/malformed.sh wraps some of them in ELF
 * objects and archives as well. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char *dir;
static FILE *manifest;

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void emit(const char *name, const uint8_t *p, size_t len,
		 const char *expect)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || (len && fwrite(p, 1, len, f) != len) || fclose(f)) {
		perror(path);
		exit(1);
	}
	fprintf(manifest, "%s|%s\n", name, expect);
}

/* A valid version 1 binary with strings arch=sm_90, triple=nvptx64-...,
 * image "DEVICEIMAGE!":
 *   0 header | 32 entry | 72 two string entries | 104 strtab | image */
enum { V1_STRINGS = 72, V1_STRTAB = 104 };
static const char strtab[] = "\0arch\0sm_90\0triple\0nvptx64-nvidia-cuda";
static const char image[] = "DEVICEIMAGE!";

static size_t valid_v1(uint8_t *b)
{
	size_t strtab_len = sizeof(strtab); /* includes the final NUL */
	size_t image_off = (V1_STRTAB + strtab_len + 7) & ~(size_t)7;
	size_t total = (image_off + sizeof(image) - 1 + 7) & ~(size_t)7;

	memset(b, 0, total);
	memcpy(b, "\x10\xff\x10\xad", 4);
	put32(b + 4, 1);
	put64(b + 8, total);
	put64(b + 16, 32);
	put64(b + 24, 40);
	b[32] = 1; /* IMG_Object */
	b[34] = 2; /* OFK_Cuda */
	put64(b + 40, V1_STRINGS);
	put64(b + 48, 2);
	put64(b + 56, image_off);
	put64(b + 64, sizeof(image) - 1);
	put64(b + 72, V1_STRTAB + 1);  /* "arch" */
	put64(b + 80, V1_STRTAB + 6);  /* "sm_90" */
	put64(b + 88, V1_STRTAB + 12); /* "triple" */
	put64(b + 96, V1_STRTAB + 19); /* "nvptx64-nvidia-cuda" */
	memcpy(b + V1_STRTAB, strtab, strtab_len);
	memcpy(b + image_off, image, sizeof(image) - 1);
	return total;
}

static void truncations(void)
{
	/* One cut inside or at the start of every field. */
	static const struct { size_t at; const char *expect; } cuts[] = {
		{ 2, "not an offload binary" },        { 6, "field 'Version'" },
		{ 12, "field 'Size'" },        { 20, "field 'EntryOffset'" },
		{ 28, "field 'EntrySize'" },   { 32, "declares 160 bytes but only 32 remain" },
		{ 34, "but only 34 remain" },  { 38, "but only 38 remain" },
		{ 44, "but only 44 remain" },  { 52, "but only 52 remain" },
		{ 60, "but only 60 remain" },  { 68, "but only 68 remain" },
		{ 76, "but only 76 remain" },  { 92, "but only 92 remain" },
		{ 110, "but only 110 remain" },{ 150, "but only 150 remain" },
		{ 155, "but only 155 remain" },{ 159, "but only 159 remain" },
	};
	uint8_t b[256];
	char name[64];

	valid_v1(b);
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		snprintf(name, sizeof(name), "trunc_%03zu.bin", cuts[i].at);
		emit(name, b, cuts[i].at, cuts[i].expect);
	}
}

/* Valid binary with the 64-bit field at off replaced by v. */
static void field64(const char *name, size_t off, uint64_t v, const char *expect)
{
	uint8_t b[256];
	size_t n = valid_v1(b);

	put64(b + off, v);
	emit(name, b, n, expect);
}

static void bad_fields(void)
{
	uint8_t b[256];
	size_t n = valid_v1(b);

	b[3] = 0xae;
	emit("bad_magic.bin", b, n, "not an offload binary, ELF object or static archive");
	n = valid_v1(b);
	put32(b + 4, 0);
	emit("version_0.bin", b, n, "field 'Version': unsupported version");
	put32(b + 4, 4);
	emit("version_4.bin", b, n, "field 'Version': unsupported version: version 4");
	put32(b + 4, 0xffffffffu);
	emit("version_huge.bin", b, n, "unsupported version");

	field64("size_small.bin", 8, 8, "field 'Size': field holds an invalid value");
	field64("size_huge.bin", 8, UINT64_MAX, "field 'Size'");
	field64("size_past_end.bin", 8, 4096, "declares 4096 bytes but only 160 remain");
	field64("entry_offset_zero.bin", 16, 0, "field 'EntryOffset': field holds an invalid value");
	field64("entry_offset_past.bin", 16, 160, "field 'EntryOffset': offset or size outside");
	field64("entry_offset_huge.bin", 16, UINT64_MAX - 8, "field 'EntryOffset'");
	field64("entry_size_bad.bin", 24, 41, "field 'EntrySize'");
	field64("string_offset_past.bin", 40, 4096, "field 'StringOffset'");
	field64("num_strings_many.bin", 48, 1000, "field 'NumStrings'");
	field64("num_strings_huge.bin", 48, UINT64_MAX / 2, "field 'NumStrings'");
	field64("image_offset_past.bin", 56, 4096, "field 'ImageOffset'");
	field64("image_size_past.bin", 64, 4096, "field 'ImageSize'");
	field64("image_size_overflow.bin", 64, UINT64_MAX - 100, "field 'ImageSize'");
	field64("key_offset_past.bin", 72, 4096, "field 'KeyOffset'");
	field64("value_offset_past.bin", 80, 99999, "field 'ValueOffset'");
	field64("key_offset_overflow.bin", 88, UINT64_MAX, "field 'KeyOffset'");
}

static void unterminated(void)
{
	uint8_t b[256];
	size_t n = valid_v1(b);

	/* Point the last value at the image, then fill the tail with 'x'. */
	put64(b + 96, n - 4);
	memset(b + n - 4, 'x', 4);
	emit("value_unterminated.bin", b, n, "field 'ValueOffset': string is not NUL-terminated");
	n = valid_v1(b);
	put64(b + 88, n - 2);
	memset(b + n - 2, 'y', 2);
	emit("key_unterminated.bin", b, n, "field 'KeyOffset': string is not NUL-terminated");
}

/* A version 2 binary: 32 header, one 40-byte entry, no strings, image. */
static size_t valid_v2(uint8_t *b)
{
	memset(b, 0, 128);
	memcpy(b, "\x10\xff\x10\xad", 4);
	put32(b + 4, 2);
	put64(b + 8, 128);
	put64(b + 16, 32);
	put64(b + 24, 1);
	b[32] = 1;
	b[34] = 1;
	put64(b + 40, 72);
	put64(b + 48, 1);
	put64(b + 56, 112);
	put64(b + 64, 8);
	put64(b + 72, 100); /* key "k" */
	put64(b + 80, 102); /* value "v" */
	put64(b + 88, 1);
	b[100] = 'k';
	b[102] = 'v';
	memcpy(b + 112, "V2IMAGE!", 8);
	return 128;
}

static void versions_2_3(void)
{
	uint8_t b[512];
	size_t n = valid_v2(b);

	put64(b + 24, 0);
	emit("v2_zero_entries.bin", b, n, "binary declares no entries");
	n = valid_v2(b);
	put64(b + 24, UINT64_MAX / 40);
	emit("v2_entries_huge.bin", b, n, "field 'EntriesCount'");
	n = valid_v2(b);
	put64(b + 88, UINT64_MAX - 50);
	emit("v2_value_size_overflow.bin", b, n, "field 'ValueSize'");

	/* Version 3: 40-byte header, compressed body that is not zlib. */
	memset(b, 0, 96);
	memcpy(b, "\x10\xff\x10\xad", 4);
	put32(b + 4, 3);
	put64(b + 8, 56);
	put64(b + 16, 40);
	put64(b + 24, 1);
	put64(b + 32, 200);
	memset(b + 40, 0x5a, 16);
	emit("v3_corrupt_payload.bin", b, 56, "field 'compressed payload': compressed data is corrupt");
	put64(b + 32, 8);
	emit("v3_inflated_small.bin", b, 56, "field 'InflatedSize'");

	/* Version 3 whose zlib stream is fine but smaller than declared. */
	{
		uint8_t body[88], z[256];
		uLongf zlen = sizeof(z);

		memset(body, 0, sizeof(body));
		compress2(z, &zlen, body, sizeof(body), 6);
		memset(b, 0, 40);
		memcpy(b, "\x10\xff\x10\xad", 4);
		put32(b + 4, 3);
		put64(b + 8, 40 + zlen);
		put64(b + 16, 40);
		put64(b + 24, 1);
		put64(b + 32, (uint64_t)1 << 62);
		memcpy(b + 40, z, zlen);
		/* (refused from the header: more than a stream may inflate to) */
		emit("v3_inflated_huge.bin", b, 40 + zlen, "more than 2048 times as much");
		/* a size it could hold, but does not */
		put64(b + 32, 40 + sizeof(body) + 100);
		emit("v3_inflated_short.bin", b, 40 + zlen, "declared");
	}
}

static void concatenations(void)
{
	uint8_t b[512];
	size_t n = valid_v1(b);

	memcpy(b + n, "JUNKJUNK", 8);
	emit("trailing_junk.bin", b, n + 8, "trailing bytes after the last offload binary");
	n = valid_v1(b);
	valid_v1(b + n);
	emit("second_truncated.bin", b, n + 50, "offset 0xa8: field 'Size'");
	n = valid_v1(b);
	b[n] = 0x10;
	emit("trailing_byte.bin", b, n + 1, "trailing bytes");
}

int main(int argc, char **argv)
{
	char path[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: make_malformed DIR\n");
		return 2;
	}
	dir = argv[1];
	snprintf(path, sizeof(path), "%s/MANIFEST", dir);
	manifest = fopen(path, "w");
	if (!manifest) {
		perror(path);
		return 1;
	}
	emit("empty.bin", (const uint8_t *)"", 0, "the file is empty");
	truncations();
	bad_fields();
	unterminated();
	versions_2_3();
	concatenations();
	/* A valid binary too, which the wrappers in malformed.sh start from. */
	{
		uint8_t b[256];
		size_t n = valid_v1(b);
		char p2[4096];
		FILE *f;

		snprintf(p2, sizeof(p2), "%s/valid.bin.ok", dir);
		f = fopen(p2, "wb");
		if (!f || fwrite(b, 1, n, f) != n || fclose(f))
			return 1;
	}
	return fclose(manifest) ? 1 : 0;
}
