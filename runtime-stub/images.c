/* What an image is: its ELF machine and the architecture its flags name,
 * checked against the triple and arch its offload binary declares. */
#include "offstub.h"

#include "common/le.h"
#include "format/spirv_container.h"

#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EM_CUDA
#define EM_CUDA 190
#endif
#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif


/* EF_AMDGPU_MACH values of the processors offloading targets. */
static const struct { unsigned mach; const char *name; } amdgpu[] = {
	{ 0x2c, "gfx900" }, { 0x2d, "gfx902" }, { 0x2e, "gfx904" }, { 0x2f, "gfx906" },
	{ 0x30, "gfx908" }, { 0x31, "gfx909" }, { 0x32, "gfx90c" }, { 0x3f, "gfx90a" },
	{ 0x40, "gfx940" }, { 0x4b, "gfx941" }, { 0x4c, "gfx942" }, { 0x33, "gfx1010" },
	{ 0x34, "gfx1011" }, { 0x35, "gfx1012" }, { 0x42, "gfx1013" }, { 0x36, "gfx1030" },
	{ 0x37, "gfx1031" }, { 0x38, "gfx1032" }, { 0x39, "gfx1033" }, { 0x3e, "gfx1034" },
	{ 0x3d, "gfx1035" }, { 0x45, "gfx1036" }, { 0x41, "gfx1100" }, { 0x46, "gfx1101" },
	{ 0x47, "gfx1102" }, { 0x44, "gfx1103" }, { 0x43, "gfx1150" }, { 0x4a, "gfx1151" },
	{ 0x55, "gfx1152" }, { 0x48, "gfx1200" }, { 0x4e, "gfx1201" }, { 0x22, "gfx700" },
	{ 0x23, "gfx701" }, { 0x28, "gfx801" }, { 0x2a, "gfx803" },
};

static char arch_buf[64];

static const char *amdgpu_arch(unsigned flags)
{
	static const char *const v[] = { "", "", ":xnack-", ":xnack+" };
	static const char *const s[] = { "", "", ":sramecc-", ":sramecc+" };

	for (size_t i = 0; i < sizeof(amdgpu) / sizeof(amdgpu[0]); i++)
		if (amdgpu[i].mach == (flags & 0xff)) {
			snprintf(arch_buf, sizeof(arch_buf), "%s%s%s", amdgpu[i].name,
				 s[(flags >> 10) & 3], v[(flags >> 8) & 3]);
			return arch_buf;
		}
	snprintf(arch_buf, sizeof(arch_buf), "gfx?(mach 0x%x)", flags & 0xff);
	return arch_buf;
}

/* CUDA cubins name their SM in e_flags: ABI version 8 (CUDA 12.x on) in
 * bits 8-15, older ones in the low byte. */
static const char *cuda_arch(const uint8_t *p, unsigned flags)
{
	unsigned sm = p[EI_ABIVERSION] >= 8 ? (flags >> 8) & 0xff : flags & 0xff;

	snprintf(arch_buf, sizeof(arch_buf), "sm_%u", sm);
	return arch_buf;
}

static unsigned machine_for_triple(const char *t)
{
	if (!t || !*t)
		return 0;
	if (!strncmp(t, "nvptx", 5))
		return EM_CUDA;
	if (!strncmp(t, "amdgcn", 6))
		return EM_AMDGPU;
	if (!strncmp(t, "x86_64", 6))
		return EM_X86_64;
	if (!strncmp(t, "aarch64", 7))
		return EM_AARCH64;
	if (!strncmp(t, "ppc64", 5) || !strncmp(t, "powerpc64", 9))
		return EM_PPC64;
	if (!strncmp(t, "spirv", 5))
		return OL_EM_INTELGT;
	return 0;
}

/* The processor part of a target ID ("gfx90a:xnack+" -> "gfx90a"). */
static int same_processor(const char *a, const char *b)
{
	size_t n = strcspn(a, ":"), m = strcspn(b, ":");

	return n == m && strncmp(a, b, n) == 0;
}

const char *image_arch(const void *start, size_t size, const char *triple,
		       const char *declared, unsigned *machine, unsigned *flags)
{
	const uint8_t *p = start;
	const char *arch;
	unsigned want;

	if (size < sizeof(Elf64_Ehdr) || memcmp(p, ELFMAG, SELFMAG) != 0)
		return NULL; /* bitcode for JIT, PTX, ... */
	if (p[EI_CLASS] != ELFCLASS64)
		stub_fail("image", "a 32-bit ELF image");
	*machine = ol_le16(p + 18);
	*flags = ol_le32(p + 48);
	if (*machine == EM_CUDA)
		arch = cuda_arch(p, *flags);
	else if (*machine == EM_AMDGPU)
		arch = amdgpu_arch(*flags);
	else if (*machine == OL_EM_INTELGT)
		arch = declared ? declared : ""; /* the container names none */
	else
		arch = "";
	want = machine_for_triple(triple);
	if (want && want != *machine)
		stub_fail("image", "ELF machine %u in an image for %s", *machine, triple);
	if (declared && *declared && *arch && !same_processor(arch, declared))
		stub_fail("image", "ELF code for %s in an image declared %s", arch, declared);
	return arch;
}

