#include "extract/offload_entries.h"

#include <stdlib.h>
#include <string.h>

#include "common/le.h"

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

/* A defined global called name, in the symbol table at scn. */
static bool has_global(struct ol_elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
		       const char *name)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 1; data && i < n; i++) {
		GElf_Sym sym;
		const char *s;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    GELF_ST_BIND(sym.st_info) == STB_LOCAL)
			continue;
		s = elf_strptr(e->elf, sh->sh_link, sym.st_name);
		if (s && strcmp(s, name) == 0)
			return true;
	}
	return false;
}

static enum ol_err report(struct ol_elf *e, const struct table *t, Elf_Scn *symscn,
			  const GElf_Shdr *symsh, const char *init,
			  ol_managed_cb cb, void *ctx, struct ol_diag *d)
{
	static const char suffix[] = ".managed";
	size_t n = strlen(init), sl = sizeof(suffix) - 1;
	char *ptr = NULL;
	enum ol_err rc;

	if (n > sl && strcmp(init + n - sl, suffix) == 0) {
		ptr = strndup(init, n - sl);
		if (!ptr)
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		if (!has_global(e, symscn, symsh, ptr)) {
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
				    ol_managed_cb cb, void *ctx, struct ol_diag *d)
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
		if (report(e, t, symscn, &symsh, name, cb, ctx, d))
			return d->code;
	}
	return OL_OK;
}

enum ol_err ol_elf_managed_vars(struct ol_elf *e, ol_managed_cb cb, void *ctx,
				struct ol_diag *d)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		GElf_Shdr sh, rsh;
		struct table t;
		Elf_Scn *r = NULL;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		t.name = elf_strptr(e->elf, e->shstrndx, sh.sh_name);
		if (!t.name || !is_entry_table(t.name) || sh.sh_offset > e->len ||
		    sh.sh_size > e->len - sh.sh_offset)
			continue;
		t.index = elf_ndxscn(scn);
		t.data = e->p + sh.sh_offset;
		t.size = (size_t)sh.sh_size;
		while ((r = elf_nextscn(e->elf, r)) != NULL)
			if (gelf_getshdr(r, &rsh) && rsh.sh_type == SHT_RELA &&
			    rsh.sh_info == t.index &&
			    scan_relocations(e, r, &rsh, &t, cb, ctx, d))
				return d->code;
	}
	return OL_OK;
}
