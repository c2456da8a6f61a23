/* Reading the SPIR-V container (spirv_container.h).  Only the bytes and
 * common/le.h: the runtime stub compiles this file into itself. */
#include "format/spirv_container.h"

#include <string.h>

#include "common/le.h"

#define OWNER "INTELONEOMPOFFLOAD"
#define MODULE_PREFIX "__openmp_offload_spirv_"

bool ol_is_spirv(const uint8_t *p, size_t len)
{
	return len >= 20 && ol_le32(p) == OL_SPIRV_MAGIC;
}

void ol_spirv_version(const uint8_t *module, unsigned *major, unsigned *minor)
{
	*major = module[6];
	*minor = module[5];
}

bool ol_is_spirv_container(const uint8_t *p, size_t len)
{
	return len >= 64 && memcmp(p, "\177ELF", 4) == 0 && p[4] == 2 && p[5] == 1 &&
	       ol_le16(p + 18) == OL_EM_INTELGT;
}

/* [off, off+size) lies in a len-byte file (subtraction form: no sum can
 * wrap). */
static bool inside(uint64_t off, uint64_t size, size_t len)
{
	return off <= len && size <= len - off;
}

/* The NUL-terminated string at off in the string table [t, t+tlen), or
 * NULL. */
static const char *table_string(const uint8_t *t, uint64_t tlen, uint64_t off)
{
	if (off >= tlen || !memchr(t + off, '\0', (size_t)(tlen - off)))
		return NULL;
	return (const char *)t + off;
}

/* The notes of a .note.inteloneompoffload section. */
static const char *read_notes(const uint8_t *n, uint64_t len, struct ol_spirv_container *out)
{
	uint64_t at = 0;

	while (at < len) {
		uint32_t namesz, descsz, type;
		uint64_t name_at, desc_at, next;

		if (len - at < 12)
			return "a note ends inside its header";
		namesz = ol_le32(n + at);
		descsz = ol_le32(n + at + 4);
		type = ol_le32(n + at + 8);
		name_at = at + 12;
		desc_at = name_at + (((uint64_t)namesz + 3) & ~(uint64_t)3);
		next = desc_at + (((uint64_t)descsz + 3) & ~(uint64_t)3);
		if (desc_at > len || next > len)
			return "a note's name or description runs past its section";
		if (namesz == sizeof(OWNER) && memcmp(n + name_at, OWNER, sizeof(OWNER)) == 0) {
			const char *d = (const char *)n + desc_at;

			if (type == 1 && descsz < sizeof(out->version)) {
				memcpy(out->version, d, descsz);
				out->version[descsz] = '\0';
			} else if (type == 2) {
				unsigned long v = 0;

				for (uint32_t i = 0; i < descsz && d[i] >= '0' && d[i] <= '9' &&
						     v < 100000000; i++)
					v = v * 10 + (unsigned long)(d[i] - '0');
				out->images = v;
			}
		}
		at = next;
	}
	return NULL;
}

const char *ol_spirv_container_read(const uint8_t *p, size_t len, struct ol_spirv_container *out,
				    const char **field)
{
	uint64_t shoff;
	unsigned shnum, shstrndx, shentsize;
	const uint8_t *names;
	uint64_t names_off, names_len;
	bool notes = false;

	memset(out, 0, sizeof(*out));
	*field = "ELF header";
	if (!ol_is_spirv_container(p, len))
		return "not an ELF64 little-endian image for machine 205 (EM_INTELGT)";
	shoff = ol_le64(p + 40);
	shentsize = ol_le16(p + 58);
	shnum = ol_le16(p + 60);
	shstrndx = ol_le16(p + 62);
	*field = "section headers";
	if (shentsize != 64 || shnum == 0 || shstrndx >= shnum)
		return "no usable section headers";
	if (!inside(shoff, (uint64_t)shnum * 64, len))
		return "the section headers lie outside the image";
	*field = "section name table";
	{
		const uint8_t *s = p + shoff + (uint64_t)shstrndx * 64;

		names_off = ol_le64(s + 24);
		names_len = ol_le64(s + 32);
		if (!inside(names_off, names_len, len))
			return "the section name table lies outside the image";
		names = p + names_off;
	}
	for (unsigned i = 1; i < shnum; i++) {
		const uint8_t *s = p + shoff + (uint64_t)i * 64;
		uint32_t type = ol_le32(s + 4);
		uint64_t off = ol_le64(s + 24), size = ol_le64(s + 32);
		const char *name = table_string(names, names_len, ol_le32(s));
		const char *why;

		if (!name)
			continue;
		if (type != 8 /* SHT_NOBITS */ && !inside(off, size, len)) {
			*field = "section";
			return "a section lies outside the image";
		}
		if (strcmp(name, ".note.inteloneompoffload") == 0 && type == 7) {
			*field = ".note.inteloneompoffload";
			if ((why = read_notes(p + off, size, out)))
				return why;
			notes = true;
		} else if (strncmp(name, MODULE_PREFIX, sizeof(MODULE_PREFIX) - 1) == 0 &&
			   type == 1) {
			if (out->nmodules++ == 0) {
				out->module_offset = off;
				out->module_size = size;
			}
		}
	}
	*field = ".note.inteloneompoffload";
	if (!notes)
		return "no .note.inteloneompoffload section";
	*field = MODULE_PREFIX "0";
	if (!out->nmodules)
		return "no " MODULE_PREFIX "<N> section holding a module";
	if (!ol_is_spirv(p + out->module_offset, (size_t)out->module_size))
		return "the module is not SPIR-V (no magic 0x07230203)";
	ol_spirv_version(p + out->module_offset, &out->spirv_major, &out->spirv_minor);
	*field = NULL;
	return NULL;
}