uint64_t image_digest(const void *start, size_t size)
{
	const uint8_t *p = start;
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */

	for (size_t i = 0; i < size; i++)
		h = (h ^ p[i]) * 0x100000001b3u;
	return h;
}

/* ---- the offload binary around an image ---- */

struct segment_query {
	uintptr_t addr, start, end;
	int found;
};

static int find_segment(struct dl_phdr_info *info, size_t n, void *ctx)
{
	struct segment_query *q = ctx;

	(void)n;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && q->addr >= lo && q->addr < lo + ph->p_memsz) {
			q->start = lo;
			q->end = lo + ph->p_memsz;
			q->found = 1;
			return 1;
		}
	}
	return 0;
}

/* An offload binary's header: version v, total size, where its n
 * 40-byte entries start. */
struct bin_head {
	uint32_t v;
	uint64_t total, eoff, n;
};

/* The header of the uncompressed offload binary at b, whose bytes may
 * run up to room: 1 when it is one, -1 when it is one whose entries do
 * not fit, 0 when it is none.  (A version 3 binary with an InflatedSize
 * is compressed: no image lies in it.) */
static int read_head(const uint8_t *b, uint64_t room, struct bin_head *h)
{
	if (room < 48 || memcmp(b, "\x10\xff\x10\xad", 4) != 0)
		return 0;
	h->v = ol_le32(b + 4);
	h->total = ol_le64(b + 8);
	h->eoff = ol_le64(b + 16);
	h->n = h->v == 1 ? 1 : ol_le64(b + 24);
	if (h->v < 1 || h->v > 3 || (h->v == 3 && ol_le64(b + 32) != 0) || h->total > room)
		return 0;
	return h->eoff <= h->total && h->n <= (h->total - h->eoff) / 40 ? 1 : -1;
}

/* The NUL-terminated string at offset off of binary b (size bytes), or
 * NULL when it does not end inside the binary. */
static const char *binary_string(const uint8_t *b, uint64_t size, uint64_t off)
{
	const uint8_t *nul;

	if (off >= size)
		return NULL;
	nul = memchr(b + off, 0, (size_t)(size - off));
	return nul ? (const char *)b + off : NULL;
}

/* String `want` of entry e of binary b: its value's bytes and their
 * number (versions 2 and 3 store it: a SYCL image's "symbols" holds NULs;
 * version 1's is up to its NUL), or 0 when it has none. */
static int entry_value(const uint8_t *b, const struct bin_head *h, const uint8_t *e,
		       const char *want, const uint8_t **p, uint64_t *len)
{
	uint64_t so = ol_le64(e + 8), n = ol_le64(e + 16), es = h->v == 1 ? 16 : 24;

	if (so > h->total || n > (h->total - so) / es)
		return 0;
	for (uint64_t s = 0; s < n && s < 64; s++) {
		const uint8_t *se = b + so + es * s;
		const char *key = binary_string(b, h->total, ol_le64(se));
		uint64_t at = ol_le64(se + 8);

		if (!key || strcmp(key, want) != 0 || at > h->total)
			continue;
		*p = b + at;
		if (h->v == 1)
			return binary_string(b, h->total, at) && (*len = strlen((const char *)*p), 1);
		*len = ol_le64(se + 16);
		return *len <= h->total - at;
	}
	return 0;
}

/* The value of string `want` of entry e as a C string, into *out: one
 * that ends at the size it declares. */
static void entry_string(const uint8_t *b, const struct bin_head *h, const uint8_t *e,
			 const char *want, const char **out)
{
	const uint8_t *p;
	uint64_t len;

	if (entry_value(b, h, e, want, &p, &len) && len < h->total - (uint64_t)(p - b) && !p[len] &&
	    !memchr(p, 0, (size_t)len))
		*out = (const char *)p;
}

