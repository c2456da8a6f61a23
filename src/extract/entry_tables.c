#include "extract/entry_tables.h"

#include <string.h>

#include "common/le.h"

/* Where the fields are in each layout. */
struct layout {
	size_t size, name_at, size_at, flags_at, kind_at; /* kind_at 0: the section's */
	enum ob_offload_kind kind;
};

static const struct {
	const char *section;
	struct layout l;
} tables[] = {
	{ "omp_offloading_entries", { 32, 8, 16, 24, 0, OB_OFK_OPENMP } },
	{ "cuda_offloading_entries", { 32, 8, 16, 24, 0, OB_OFK_CUDA } },
	{ "hip_offloading_entries", { 32, 8, 16, 24, 0, OB_OFK_HIP } },
	/* Reserved (8), Version (2), Kind (2), Flags (4), Address, Name,
	 * Size, Data, AuxAddr (8 each) */
	{ "llvm_offload_entries", { 56, 24, 32, 12, 10, OB_OFK_NONE } },
};

struct table {
	const char *name;
	const struct layout *l;
	const uint8_t *data;
	size_t size;
};

/* The section's bytes, bounds checked against the file (NULL: none). */
static const uint8_t *section_bytes(struct ol_elf *e, Elf_Scn *scn, GElf_Shdr *sh)
{
	if (!scn || !gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS ||
	    sh->sh_offset > e->len || sh->sh_size > e->len - sh->sh_offset)
		return NULL;
	return e->p + sh->sh_offset;
}

static bool entry_table(struct ol_elf *e, Elf_Scn *scn, struct table *t)
{
	GElf_Shdr sh;
	const char *name;

	if (!(t->data = section_bytes(e, scn, &sh)) ||
	    !(name = elf_strptr(e->elf, e->shstrndx, sh.sh_name)))
		return false;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		if (strcmp(name, tables[i].section) == 0) {
			t->name = tables[i].section;
			t->l = &tables[i].l;
			t->size = (size_t)sh.sh_size;
			return true;
		}
	}
	return false;
}

/* The string a name field points at: symbol value + addend inside the
 * symbol's section, NUL before the section ends; NULL otherwise. */
static const char *string_at(struct ol_elf *e, const GElf_Sym *sym, int64_t addend)
{
	GElf_Shdr sh;
	const uint8_t *p;
	uint64_t off = sym->st_value + (uint64_t)addend;

	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE ||
	    !(p = section_bytes(e, elf_getscn(e->elf, sym->st_shndx), &sh)) ||
	    off >= sh.sh_size || !memchr(p + off, '\0', (size_t)(sh.sh_size - off)))
		return NULL;
	return (const char *)p + off;
}

static enum ol_err entry(const struct table *t, size_t at, const char *name, ol_entry_cb cb,
			 void *ctx, struct ol_diag *d)
{
	const struct layout *l = t->l;
	const uint8_t *p = t->data + at;
	struct ol_offload_entry x = { t->name, l->kind, name, ol_le64(p + l->size_at),
				      ol_le32(p + l->flags_at) };

	if (l->kind_at)
		x.kind = ob_offload_kind_from_raw(ol_le16(p + l->kind_at));
	return cb(ctx, &x, d);
}

/* The relocations of one table: each on an entry's name field names it. */
static enum ol_err scan(struct ol_elf *e, Elf_Scn *rscn, const GElf_Shdr *rsh,
			const struct table *t, ol_entry_cb cb, void *ctx, struct ol_diag *d)
{
	Elf_Data *rd = elf_getdata(rscn, NULL);
	Elf_Scn *symscn = elf_getscn(e->elf, rsh->sh_link);
	size_t n = rsh->sh_entsize ? rsh->sh_size / rsh->sh_entsize : 0, es = t->l->size;
	Elf_Data *syms;

	if (!rd || !symscn || !(syms = elf_getdata(symscn, NULL)))
		return ol_diag_set(d, OL_E_BAD_ELF, NULL, "relocations of %s: %s", t->name,
				   elf_errmsg(-1));
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;
		size_t at;

		if (!gelf_getrela(rd, (int)i, &r))
			return ol_diag_set(d, OL_E_BAD_ELF, NULL, "relocation %zu of %s", i, t->name);
		if (r.r_offset % es != t->l->name_at)
			continue; /* not a name field */
		at = (size_t)(r.r_offset - t->l->name_at);
		/* the whole entry inside the section (subtraction form) */
		if (r.r_offset > t->size || at > t->size || es > t->size - at)
			return ol_diag_set(d, OL_E_BAD_ELF, "r_offset",
					   "relocation %zu of %s applies at offset 0x%llx, "
					   "outside the section's %zu bytes", i, t->name,
					   (unsigned long long)r.r_offset, t->size);
		if (!gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym))
			return ol_diag_set(d, OL_E_BAD_ELF, NULL, "relocation %zu of %s: no symbol %llu",
					   i, t->name, (unsigned long long)GELF_R_SYM(r.r_info));
		if (!(name = string_at(e, &sym, r.r_addend)))
			return ol_diag_set(d, OL_E_BAD_ELF, "r_addend",
					  "the name of the entry at 0x%zx of %s is not a string "
					  "inside a section", at, t->name);
		if (!*name)
			continue;
		if (entry(t, at, name, cb, ctx, d))
			return d->code;
	}
	return OL_OK;
}

enum ol_err ol_elf_offload_entries(struct ol_elf *e, ol_entry_cb cb, void *ctx,
				   struct ol_diag *d)
{
	Elf_Scn *r = NULL;
	enum ol_err rc = OL_OK;

	/* One pass: each RELA section whose target is an entry table. */
	while (!rc && (r = elf_nextscn(e->elf, r)) != NULL) {
		GElf_Shdr rsh;
		struct table t;

		if (!gelf_getshdr(r, &rsh) || rsh.sh_type != SHT_RELA ||
		    !entry_table(e, elf_getscn(e->elf, rsh.sh_info), &t))
			continue;
		rc = scan(e, r, &rsh, &t, cb, ctx, d);
	}
	return rc;
}
