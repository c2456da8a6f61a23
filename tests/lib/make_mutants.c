/* make_mutants KIND SEED OUTDIR COUNT [RNG-SEED]
 *
 * The hostile-input suite's generator (issue 9): COUNT mutants of a real
 * input, each broken in one way that a correct reader must reject --
 * never a mutation that may leave the input valid by luck -- written to
 * OUTDIR/<kind>-<n>.<ext>, and OUTDIR/MANIFEST with "<file>|<mutation>"
 * per mutant.  The random generator's seed is printed so a failing
 * mutant can be made again.
 *
 *   object   an ELF relocatable from clang with one offload binary in
 *            .llvm.offloading: the ELF header and section table, the
 *            section's place and size, every field of the offload binary
 *            (magic, version, sizes, offsets, counts, strings), cuts.
 *   archive  the object in a static archive: the object's mutations in a
 *            member, and the archive's own (cuts, header magic, size
 *            field, long names, symbol index).
 *   bundle   a binary offload bundle: entry count, offsets, sizes and ID
 *            lengths out of bounds or wrapping, cuts.
 *   ccob     a compressed bundle (v2 or v3): version, method, total and
 *            uncompressed sizes, cuts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/le.h"

static uint64_t rng;

/* splitmix64 */
static uint64_t next(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A value in [lo, hi] (hi >= lo). */
static uint64_t between(uint64_t lo, uint64_t hi)
{
	return hi - lo == UINT64_MAX ? next() : lo + next() % (hi - lo + 1);
}


/* A value past limit: just past it, far past it, or one that wraps when
 * a small offset is added. */
static uint64_t past(uint64_t limit)
{
	switch (next() % 4) {
	case 0: return limit + 1 + next() % 64;
	case 1: return limit + 1 + next() % (1ull << 32);
	case 2: return UINT64_MAX - next() % 64;
	default: return (1ull << 63) + next() % 1024;
	}
}

struct buf {
	uint8_t *p;
	size_t n;
};

static struct buf load(const char *path)
{
	struct buf b = { NULL, 0 };
	FILE *f = fopen(path, "rb");
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
	    !(b.p = malloc((size_t)len)) || fread(b.p, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "make_mutants: cannot read %s\n", path);
		exit(2);
	}
	fclose(f);
	b.n = (size_t)len;
	return b;
}

static struct buf copy(struct buf s)
{
	struct buf b = { malloc(s.n + 1), s.n };

	if (!b.p)
		exit(2);
	memcpy(b.p, s.p, s.n);
	return b;
}

static const char *outdir, *kind_name;
static FILE *manifest;
static unsigned written;

static void emit(struct buf b, const char *ext, const char *what)
{
	char path[4096], name[256];
	FILE *f;

	snprintf(name, sizeof(name), "%s-%03u.%s", kind_name, written++, ext);
	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	if (!(f = fopen(path, "wb")) || (b.n && fwrite(b.p, 1, b.n, f) != b.n) || fclose(f)) {
		fprintf(stderr, "make_mutants: cannot write %s\n", path);
		exit(2);
	}
	fprintf(manifest, "%s|%s\n", name, what);
	free(b.p);
}

/* ---- ELF objects ---- */

struct elf {
	size_t shoff, shnum, shstrndx;
	size_t sect_hdr;          /* file offset of .llvm.offloading's header */
	size_t off, size;         /* its contents */
};

static struct elf parse_elf(struct buf b)
{
	struct elf e;
	size_t strtab;

	e.shoff = ol_le_n(b.p + 0x28, 8);
	e.shnum = ol_le_n(b.p + 0x3c, 2);
	e.shstrndx = ol_le_n(b.p + 0x3e, 2);
	strtab = ol_le_n(b.p + e.shoff + 64 * e.shstrndx + 0x18, 8);
	for (size_t i = 1; i < e.shnum; i++) {
		const uint8_t *sh = b.p + e.shoff + 64 * i;

		if (strcmp((const char *)b.p + strtab + ol_le_n(sh, 4), ".llvm.offloading") == 0) {
			e.sect_hdr = e.shoff + 64 * i;
			e.off = ol_le_n(sh + 0x18, 8);
			e.size = ol_le_n(sh + 0x20, 8);
			return e;
		}
	}
	fprintf(stderr, "make_mutants: the seed object has no .llvm.offloading\n");
	exit(2);
}

/* Offload binary v1 fields, at the start of the section. */
enum {
	OB_VERSION = 4, OB_SIZE = 8, OB_ENTRY_OFF = 16, OB_ENTRY_SIZE = 24,
	EN_STR_OFF = 8, EN_NSTR = 16, EN_IMG_OFF = 24, EN_IMG_SIZE = 32,
};