int binary_entries(const void *start, size_t size, struct binary_entry *out, size_t max)
{
	const uint8_t *b = start;
	struct bin_head h;

	if (read_head(b, size, &h) != 1 || h.n > max)
		return -1;
	for (uint64_t i = 0; i < h.n; i++) {
		const uint8_t *e = b + h.eoff + 40 * i;
		struct binary_entry *o = &out[i];
		uint64_t at = ol_le64(e + 24), len = ol_le64(e + 32);

		if (at > h.total || len > h.total - at)
			return -1;
		memset(o, 0, sizeof(*o));
		o->image_kind = ol_le16(e);
		o->offload_kind = ol_le16(e + 2);
		o->image = b + at;
		o->image_size = len;
		entry_string(b, &h, e, "triple", &o->triple);
		entry_string(b, &h, e, "arch", &o->arch);
		if (h.v != 1)
			entry_value(b, &h, e, "symbols", &o->symbols, &o->symbols_len);
	}
	return (int)h.n;
}

/* Whether the offload binary at b (inside [b, limit)) holds the image
 * [start, start + size) as one of its entries; its triple and arch. */
static int binary_holds(const uint8_t *b, uintptr_t limit, const void *start, size_t size,
			const char **triple, const char **arch)
{
	uint64_t at = (uintptr_t)start - (uintptr_t)b;
	struct bin_head h;

	if (read_head(b, limit - (uintptr_t)b, &h) != 1)
		return 0;
	for (uint64_t i = 0; i < h.n; i++) {
		const uint8_t *e = b + h.eoff + 40 * i;

		if (ol_le64(e + 24) == at && ol_le64(e + 32) == size && at + size <= h.total) {
			entry_string(b, &h, e, "triple", triple);
			entry_string(b, &h, e, "arch", arch);
			return 1;
		}
	}
	return 0;
}

int enclosing_binary(const void *start, size_t size, const char **triple,
		     const char **arch)
{
	struct segment_query q = { (uintptr_t)start, 0, 0, 0 };
	uintptr_t first;

	*triple = *arch = NULL;
	dl_iterate_phdr(find_segment, &q);
	if (!q.found)
		return 0;
	/* A binary starts 8-aligned (its section is, and every binary's size
	 * is a multiple of 8), its first image after a short header.  The
	 * images of a version 2 or 3 binary follow each other unaligned, so
	 * a later one's header is as far back as the images before it reach:
	 * look back at most 64 MiB (a registration wraps each image in a
	 * binary of its own: a few hundred bytes), never before the
	 * segment. */
	first = ((uintptr_t)start & ~(uintptr_t)7);
	for (uintptr_t b = first == (uintptr_t)start ? first - 8 : first;
	     b >= q.start && (uintptr_t)start - b <= ((uintptr_t)64 << 20); b -= 8) {
		if (binary_holds((const uint8_t *)b, q.end, start, size, triple, arch))
			return 1;
		if (b < 8)
			break;
	}
	return 0;
}

/* ---- SPIR-V images ---- */

int image_is_offload_binary(const void *start, size_t size)
{
	struct bin_head h;

	return read_head(start, size, &h) != 0;
}

/* LLVM 23's registration of a SPIR-V module: an offload binary whose
 * entries are SPIR-V images (kind 6), with the container version as the
 * string "version"; read into *c as the ELF container's notes would be. */
static int nested_spirv(const uint8_t *p, size_t size, struct ol_spirv_container *c)
{
	const char *version = NULL;
	struct bin_head h;

	if (read_head(p, size, &h) != 1)
		stub_fail("image", "an offload binary whose %llu entries do not fit",
			  (unsigned long long)h.n);
	memset(c, 0, sizeof(*c));
	for (uint64_t i = 0; i < h.n; i++) {
		const uint8_t *e = p + h.eoff + 40 * i;
		uint64_t at = ol_le64(e + 24), len = ol_le64(e + 32);

		if (ol_le16(e) != 6)
			continue;
		if (at > h.total || len > h.total - at || !ol_is_spirv(p + at, (size_t)len))
			stub_fail("image", "entry %llu of a nested offload binary is not a SPIR-V module",
				  (unsigned long long)i);
		if (!c->nmodules++) {
			c->module_offset = at;
			c->module_size = len;
			ol_spirv_version(p + at, &c->spirv_major, &c->spirv_minor);
			entry_string(p, &h, e, "version", &version);
		}
	}
	if (!c->nmodules)
		return 0;
	c->images = (unsigned long)h.n;
	snprintf(c->version, sizeof(c->version), "%s", version ? version : "");
	return 1;
}

int image_spirv(const void *start, size_t size, struct ol_spirv_container *c)
{
	const char *field, *why;

	if (image_is_offload_binary(start, size))
		return nested_spirv(start, size, c);
	if (!ol_is_spirv_container(start, size))
		return 0;
	if ((why = ol_spirv_container_read(start, size, c, &field)))
		stub_fail("image", "a SPIR-V container whose %s is wrong: %s", field, why);
	return 1;
}

/* ---- a cubin's kernels ---- */

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A CUDA ELF's section headers, checked against its size: their number
 * (0 when it is not one, or they do not fit). */
