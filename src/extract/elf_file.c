#include "extract/elf_file.h"

#include <string.h>

static bool version_set;

bool ol_is_elf(const uint8_t *p, size_t len)
{
	return len >= 4 && memcmp(p, ELFMAG, SELFMAG) == 0;
}

static enum ol_err elf_fail(struct ol_diag *d, const char *what)
{
	return ol_diag_set(d, OL_E_BAD_ELF, NULL, "%s: %s", what,
			   elf_errmsg(-1));
}

/* libelf reports no error for a section header table that lies wholly or
 * partly past the end of the data (it shows fewer sections, or none), so
 * check it here from the ELF header's own count: e_shnum, or, when that is
 * 0 with a table present, section 0's sh_size (extended numbering). */
static enum ol_err check_section_table(struct ol_elf *e, struct ol_diag *d)
{
	uint64_t entsize = e->ehdr.e_shentsize, off = e->ehdr.e_shoff;
	uint64_t shnum = e->ehdr.e_shnum;
	size_t extended;

	if (off == 0)
		return shnum == 0 ? OL_OK
				  : ol_diag_at(d, OL_E_BAD_ELF, 0, "e_shoff",
					       "%llu section headers at offset 0",
					       (unsigned long long)shnum);
	if (entsize < (gelf_getclass(e->elf) == ELFCLASS64 ? sizeof(Elf64_Shdr)
							    : sizeof(Elf32_Shdr)))
		return ol_diag_at(d, OL_E_BAD_ELF, 0, "e_shentsize",
				  "section header size %llu is too small",
				  (unsigned long long)entsize);
	if (off > e->len || entsize > e->len - off)
		return ol_diag_at(d, OL_E_BAD_ELF, 0, "e_shoff",
				  "the section headers at offset %llu lie past the end of the %zu-byte file",
				  (unsigned long long)off, e->len);
	if (shnum == 0) {
		if (elf_getshdrnum(e->elf, &extended) != 0)
			return elf_fail(d, "section count");
		shnum = extended;
	}
	if (shnum > (e->len - off) / entsize)
		return ol_diag_at(d, OL_E_BAD_ELF, 0, "e_shoff",
				  "%llu section headers at offset %llu run past the end of the %zu-byte file",
				  (unsigned long long)shnum, (unsigned long long)off, e->len);
	return OL_OK;
}

enum ol_err ol_elf_open(struct ol_elf *e, uint8_t *p, size_t len,
			struct ol_diag *d)
{
	memset(e, 0, sizeof(*e));
	if (!version_set) {
		if (elf_version(EV_CURRENT) == EV_NONE)
			return elf_fail(d, "libelf initialisation");
		version_set = true;
	}
	e->p = p;
	e->len = len;
	e->elf = elf_memory((char *)p, len);
	if (!e->elf)
		return elf_fail(d, "elf_memory");
	if (elf_kind(e->elf) != ELF_K_ELF) {
		ol_elf_close(e);
		return ol_diag_set(d, OL_E_BAD_ELF, NULL, "not an ELF object");
	}
	if (!gelf_getehdr(e->elf, &e->ehdr)) {
		elf_fail(d, "ELF header");
		ol_elf_close(e);
		return d->code;
	}
	if (check_section_table(e, d)) {
		ol_elf_close(e);
		return d->code;
	}
	if (elf_getshdrstrndx(e->elf, &e->shstrndx) != 0) {
		elf_fail(d, "section name table");
		ol_elf_close(e);
		return d->code;
	}
	return OL_OK;
}

void ol_elf_close(struct ol_elf *e)
{
	if (e->elf)
		elf_end(e->elf);
	e->elf = NULL;
}

static enum ol_err section_view(struct ol_elf *e, Elf_Scn *scn,
				struct ol_elf_section *s, struct ol_diag *d)
{
	memset(s, 0, sizeof(*s));
	s->index = elf_ndxscn(scn);
	if (!gelf_getshdr(scn, &s->shdr))
		return elf_fail(d, "section header");
	s->name = elf_strptr(e->elf, e->shstrndx, s->shdr.sh_name);
	if (!s->name)
		return ol_diag_set(d, OL_E_BAD_ELF, "sh_name",
				   "section %zu has no valid name", s->index);
	if (s->shdr.sh_type == SHT_NOBITS)
		return OL_OK;
	if (s->shdr.sh_offset > e->len ||
	    s->shdr.sh_size > e->len - s->shdr.sh_offset)
		return ol_diag_set(d, OL_E_BAD_ELF, "sh_size",
				   "section %s (offset %llu, %llu bytes) runs past the end of the file",
				   s->name, (unsigned long long)s->shdr.sh_offset,
				   (unsigned long long)s->shdr.sh_size);
	s->data = e->p + s->shdr.sh_offset;
	s->size = (size_t)s->shdr.sh_size;
	return OL_OK;
}