/* One mutation of the object; what it did goes to *what. */
static struct buf mutate_object(struct buf seed, char *what, size_t len)
{
	struct buf b = copy(seed);
	struct elf e = parse_elf(b);
	uint8_t *ob = b.p + e.off;
	uint64_t size = ol_le_n(ob + OB_SIZE, 8), entry = ol_le_n(ob + OB_ENTRY_OFF, 8);
	uint8_t *en = ob + entry;
	uint64_t v;

	switch (next() % 16) {
	case 0:
		b.n = (size_t)between(64, seed.n - 1);
		snprintf(what, len, "file cut to %zu bytes", b.n);
		break;
	case 1:
		ol_put_le_n(b.p + 0x28, 8, v = past(seed.n));
		snprintf(what, len, "e_shoff %llu, past the end", (unsigned long long)v);
		break;
	case 2:
		ol_put_le_n(b.p + 0x3e, 2, v = between(e.shnum, 0xfeff));
		snprintf(what, len, "e_shstrndx %llu of %zu sections", (unsigned long long)v, e.shnum);
		break;
	case 3:
		ol_put_le_n(b.p + e.sect_hdr + 0x18, 8, v = past(seed.n - e.size));
		snprintf(what, len, "section offset %llu, past the end", (unsigned long long)v);
		break;
	case 4:
		ol_put_le_n(b.p + e.sect_hdr + 0x20, 8, v = past(seed.n - e.off));
		snprintf(what, len, "section size %llu, past the end", (unsigned long long)v);
		break;
	case 5:
		ol_put_le_n(b.p + e.sect_hdr + 0x20, 8, v = between(1, e.size - 1));
		snprintf(what, len, "section cut to %llu of its %zu bytes", (unsigned long long)v, e.size);
		break;
	case 6:
		v = between(0, 3);
		ob[v] ^= (uint8_t)between(1, 255);
		snprintf(what, len, "magic byte %llu changed", (unsigned long long)v);
		break;
	case 7:
		ol_put_le_n(ob + OB_VERSION, 4, v = next() % 2 ? 0 : between(4, UINT32_MAX));
		snprintf(what, len, "binary version %llu", (unsigned long long)v);
		break;
	case 8:
		ol_put_le_n(ob + OB_SIZE, 8, v = next() % 2 ? between(0, 31) : past(e.size));
		snprintf(what, len, "binary size %llu (section %zu)", (unsigned long long)v, e.size);
		break;
	case 9:
		ol_put_le_n(ob + OB_ENTRY_OFF, 8, v = past(size));
		snprintf(what, len, "entry offset %llu", (unsigned long long)v);
		break;
	case 10:
		ol_put_le_n(ob + OB_ENTRY_SIZE, 8, v = past(size - entry));
		snprintf(what, len, "entry size %llu", (unsigned long long)v);
		break;
	case 11:
		ol_put_le_n(en + EN_STR_OFF, 8, v = past(size));
		snprintf(what, len, "string table offset %llu", (unsigned long long)v);
		break;
	case 12:
		ol_put_le_n(en + EN_NSTR, 8, v = past(size / 16));
		snprintf(what, len, "%llu strings", (unsigned long long)v);
		break;
	case 13:
		ol_put_le_n(en + EN_IMG_OFF, 8, v = past(size));
		snprintf(what, len, "image offset %llu", (unsigned long long)v);
		break;
	case 14:
		ol_put_le_n(en + EN_IMG_SIZE, 8, v = past(size - ol_le_n(en + EN_IMG_OFF, 8)));
		snprintf(what, len, "image size %llu", (unsigned long long)v);
		break;
	default: {
		/* The last string's value made the binary's last byte, with no
		 * NUL after it. */
		uint8_t *strs = ob + ol_le_n(en + EN_STR_OFF, 8);
		uint64_t nstr = ol_le_n(en + EN_NSTR, 8);

		ol_put_le_n(strs + 16 * (nstr - 1) + 8, 8, size - 1);
		ob[size - 1] = 'A';
		snprintf(what, len, "string value without its NUL");
		break;
	}
	}
	return b;
}

/* ---- archives ---- */

static void ar_header(struct buf *a, size_t *at, const char *name, uint64_t size)
{
	char h[61];

	snprintf(h, sizeof(h), "%-16s%-12s%-6s%-6s%-8s%-10llu`\n", name, "0", "0", "0",
		 "644", (unsigned long long)size);
	memcpy(a->p + *at, h, 60);
	*at += 60;
}