static unsigned cuda_sections(const uint8_t *p, size_t size, uint64_t *shoff,
			      unsigned *shentsize)
{
	unsigned shnum;

	if (size < 64 || memcmp(p, "\177ELF", 4) || p[4] != 2 || p[5] != 1 ||
	    ol_le16(p + 18) != EM_CUDA)
		return 0;
	*shoff = ol_le64(p + 40);
	*shentsize = ol_le16(p + 58);
	shnum = ol_le16(p + 60);
	if (*shentsize < 64 || *shoff > size || (uint64_t)shnum * *shentsize > size - *shoff)
		return 0;
	return shnum;
}

/* Each global or weak symbol of a CUDA ELF's symbol tables, with its
 * name inside its string table, until fn returns nonzero (which this
 * returns). */
static int each_symbol(const uint8_t *p, size_t size,
		       int (*fn)(void *ctx, const uint8_t *sym, const char *name), void *ctx)
{
	uint64_t shoff;
	unsigned shentsize, shnum = cuda_sections(p, size, &shoff, &shentsize);

	for (unsigned i = 0; i < shnum; i++) {
		const uint8_t *sh = p + shoff + (uint64_t)i * shentsize, *str;
		uint64_t off = ol_le64(sh + 24), sz = ol_le64(sh + 32), ent = ol_le64(sh + 56);
		unsigned link = ol_le32(sh + 40);
		uint64_t soff, ssz;

		if (ol_le32(sh + 4) != SHT_SYMTAB || ent < 24 || off > size || sz > size - off ||
		    link >= shnum)
			continue;
		str = p + shoff + (uint64_t)link * shentsize;
		soff = ol_le64(str + 24);
		ssz = ol_le64(str + 32);
		if (soff > size || ssz > size - soff || !ssz || p[soff + ssz - 1])
			continue;
		for (uint64_t k = 1; k < sz / ent; k++) {
			const uint8_t *sym = p + off + k * ent;
			uint32_t name = ol_le32(sym);
			int rc;

			if (((sym[4] >> 4) == STB_GLOBAL || (sym[4] >> 4) == STB_WEAK) &&
			    ol_le16(sym + 6) != SHN_UNDEF && name < ssz &&
			    (rc = fn(ctx, sym, (const char *)p + soff + name)))
				return rc;
		}
	}
	return 0;
}

struct kernel_list {
	const char **names;
	size_t n, max;
};

static int add_kernel_name(void *ctx, const uint8_t *sym, const char *name)
{
	struct kernel_list *k = ctx;

	if ((sym[4] & 0xf) == STT_FUNC && (sym[5] & 0x10))
		k->names[k->n++] = name;
	return k->n == k->max;
}

/* The names of a CUDA ELF's kernels: global functions marked as entries
 * (st_other 0x10), and weak ones (a template kernel is weak in code nvcc
 * compiled with -rdc, and stays weak through nvlink), sorted; every
 * offset checked against the image. */
size_t image_kernels(const void *start, size_t size, const char **names, size_t max)
{
	struct kernel_list k = { names, 0, max };

	if (max)
		each_symbol(start, size, add_kernel_name, &k);
	qsort(names, k.n, sizeof(*names), by_name);
	return k.n;
}

struct value_query {
	const uint8_t *p;
	size_t size;
	const char *name;
	const uint8_t *data;
	size_t len;
	int found;
};

static int find_value(void *ctx, const uint8_t *sym, const char *name)
{
	struct value_query *q = ctx;
	uint64_t shoff, value = ol_le64(sym + 8), len = ol_le64(sym + 16);
	unsigned shentsize, shnum = cuda_sections(q->p, q->size, &shoff, &shentsize);
	unsigned shndx = ol_le16(sym + 6);
	const uint8_t *sh;
	uint64_t off, sz, addr;

	if ((sym[4] & 0xf) != STT_OBJECT || strcmp(name, q->name) != 0 || shndx >= shnum)
		return 0;
	sh = q->p + shoff + (uint64_t)shndx * shentsize;
	addr = ol_le64(sh + 16);
	off = ol_le64(sh + 24);
	sz = ol_le64(sh + 32);
	q->found = 1;
	/* (NOBITS: zeros; otherwise the bytes, each bound checked) */
	if (ol_le32(sh + 4) == SHT_NOBITS || value < addr || value - addr > sz ||
	    len > sz - (value - addr) || off > q->size || sz > q->size - off)
		return 1;
	q->data = q->p + off + (value - addr);
	q->len = (size_t)len;
	return 1;
}

int image_variable(const void *start, size_t size, const char *name, const uint8_t **data,
		   size_t *len)
{
	struct value_query q = { start, size, name, NULL, 0, 0 };

	each_symbol(start, size, find_value, &q);
	*data = q.data;
	*len = q.len;
	return q.found;
}
