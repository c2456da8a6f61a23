#include "extract/offload_entries.h"

#include <stdlib.h>
#include <string.h>

#include "common/le.h"
#include "common/strmap.h"

enum { ENTRY_SIZE = 32, WORD_SIZE = 8, FLAGS_AT = 24, MANAGED = 1, EXTERN = 8 };

struct table {
	size_t index;
	const char *name;
	const uint8_t *data;
	size_t size;
};

static bool is_entry_table(const char *name)
{
	return strcmp(name, "cuda_offloading_entries") == 0 ||
	       strcmp(name, "hip_offloading_entries") == 0;
}

/* The defined globals of the symbol table at scn, read once per object
 * (a lookup per managed variable, not a scan). */
struct globals {
	Elf_Scn *scn;
	struct ol_strmap names;
};

static enum ol_err read_globals(struct ol_elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
				struct globals *g, struct ol_diag *d)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	ol_strmap_free(&g->names);
	g->scn = scn;
	for (size_t i = 1; data && i < n; i++) {
		GElf_Sym sym;
		const char *s;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    GELF_ST_BIND(sym.st_info) == STB_LOCAL ||
		    !(s = elf_strptr(e->elf, sh->sh_link, sym.st_name)))
			continue;
		if (!ol_strmap_put(&g->names, s, strlen(s)))
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	return OL_OK;
}

static enum ol_err has_global(struct ol_elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
			      struct globals *g, const char *name, bool *found,
			      struct ol_diag *d)
{
	if (g->scn != scn && read_globals(e, scn, sh, g, d))
		return d->code;
	*found = ol_strmap_get(&g->names, name, strlen(name)) != NULL;
	return OL_OK;
}

static enum ol_err report(struct ol_elf *e, const struct table *t, Elf_Scn *symscn,
			  const GElf_Shdr *symsh, struct globals *g, const char *init,
			  ol_managed_cb cb, void *ctx, struct ol_diag *d)
{
	static const char suffix[] = ".managed";
	size_t n = strlen(init), sl = sizeof(suffix) - 1;
	char *ptr = NULL;
	bool found = false;
	enum ol_err rc;

	if (n > sl && strcmp(init + n - sl, suffix) == 0) {
		ptr = strndup(init, n - sl);
		if (!ptr)
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		if (has_global(e, symscn, symsh, g, ptr, &found, d)) {
			free(ptr);
			return d->code;
		}
		if (!found) {
			free(ptr);
			ptr = NULL;
		}
	}
	rc = cb(ctx, t->name, init, ptr, d);
	free(ptr);
	return rc;
}

/* The relocations of one entry table: each on an entry's address field
 * of a managed entry names its initial-value symbol. */
static enum ol_err scan_relocations(struct ol_elf *e, Elf_Scn *rscn,
				    const GElf_Shdr *rsh, const struct table *t,
				    struct globals *g, ol_managed_cb cb, void *ctx,
				    struct ol_diag *d)
{
	Elf_Data *rd = elf_getdata(rscn, NULL);
	Elf_Scn *symscn = elf_getscn(e->elf, rsh->sh_link);
	GElf_Shdr symsh;
	Elf_Data *syms;
	size_t n = rsh->sh_entsize ? rsh->sh_size / rsh->sh_entsize : 0;

	if (!rd || !symscn || !gelf_getshdr(symscn, &symsh) ||
	    !(syms = elf_getdata(symscn, NULL)))
		return ol_diag_set(d, OL_E_BAD_ELF, NULL, "relocations of %s: %s",
				   t->name, elf_errmsg(-1));
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;
		uint32_t flags;

		if (!gelf_getrela(rd, (int)i, &r))
			return ol_diag_set(d, OL_E_BAD_ELF, NULL, "relocation %zu of %s", i, t->name);
		/* The relocated word, then (for an address field) its whole
		 * entry must lie in the section.  Subtraction form: r_offset +
		 * ENTRY_SIZE wraps for offsets near 2^64 and would pass. */
		if (r.r_offset > t->size || WORD_SIZE > t->size - r.r_offset ||
		    (r.r_offset % ENTRY_SIZE == 0 && ENTRY_SIZE > t->size - r.r_offset))
			return ol_diag_set(d, OL_E_BAD_ELF, "r_offset",
					   "relocation %zu of %s applies at offset 0x%llx, "
					   "outside the section's %zu bytes", i, t->name,
					   (unsigned long long)r.r_offset, t->size);
		if (r.r_offset % ENTRY_SIZE != 0)
			continue; /* not an entry's address field */
		/* An extern declaration's entry: the defining object's entry
		 * names the pointer, and registers the variable. */
		flags = ol_le32(t->data + r.r_offset + FLAGS_AT);
		if ((flags & 7) != MANAGED || (flags & EXTERN))
			continue;
		if (!gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) ||
		    !(name = elf_strptr(e->elf, symsh.sh_link, sym.st_name)) || !*name)
			continue;
		if (report(e, t, symscn, &symsh, g, name, cb, ctx, d))
			return d->code;
	}
	return OL_OK;
}

/* The entry table a section is, if it is one. */
static bool entry_table(struct ol_elf *e, Elf_Scn *scn, struct table *t)
{
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
		return false;
	t->name = elf_strptr(e->elf, e->shstrndx, sh.sh_name);
	if (!t->name || !is_entry_table(t->name) || sh.sh_offset > e->len ||
	    sh.sh_size > e->len - sh.sh_offset)
		return false;
	t->index = elf_ndxscn(scn);
	t->data = e->p + sh.sh_offset;
	t->size = (size_t)sh.sh_size;
	return true;
}

/* One pass over the sections: each RELA section whose target is an entry
 * table is read (a pass per table would be quadratic in a hostile
 * object's section count). */
enum ol_err ol_elf_managed_vars(struct ol_elf *e, ol_managed_cb cb, void *ctx,
				struct ol_diag *d)
{
	struct globals g = { 0 };
	Elf_Scn *r = NULL;
	enum ol_err rc = OL_OK;

	while (!rc && (r = elf_nextscn(e->elf, r)) != NULL) {
		GElf_Shdr rsh;
		struct table t;

		if (!gelf_getshdr(r, &rsh) || rsh.sh_type != SHT_RELA ||
		    !entry_table(e, elf_getscn(e->elf, rsh.sh_info), &t))
			continue;
		rc = scan_relocations(e, r, &rsh, &t, &g, cb, ctx, d);
	}
	ol_strmap_free(&g.names);
	return rc;
}
