#include "cache/dynamic_names.h"

#include <gelf.h>
#include <libelf.h>
#include <string.h>

#include "os/mapfile.h"

/* Each ':'-separated directory of a search path string. */
static void split_paths(const char *s, struct ol_strvec *out)
{
	while (*s) {
		size_t n = strcspn(s, ":");

		if (n)
			ol_strvec_pushn(out, s, n);
		s += n;
		if (*s == ':')
			s++;
	}
}

static void read_dynamic(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, struct ol_dynamic_names *out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Dyn dyn;

	if (!data || !sh->sh_entsize)
		return;
	for (size_t i = 0; i < sh->sh_size / sh->sh_entsize && gelf_getdyn(data, (int)i, &dyn); i++) {
		const char *s;

		if (dyn.d_tag == DT_SONAME) {
			out->has_soname = true;
			continue;
		}
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH)
			continue;
		if (!(s = elf_strptr(e, sh->sh_link, (size_t)dyn.d_un.d_val)))
			continue;
		if (dyn.d_tag == DT_NEEDED)
			ol_strvec_push(&out->needed, s);
		else
			split_paths(s, &out->paths);
	}
}

bool ol_dynamic_names(const uint8_t *p, size_t n, struct ol_dynamic_names *out)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	memset(out, 0, sizeof(*out));
	if (n < 4 || memcmp(p, "\177ELF", 4) != 0 || elf_version(EV_CURRENT) == EV_NONE ||
	    !(e = elf_memory((char *)p, n)))
		return false;
	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		elf_end(e);
		return false;
	}
	out->shared = eh.e_type == ET_DYN;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNAMIC)
			read_dynamic(e, scn, &sh, out);
	}
	elf_end(e);
	return true;
}

void ol_dynamic_names_free(struct ol_dynamic_names *d)
{
	ol_strvec_free(&d->needed);
	ol_strvec_free(&d->paths);
	memset(d, 0, sizeof(*d));
}

bool ol_shared_without_soname(const char *path)
{
	struct ol_map m = { 0 };
	struct ol_dynamic_names dn;
	struct ol_diag d;
	bool r = false;

	ol_diag_clear(&d);
	if (ol_map_file(path, &m, &d) == OL_OK && ol_dynamic_names(m.data, m.len, &dn))
		r = dn.shared && !dn.has_soname;
	if (m.data)
		ol_dynamic_names_free(&dn);
	ol_unmap(&m);
	return r;
}