enum ol_err ol_elf_for_each_section(struct ol_elf *e, ol_elf_section_cb cb,
				    void *ctx, struct ol_diag *d)
{
	Elf_Scn *scn = NULL;

	elf_errno(); /* clear stale errors so the check below is ours */
	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		struct ol_elf_section s;

		if (section_view(e, scn, &s, d) || cb(ctx, &s, d))
			return d->code;
	}
	if (elf_errno() != 0)
		return elf_fail(d, "section table");
	return OL_OK;
}

static enum ol_err symbols_of(struct ol_elf *e, Elf_Scn *scn,
			      const GElf_Shdr *sh, ol_elf_symbol_cb cb,
			      void *ctx, struct ol_diag *d)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count;

	if (!data)
		return elf_fail(d, "symbol table");
	if (sh->sh_entsize == 0)
		return ol_diag_set(d, OL_E_BAD_ELF, "sh_entsize",
				   "symbol table with zero entry size");
	count = sh->sh_size / sh->sh_entsize;
	/* Every symbol, filtered by binding: sh_info should say where the
	 * globals start, but ptxas's cubins interleave globals and locals. */
	for (size_t i = 1; i < count; i++) {
		GElf_Sym sym;
		struct ol_elf_symbol s;

		if (!gelf_getsym(data, (int)i, &sym))
			return elf_fail(d, "symbol");
		s.bind = GELF_ST_BIND(sym.st_info);
		if (s.bind != STB_GLOBAL && s.bind != STB_WEAK &&
		    s.bind != STB_GNU_UNIQUE)
			continue;
		s.name = elf_strptr(e->elf, sh->sh_link, sym.st_name);
		if (!s.name)
			return ol_diag_set(d, OL_E_BAD_ELF, "st_name",
					   "symbol %zu has no valid name", i);
		if (!*s.name)
			continue;
		s.type = GELF_ST_TYPE(sym.st_info);
		s.visibility = GELF_ST_VISIBILITY(sym.st_other);
		s.other = sym.st_other;
		s.common = sym.st_shndx == SHN_COMMON;
		s.defined = sym.st_shndx != SHN_UNDEF;
		if (cb(ctx, &s, d))
			return d->code;
	}
	return OL_OK;
}

enum ol_err ol_elf_for_each_global(struct ol_elf *e, bool dynamic,
				   ol_elf_symbol_cb cb, void *ctx,
				   struct ol_diag *d)
{
	Elf_Scn *scn = NULL;
	GElf_Word want = dynamic ? SHT_DYNSYM : SHT_SYMTAB;

	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return elf_fail(d, "section header");
		if (sh.sh_type == want)
			return symbols_of(e, scn, &sh, cb, ctx, d);
	}
	return OL_OK;
}

static enum ol_err on_comment(void *ctx, const struct ol_elf_section *s,
			      struct ol_diag *d)
{
	static const char tag[] = "clang version ";
	unsigned *major = ctx;
	const uint8_t *p;

	(void)d;
	if (strcmp(s->name, ".comment") != 0 || !s->data ||
	    !(p = memmem(s->data, s->size, tag, sizeof(tag) - 1)))
		return OL_OK;
	p += sizeof(tag) - 1;
	for (unsigned n = 0; p < s->data + s->size && *p >= '0' && *p <= '9' && n < 4; p++, n++)
		*major = *major * 10 + (unsigned)(*p - '0');
	return OL_OK;
}

unsigned ol_elf_clang_major(struct ol_elf *e)
{
	unsigned major = 0;
	struct ol_diag d;

	ol_diag_clear(&d);
	ol_elf_for_each_section(e, on_comment, &major, &d);
	return major;
}

bool ol_elf_is_offload_section(const struct ol_elf_section *s)
{
	if (s->shdr.sh_type == SHT_NOBITS)
		return false;
	return s->shdr.sh_type == SHT_LLVM_OFFLOADING ||
	       strncmp(s->name, ".llvm.offloading", 16) == 0;
}