/* "!<arch>\n", a long-name table, a symbol index naming the member, and
 * the member k.o holding body. */
static struct buf archive_of(struct buf body)
{
	static const char names[] = "long-member-name-over-16.o/\n";
	uint8_t index[4 + 4 + 8];
	struct buf a = { malloc(8 + 3 * 60 + sizeof(index) + sizeof(names) + body.n + 2), 0 };
	size_t at = 8, member_at;

	if (!a.p)
		exit(2);
	memcpy(a.p, "!<arch>\n", 8);
	member_at = 8 + 60 + sizeof(index) + 60 + (sizeof(names) - 1);
	member_at += member_at & 1;
	ol_put_le_n(index, 4, 0);
	index[0] = 0, index[1] = 0, index[2] = 0, index[3] = 1;   /* count 1, big-endian */
	index[4] = (uint8_t)(member_at >> 24), index[5] = (uint8_t)(member_at >> 16);
	index[6] = (uint8_t)(member_at >> 8), index[7] = (uint8_t)member_at;
	memcpy(index + 8, "entry\0\0", 8);
	ar_header(&a, &at, "/", sizeof(index));
	memcpy(a.p + at, index, sizeof(index));
	at += sizeof(index);
	ar_header(&a, &at, "//", sizeof(names) - 1);
	memcpy(a.p + at, names, sizeof(names) - 1);
	at += sizeof(names) - 1;
	if (at & 1)
		a.p[at++] = '\n';
	ar_header(&a, &at, "/0", body.n);
	memcpy(a.p + at, body.p, body.n);
	at += body.n;
	if (at & 1)
		a.p[at++] = '\n';
	a.n = at;
	return a;
}

static struct buf mutate_archive(struct buf seed, char *what, size_t len)
{
	struct buf obj, a;
	size_t member_hdr;
	uint64_t v;
	int m = (int)(next() % 8);

	if (m < 3) {
		/* a broken object as the member */
		char inner[200];

		obj = mutate_object(seed, inner, sizeof(inner));
		a = archive_of(obj);
		free(obj.p);
		snprintf(what, len, "member: %s", inner);
		return a;
	}
	a = archive_of(seed);
	member_hdr = a.n - seed.n - (seed.n & 1) - 60;
	switch (m) {
	case 3:
		a.n = (size_t)between(member_hdr + 60, a.n - 1 - (seed.n & 1));
		snprintf(what, len, "archive cut inside the member, at %zu", a.n);
		break;
	case 4:
		a.p[member_hdr + 58 + next() % 2] = (uint8_t)between('a', 'z');
		snprintf(what, len, "member header magic changed");
		break;
	case 5:
		v = next() % 2;
		memcpy(a.p + member_hdr + 48, v ? "9999999999" : "12x4      ", 10);
		snprintf(what, len, "member size field %s", v ? "past the end" : "not a number");
		break;
	case 6:
		memcpy(a.p + member_hdr, "/99999          ", 16);
		snprintf(what, len, "long name outside the name table");
		break;
	default:
		/* the index: a count that cannot fit */
		ol_put_le_n(a.p + 8 + 60, 4, 0);
		a.p[8 + 60] = 0x7f;
		snprintf(what, len, "symbol index count 2^30 and more");
		break;
	}
	return a;
}

/* ---- bundles ---- */

enum { BUNDLE_MAGIC = 24 };

static struct buf mutate_bundle(struct buf seed, char *what, size_t len)
{
	struct buf b = copy(seed);
	uint64_t count = ol_le_n(b.p + BUNDLE_MAGIC, 8), end = 0, v;
	size_t at = BUNDLE_MAGIC + 8, pick = (size_t)(next() % count), picked_at = 0;

