/* A relocatable ELF64 object as GNU as lays it out (wrap/elf_object.h). */
#include "wrap/elf_object.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/le.h"

void eo_init(struct elf_object *o, uint16_t machine)
{
	memset(o, 0, sizeof(*o));
	o->machine = machine;
	/* (as makes these three whatever the source says) */
	eo_section(o, ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 1, 0);
	eo_section(o, ".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 1, 0);
	eo_section(o, ".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 1, 0);
}

void eo_free(struct elf_object *o)
{
	for (size_t i = 0; i < o->nsecs; i++) {
		ol_pieces_free(&o->secs[i].data);
		free(o->secs[i].rel);
	}
	free(o->secs);
	free(o->syms);
	memset(o, 0, sizeof(*o));
}

static size_t add_symbol(struct elf_object *o, struct eo_symbol s)
{
	struct eo_symbol *v;

	if (o->err)
		return 0;
	if (!(v = ol_grow(o->syms, o->nsyms, &o->capsyms, sizeof(*v), 16))) {
		o->err = OL_E_NOMEM;
		return 0;
	}
	o->syms = v;
	o->syms[o->nsyms] = s;
	return o->nsyms++;
}

size_t eo_section(struct elf_object *o, const char *name, uint32_t type, uint64_t flags,
		  uint64_t align, uint64_t entsize)
{
	struct eo_section *v;

	for (size_t i = 0; i < o->nsecs; i++)
		if (strcmp(o->secs[i].name, name) == 0)
			return i;
	if (o->err)
		return 0;
	if (!(v = ol_grow(o->secs, o->nsecs, &o->capsecs, sizeof(*v), 16))) {
		o->err = OL_E_NOMEM;
		return 0;
	}
	o->secs = v;
	o->secs[o->nsecs] = (struct eo_section){ .name = name, .type = type, .flags = flags,
						 .align = align, .entsize = entsize };
	o->secs[o->nsecs].sym = add_symbol(o, (struct eo_symbol){
		.name = "", .section = (int)o->nsecs, .info = ELF64_ST_INFO(STB_LOCAL, STT_SECTION),
		.is_section = true });
	return o->nsecs++;
}

void eo_bytes(struct elf_object *o, size_t s, const void *data, size_t len)
{
	if (o->err)
		return;
	if (ol_buf_append(&o->secs[s].data.own, data, len))
		o->err = OL_E_NOMEM;
	o->secs[s].size += len;
}

void eo_ref(struct elf_object *o, size_t s, const void *data, size_t len)
{
	if (o->err)
		return;
	if (ol_pieces_ref(&o->secs[s].data, data, len))
		o->err = OL_E_NOMEM;
	o->secs[s].size += len;
}

void eo_zeros(struct elf_object *o, size_t s, uint64_t n)
{
	if (o->err)
		return;
	if (o->secs[s].type != SHT_NOBITS && ol_buf_zeros(&o->secs[s].data.own, (size_t)n))
		o->err = OL_E_NOMEM;
	o->secs[s].size += n;
}

void eo_align(struct elf_object *o, size_t s, uint64_t align)
{
	uint64_t at = eo_here(o, s);

	eo_zeros(o, s, (align - at % align) % align);
}

void eo_u32(struct elf_object *o, size_t s, uint32_t v)
{
	uint8_t b[4];

	ol_put_le32(b, v);
	eo_bytes(o, s, b, sizeof(b));
}

uint64_t eo_here(const struct elf_object *o, size_t s)
{
	return o->err ? 0 : o->secs[s].size; /* (after a failure, s may be no section) */
}

size_t eo_section_symbol(const struct elf_object *o, size_t s)
{
	return o->err ? 0 : o->secs[s].sym;
}

size_t eo_local(struct elf_object *o, const char *name, size_t s, uint64_t value,
		uint64_t size, uint8_t type)
{
	return add_symbol(o, (struct eo_symbol){ .name = name, .section = (int)s, .value = value,
						 .size = size,
						 .info = ELF64_ST_INFO(STB_LOCAL, type) });
}

size_t eo_undefined(struct elf_object *o, const char *name, uint8_t visibility)
{
	for (size_t i = 0; i < o->nsyms; i++)
		if (o->syms[i].section < 0 && strcmp(o->syms[i].name, name) == 0)
			return i;
	return add_symbol(o, (struct eo_symbol){ .name = name, .section = -1,
						 .info = ELF64_ST_INFO(STB_GLOBAL, STT_NOTYPE),
						 .other = visibility });
}

void eo_reloc(struct elf_object *o, size_t s, uint64_t offset, uint32_t type, size_t sym,
	      int64_t addend)
{
	struct eo_section *sec;
	struct eo_reloc *v;

	if (o->err)
		return;
	sec = &o->secs[s];
	if (!(v = ol_grow(sec->rel, sec->nrel, &sec->caprel, sizeof(*v), 8))) {
		o->err = OL_E_NOMEM;
		return;
	}
	sec->rel = v;
	if (o->syms[sym].section >= 0 && !o->syms[sym].is_section) {
		addend += (int64_t)o->syms[sym].value;
		sym = o->secs[o->syms[sym].section].sym;
	}
	o->syms[sym].used = true;
	sec->rel[sec->nrel++] = (struct eo_reloc){ offset, type, sym, addend };
}

void eo_quad_of(struct elf_object *o, size_t s, uint32_t type, size_t sym, int64_t addend)
{
	eo_reloc(o, s, eo_here(o, s), type, sym, addend);
	eo_zeros(o, s, 8);
}

/* ---- the layout ---- */

/* A string table as binutils writes one: "" first, then the names in the
 * order given, each that is the tail of a longer one pointing into it. */
static enum ol_err string_table(const char **names, size_t n, uint32_t *at, struct ol_buf *out)
{
	size_t *into = malloc((n ? n : 1) * sizeof(*into));

	if (!into || ol_buf_append(out, "", 1)) {
		free(into);
		return OL_E_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		size_t li = strlen(names[i]);

		into[i] = i;
		for (size_t j = 0; j < n && li; j++) {
			size_t lj = strlen(names[j]), lk = strlen(names[into[i]]);

			if (lj > li && lj > lk && strcmp(names[j] + lj - li, names[i]) == 0)
				into[i] = j; /* the longest: itself no one's tail */
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (!names[i][0])
			at[i] = 0;
		else if (into[i] == i) {
			at[i] = (uint32_t)out->len;
			if (ol_buf_append(out, names[i], strlen(names[i]) + 1)) {
				free(into);
				return OL_E_NOMEM;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		if (names[i][0] && into[i] != i)
			at[i] = at[into[i]] + (uint32_t)(strlen(names[into[i]]) - strlen(names[i]));
	free(into);
	return OL_OK;
}

static enum ol_err shdr(struct ol_buf *b, uint32_t name, uint32_t type, uint64_t flags,
			uint64_t off, uint64_t size, uint32_t link, uint32_t info, uint64_t align,
			uint64_t entsize)
{
	return ol_buf_le32(b, name) | ol_buf_le32(b, type) | ol_buf_le64(b, flags) |
	       ol_buf_le64(b, 0) | ol_buf_le64(b, off) | ol_buf_le64(b, size) |
	       ol_buf_le32(b, link) | ol_buf_le32(b, info) | ol_buf_le64(b, align) |
	       ol_buf_le64(b, entsize);
}

struct layout {
	unsigned symtab, strtab, shstrtab, shnum;
	uint64_t symtab_off, strtab_off, shstrtab_off, shoff;
	uint32_t nlocal, symtab_name, strtab_name, shstrtab_name;
	struct ol_buf syms, strs, names;  /* .symtab, .strtab, .shstrtab */
};

/* Symbols in output order (locals, then globals) and their names. */
static enum ol_err lay_symbols(struct elf_object *o, struct layout *y)
{
	const char **names = malloc((o->nsyms + 1) * sizeof(*names));
	uint32_t *at = malloc((o->nsyms + 1) * sizeof(*at));
	size_t *order = malloc((o->nsyms + 1) * sizeof(*order)), n = 0;
	enum ol_err rc = OL_E_NOMEM;

	if (!names || !at || !order)
		goto out;
	for (int global = 0; global < 2; global++)
		for (size_t i = 0; i < o->nsyms; i++) {
			const struct eo_symbol *s = &o->syms[i];

			if ((ELF64_ST_BIND(s->info) != STB_LOCAL) == global &&
			    (!s->is_section || s->used))
				order[n++] = i;
		}
	for (size_t k = 0; k < n; k++) {
		o->syms[order[k]].index = (uint32_t)(k + 1);
		names[k] = o->syms[order[k]].name;
		if (ELF64_ST_BIND(o->syms[order[k]].info) == STB_LOCAL)
			y->nlocal = (uint32_t)(k + 2);
	}
	if (!y->nlocal)
		y->nlocal = 1;
	if ((rc = string_table(names, n, at, &y->strs)))
		goto out;
	/* the null symbol, then each */
	rc = ol_buf_zeros(&y->syms, sizeof(Elf64_Sym));
	for (size_t k = 0; k < n; k++) {
		const struct eo_symbol *s = &o->syms[order[k]];

		rc |= ol_buf_le32(&y->syms, at[k]) | ol_buf_append(&y->syms, &s->info, 1) |
		      ol_buf_append(&y->syms, &s->other, 1) |
		      ol_buf_le16(&y->syms, (uint16_t)(s->section < 0 ? SHN_UNDEF
								 : o->secs[s->section].index)) |
		      ol_buf_le64(&y->syms, s->value) | ol_buf_le64(&y->syms, s->size);
	}
out:
	free(names);
	free(at);
	free(order);
	return rc;
}

/* Section names: the three tables', then each section's and its .rela's,
 * in index order. */
static enum ol_err lay_names(struct elf_object *o, struct layout *y, char **rela)
{
	size_t cap = 3 + 2 * o->nsecs, n = 0;
	const char **names = malloc(cap * sizeof(*names));
	uint32_t *at = malloc(cap * sizeof(*at));
	enum ol_err rc = OL_E_NOMEM;

	if (!names || !at)
		goto out;
	names[n++] = ".symtab";
	names[n++] = ".strtab";
	names[n++] = ".shstrtab";
	for (size_t i = 0; i < o->nsecs; i++) {
		names[n++] = o->secs[i].name;
		if (o->secs[i].nrel)
			names[n++] = rela[i];
	}
	if ((rc = string_table(names, n, at, &y->names)))
		goto out;
	y->symtab_name = at[0];
	y->strtab_name = at[1];
	y->shstrtab_name = at[2];
	n = 3;
	for (size_t i = 0; i < o->nsecs; i++) {
		o->secs[i].name_at = at[n++];
		if (o->secs[i].nrel)
			o->secs[i].rela_name_at = at[n++];
	}
out:
	free(names);
	free(at);
	return rc;
}

static enum ol_err put_header(const struct elf_object *o, const struct layout *y,
			      struct ol_buf *b)
{
	static const uint8_t ident[EI_NIDENT] = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64,
						  ELFDATA2LSB, EV_CURRENT, ELFOSABI_NONE };

	return ol_buf_append(b, ident, sizeof(ident)) | ol_buf_le16(b, ET_REL) |
	       ol_buf_le16(b, o->machine) | ol_buf_le32(b, EV_CURRENT) |
	       ol_buf_le64(b, 0) /* entry */ | ol_buf_le64(b, 0) /* phoff */ |
	       ol_buf_le64(b, y->shoff) | ol_buf_le32(b, 0) /* flags */ |
	       ol_buf_le16(b, sizeof(Elf64_Ehdr)) | ol_buf_le16(b, 0) /* phentsize */ |
	       ol_buf_le16(b, 0) /* phnum */ | ol_buf_le16(b, sizeof(Elf64_Shdr)) |
	       ol_buf_le16(b, (uint16_t)y->shnum) | ol_buf_le16(b, (uint16_t)y->shstrtab);
}

/* Pad out's own bytes with zeros until *len (what is written) is at. */
static enum ol_err pad_to(struct ol_pieces *out, uint64_t *len, uint64_t at)
{
	enum ol_err rc = ol_buf_zeros(&out->own, (size_t)(at - *len));

	*len = at;
	return rc;
}

static enum ol_err put_rela(const struct elf_object *o, const struct eo_section *s,
			    struct ol_buf *b)
{
	enum ol_err rc = OL_OK;

	for (size_t r = 0; r < s->nrel; r++)
		rc |= ol_buf_le64(b, s->rel[r].offset) |
		      ol_buf_le64(b, ELF64_R_INFO((uint64_t)o->syms[s->rel[r].sym].index,
						  s->rel[r].type)) |
		      ol_buf_le64(b, (uint64_t)s->rel[r].addend);
	return rc;
}

static enum ol_err put_section_headers(const struct elf_object *o, const struct layout *y,
				       struct ol_buf *b)
{
	enum ol_err rc = ol_buf_zeros(b, sizeof(Elf64_Shdr));

	for (size_t i = 0; i < o->nsecs; i++) {
		const struct eo_section *s = &o->secs[i];

		rc |= shdr(b, s->name_at, s->type, s->flags, s->offset, s->size, 0, 0, s->align,
			   s->entsize);
		if (s->nrel)
			rc |= shdr(b, s->rela_name_at, SHT_RELA, SHF_INFO_LINK, s->rela_offset,
				   s->nrel * sizeof(Elf64_Rela), y->symtab, s->index, 8,
				   sizeof(Elf64_Rela));
	}
	return rc | shdr(b, y->symtab_name, SHT_SYMTAB, 0, y->symtab_off, y->syms.len,
			 y->strtab, y->nlocal, 8, sizeof(Elf64_Sym)) |
	       shdr(b, y->strtab_name, SHT_STRTAB, 0, y->strtab_off, y->strs.len, 0, 0, 1, 0) |
	       shdr(b, y->shstrtab_name, SHT_STRTAB, 0, y->shstrtab_off, y->names.len, 0, 0,
		    1, 0);
}

/* Offsets: the contents in index order, the symbol and string tables,
 * the relocations, the section names, the section headers. */
static void lay_offsets(struct elf_object *o, struct layout *y)
{
	uint64_t off = sizeof(Elf64_Ehdr);

	for (size_t i = 0; i < o->nsecs; i++) {
		struct eo_section *s = &o->secs[i];

		s->offset = off = ol_align_up(off, s->align);
		if (s->type != SHT_NOBITS)
			off += s->size;
	}
	y->symtab_off = off = ol_align_up(off, 8);
	off += y->syms.len;
	y->strtab_off = off;
	off += y->strs.len;
	for (size_t i = 0; i < o->nsecs; i++)
		if (o->secs[i].nrel) {
			o->secs[i].rela_offset = off = ol_align_up(off, 8);
			off += o->secs[i].nrel * sizeof(Elf64_Rela);
		}
	y->shstrtab_off = off;
	off += y->names.len;
	y->shoff = ol_align_up(off, 8);
}

static enum ol_err emit(struct elf_object *o, struct layout *y, struct ol_pieces *out)
{
	enum ol_err rc = put_header(o, y, &out->own);
	uint64_t len = out->own.len;

	for (size_t i = 0; i < o->nsecs && !rc; i++) {
		const struct eo_section *s = &o->secs[i];

		if (s->type == SHT_NOBITS)
			continue;
		rc |= pad_to(out, &len, s->offset);
		for (size_t k = 0; k < s->data.n; k++) {
			const struct ol_piece *p = &s->data.v[k];

			rc |= p->ptr ? ol_pieces_ref(out, p->ptr, p->len)
				     : ol_buf_append(&out->own, ol_piece_data(&s->data, k), p->len);
			len += p->len;
		}
	}
	rc |= pad_to(out, &len, y->symtab_off) |
	      ol_buf_append(&out->own, y->syms.data, y->syms.len) |
	      ol_buf_append(&out->own, y->strs.data, y->strs.len);
	len += y->syms.len + y->strs.len;
	for (size_t i = 0; i < o->nsecs; i++)
		if (o->secs[i].nrel) {
			rc |= pad_to(out, &len, o->secs[i].rela_offset) |
			      put_rela(o, &o->secs[i], &out->own);
			len += o->secs[i].nrel * sizeof(Elf64_Rela);
		}
	rc |= ol_buf_append(&out->own, y->names.data, y->names.len);
	len += y->names.len;
	rc |= pad_to(out, &len, y->shoff) | put_section_headers(o, y, &out->own);
	return rc || ol_pieces_finish(out) ? OL_E_NOMEM : OL_OK;
}

enum ol_err eo_finish(struct elf_object *o, struct ol_pieces *out)
{
	struct layout y = { 0 };
	char **rela = NULL;
	unsigned idx = 1;
	enum ol_err rc = o->err;

	for (size_t i = 0; !rc && i < o->nsecs; i++)
		if (ol_pieces_finish(&o->secs[i].data))
			rc = OL_E_NOMEM;
	if (!rc && !(rela = calloc(o->nsecs ? o->nsecs : 1, sizeof(*rela))))
		rc = OL_E_NOMEM;
	for (size_t i = 0; !rc && i < o->nsecs; i++) {
		o->secs[i].index = idx++;
		if (o->secs[i].nrel) {
			o->secs[i].rela_index = idx++;
			if (!(rela[i] = malloc(strlen(o->secs[i].name) + 6)))
				rc = OL_E_NOMEM;
			else
				strcat(strcpy(rela[i], ".rela"), o->secs[i].name);
		}
	}
	y.symtab = idx++;
	y.strtab = idx++;
	y.shstrtab = idx++;
	y.shnum = idx;
	if (!rc)
		rc = lay_symbols(o, &y);
	if (!rc)
		rc = lay_names(o, &y, rela);
	if (!rc) {
		lay_offsets(o, &y);
		rc = emit(o, &y, out);
	}
	for (size_t i = 0; rela && i < o->nsecs; i++)
		free(rela[i]);
	free(rela);
	ol_buf_free(&y.syms);
	ol_buf_free(&y.strs);
	ol_buf_free(&y.names);
	return rc;
}