	for (size_t i = 0; i < count; i++) {
		uint64_t off = ol_le_n(b.p + at, 8), size = ol_le_n(b.p + at + 8, 8);

		if (off + size > end)
			end = off + size;
		if (i == pick)
			picked_at = at;
		at += 24 + ol_le_n(b.p + at + 16, 8);
	}
	switch (next() % 7) {
	case 0:
		ol_put_le_n(b.p + BUNDLE_MAGIC, 8, v = next() % 2 ? 0 : past(seed.n));
		snprintf(what, len, "%llu entries", (unsigned long long)v);
		break;
	case 1:
		ol_put_le_n(b.p + picked_at, 8, v = past(seed.n));
		snprintf(what, len, "entry %zu offset %llu", pick, (unsigned long long)v);
		break;
	case 2:
		ol_put_le_n(b.p + picked_at + 8, 8, v = past(seed.n - ol_le_n(b.p + picked_at, 8)));
		snprintf(what, len, "entry %zu size %llu", pick, (unsigned long long)v);
		break;
	case 3:
		ol_put_le_n(b.p + picked_at, 8, UINT64_MAX - 7);
		ol_put_le_n(b.p + picked_at + 8, 8, 16);
		snprintf(what, len, "entry %zu offset + size wraps", pick);
		break;
	case 4:
		ol_put_le_n(b.p + picked_at + 16, 8, v = next() % 2 ? 0 : past(seed.n));
		snprintf(what, len, "entry %zu ID length %llu", pick, (unsigned long long)v);
		break;
	case 5:
		b.n = (size_t)between(BUNDLE_MAGIC + 8, end - 1);
		snprintf(what, len, "bundle cut to %zu bytes", b.n);
		break;
	default:
		b.n = (size_t)between(BUNDLE_MAGIC, BUNDLE_MAGIC + 7);
		snprintf(what, len, "bundle cut inside the entry count, at %zu", b.n);
		break;
	}
	return b;
}

/* ---- compressed bundles ---- */

static struct buf mutate_ccob(struct buf seed, char *what, size_t len)
{
	struct buf b = copy(seed);
	unsigned version = (unsigned)ol_le_n(b.p + 4, 2);
	size_t total_at = 8, size_at = version == 2 ? 12 : 16, w = version == 2 ? 4 : 8;
	uint64_t v, usize = ol_le_n(b.p + size_at, (int)w);

	switch (next() % 5) {
	case 0:
		ol_put_le_n(b.p + 4, 2, v = next() % 2 ? 0 : between(4, 0xffff));
		snprintf(what, len, "version %llu", (unsigned long long)v);
		break;
	case 1:
		ol_put_le_n(b.p + 6, 2, v = between(2, 0xffff));
		snprintf(what, len, "compression method %llu", (unsigned long long)v);
		break;
	case 2:
		do
			v = next() % 2 ? between(0, seed.n * 2) : next() >> (w == 4 ? 32 : 0);
		while (v == seed.n);
		ol_put_le_n(b.p + total_at, (int)w, v);
		snprintf(what, len, "total size %llu, the file has %zu", (unsigned long long)v, seed.n);
		break;
	case 3:
		do
			v = next() % 2 ? between(0, usize * 2) : next() >> (w == 4 ? 32 : 0);
		while (v == usize);
		ol_put_le_n(b.p + size_at, (int)w, v);
		snprintf(what, len, "uncompressed size %llu, really %llu", (unsigned long long)v,
			 (unsigned long long)usize);
		break;
	default:
		b.n = (size_t)between(0, seed.n - 1);
		snprintf(what, len, "cut to %zu bytes", b.n);
		break;
	}
	return b;
}

int main(int argc, char **argv)
{
	char path[4096], what[256];
	struct buf seed;
	unsigned count;

	if (argc < 5) {
		fprintf(stderr, "usage: make_mutants object|archive|bundle|ccob SEED OUTDIR COUNT [RNG-SEED]\n");
		return 2;
	}
	kind_name = argv[1];
	seed = load(argv[2]);
	outdir = argv[3];
	count = (unsigned)strtoul(argv[4], NULL, 10);
	rng = argc > 5 ? strtoull(argv[5], NULL, 0) : 0x0ff11e5eedull;
	printf("make_mutants %s: %u mutants of %s, rng seed 0x%llx\n", kind_name, count,
	       argv[2], (unsigned long long)rng);
	snprintf(path, sizeof(path), "%s/MANIFEST", outdir);
	if (!(manifest = fopen(path, "a")))
		return 2;
	for (unsigned i = 0; i < count; i++) {
		struct buf b;
		const char *ext;

		if (strcmp(kind_name, "object") == 0)
			b = mutate_object(seed, what, sizeof(what)), ext = "o";
		else if (strcmp(kind_name, "archive") == 0)
			b = mutate_archive(seed, what, sizeof(what)), ext = "a";
		else if (strcmp(kind_name, "bundle") == 0)
			b = mutate_bundle(seed, what, sizeof(what)), ext = "bc";
		else if (strncmp(kind_name, "ccob", 4) == 0)
			b = mutate_ccob(seed, what, sizeof(what)), ext = "ccob";
		else
			return 2;
		emit(b, ext, what);
	}
	free(seed.p);
	return fclose(manifest) == 0 ? 0 : 2;
}
