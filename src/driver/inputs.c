/* scan_inputs: find every file the host link reads (positional inputs and
 * -l libraries, searched as GNU ld searches them), map it, and collect the
 * device images it carries. */
#include "driver/phases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/grow.h"
#include "devplan/device_symbols.h"
#include "devlink/devlink.h"
#include "link/llvm_release.h"
#include "link/tools.h"
#include "extract/archive_reader.h"
#include "extract/elf_file.h"
#include "extract/nvcc_rdc.h"
#include "extract/offload_entries.h"
#include "extract/offload_scan.h"
#include "format/bitcode_symtab.h"
#include "format/triple.h"

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* "<sysroot>/x" for "=x" or "$SYSROOTx" (GNU ld's spellings). */
static const char *with_sysroot(struct ol_link *l, const char *dir)
{
	const char *root = l->sysroot ? l->sysroot : "";

	if (dir[0] == '=')
		return ol_arena_printf(&l->arena, "%s%s", root, dir + 1);
	if (strncmp(dir, "$SYSROOT", 8) == 0)
		return ol_arena_printf(&l->arena, "%s%s", root, dir + 8);
	return dir;
}

/* Debian's multiarch directory for the host triple: x86_64-linux-gnu. */
static const char *multiarch(struct ol_link *l)
{
	const char *t = l->opt.host_triple, *dash = strchr(t, '-');
	int arch = dash ? (int)(dash - t) : (int)strlen(t);

	return ol_arena_printf(&l->arena, "%.*s-linux-gnu", arch, t);
}

static const char *try_dir(struct ol_link *l, const char *dir, const char *name,
			   bool static_only)
{
	const char *p;

	if (name[0] == ':') {
		p = ol_arena_printf(&l->arena, "%s/%s", dir, name + 1);
		return is_file(p) ? p : NULL;
	}
	if (!static_only) {
		p = ol_arena_printf(&l->arena, "%s/lib%s.so", dir, name);
		if (is_file(p))
			return p;
	}
	p = ol_arena_printf(&l->arena, "%s/lib%s.a", dir, name);
	return is_file(p) ? p : NULL;
}

/* Which -L directories exist, looked up once: a line with 100k -L
 * directories and ten -l libraries would otherwise stat two million
 * files. */
static const bool *present_dirs(struct ol_link *l)
{
	static const bool none;
	struct stat st;

	if (l->lib_dir_present || !l->lib_dirs.n)
		return l->lib_dir_present ? l->lib_dir_present : &none;
	l->lib_dir_present = ol_arena_array(&l->arena, l->lib_dirs.n, sizeof(bool));
	for (size_t i = 0; l->lib_dir_present && i < l->lib_dirs.n; i++)
		l->lib_dir_present[i] = stat(with_sysroot(l, l->lib_dirs.v[i]), &st) == 0 &&
					S_ISDIR(st.st_mode);
	return l->lib_dir_present;
}

/* GNU ld's order: each -L directory in turn, .so before .a (only .a under
 * -Bstatic); then the system directories the linker searches by default,
 * which the clang driver usually also passes as -L. */
static const char *find_library(struct ol_link *l, const char *name,
				bool static_only)
{
	const char *defaults[] = { "/usr/local/lib", NULL, NULL, "/lib64",
				   "/usr/lib64", "/lib", "/usr/lib" };
	const bool *present = present_dirs(l);
	const char *found;

	for (size_t i = 0; i < l->lib_dirs.n; i++)
		if ((!l->lib_dir_present || present[i]) &&
		    (found = try_dir(l, with_sysroot(l, l->lib_dirs.v[i]), name,
				     static_only)))
			return found;
	defaults[1] = ol_arena_printf(&l->arena, "/lib/%s", multiarch(l));
	defaults[2] = ol_arena_printf(&l->arena, "/usr/lib/%s", multiarch(l));
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		const char *dir = l->sysroot
			? ol_arena_printf(&l->arena, "%s%s", l->sysroot, defaults[i])
			: defaults[i];

		if ((found = try_dir(l, dir, name, static_only)))
			return found;
	}
	return NULL;
}

static enum ol_input_type classify(struct ol_link *l, struct ol_input *in,
				   struct ol_diag *d)
{
	const uint8_t *p = in->map.data;
	size_t n = in->map.len;

	switch (ol_input_kind_of(p, n)) {
	case OL_INPUT_OFFLOAD_BINARY:
		return INPUT_OFFLOAD;
	case OL_INPUT_ARCHIVE:
		return INPUT_ARCHIVE;
	case OL_INPUT_ELF:
		if (n >= 18 && p[5] == 1 && (p[16] | p[17] << 8) == 1)
			return INPUT_OBJECT;
		if (n >= 18 && p[5] == 1 && (p[16] | p[17] << 8) == 3)
			return INPUT_SHARED;
		return INPUT_OTHER;
	case OL_INPUT_BITCODE:
		/* Host LTO objects: the host link reads them, offlink can
		 * read their symbols but not embedded device code. */
		if (memmem(p, n, ".llvm.offloading", 16)) {
			ol_diag_set(d, OL_E_UNSUPPORTED, NULL,
				    "LLVM bitcode with embedded offload code (host LTO) is not supported; "
				    "compile the host side without -flto");
			ol_diag_locate(d, in->path, NULL, 0);
			ol_link_error(l, d);
		}
		return INPUT_OBJECT;
	case OL_INPUT_OTHER:
		break;
	}
	return INPUT_OTHER;
}

static void open_input(struct ol_link *l, struct ol_input *in)
{
	struct ol_diag d;

	ol_diag_clear(&d);
	if (ol_map_file(in->path, &in->map, &d)) {
		ol_link_error(l, &d);
		in->type = INPUT_MISSING;
		return;
	}
	in->type = classify(l, in, &d);
}

/* Positional files and libraries become inputs, in command-line order. */
static enum ol_err resolve_items(struct ol_link *l)
{
	bool whole = false, bstatic = false;
	int group = -1;

	/* + the device runtimes offlink may add (OL_IMPLICIT_INPUTS) */
	l->inputs = calloc(l->nitems + l->opt.bitcode_libraries.n + OL_IMPLICIT_INPUTS,
			   sizeof(*l->inputs));
	if (!l->inputs)
		return OL_E_NOMEM;
	for (size_t i = 0; i < l->nitems; i++) {
		const struct ol_item *it = &l->items[i];
		struct ol_input *in;

		switch (it->kind) {
		case ITEM_WHOLE_ON: whole = true; continue;
		case ITEM_WHOLE_OFF: whole = false; continue;
		case ITEM_STATIC: bstatic = true; continue;
		case ITEM_DYNAMIC: bstatic = false; continue;
		case ITEM_GROUP_START: group = (int)i; continue;
		case ITEM_GROUP_END: group = -1; continue;
		case ITEM_FILE: case ITEM_LIBRARY: break;
		default: continue;
		}
		in = &l->inputs[l->ninputs++];
		in->item = it;
		in->whole_archive = whole;
		in->group = group;
		in->path = it->kind == ITEM_FILE ? it->value
						 : find_library(l, it->value, bstatic);
		if (!in->path) {
			ol_link_errorf(l, "unable to find library -l%s", it->value);
			in->type = INPUT_MISSING;
			continue;
		}
		open_input(l, in);
	}
	return OL_OK;
}

/* ---- device images ---- */

static enum ol_err keep_binary(struct ol_link *l, struct ob_binary *b,
			       struct ob_binary **kept)
{
	struct ob_binary *n = ol_grow(l->binaries, l->nbinaries, &l->capbinaries, sizeof(*n), 32);

	if (!n)
		return OL_E_NOMEM;
	l->binaries = n;
	*kept = &l->binaries[l->nbinaries++];
	**kept = *b;
	memset(b, 0, sizeof(*b));
	return OL_OK;
}

static struct ol_image *new_image(struct ol_link *l)
{
	struct ol_image *n = ol_grow(l->images, l->nimages, &l->capimages, sizeof(*n), 32);

	if (!n)
		return NULL;
	l->images = n;
	memset(&l->images[l->nimages], 0, sizeof(l->images[0]));
	return &l->images[l->nimages++];
}

struct scan_ctx {
	struct ol_link *l;
	struct ol_input *input;
	struct ol_member *member;
};

static enum ol_err on_binary(void *ctx, const struct ol_origin *o,
			     struct ob_binary *b, struct ol_diag *d)
{
	struct scan_ctx *s = ctx;
	struct ol_link *l = s->l;
	struct ob_binary *kept;

	if (keep_binary(l, b, &kept))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	for (size_t i = 0; i < kept->nentries; i++) {
		const struct ob_entry *e = &kept->entries[i];
		struct ol_image *img;
		const char *triple = ob_entry_get(e, "triple");
		const char *arch = ob_entry_get(e, "arch");

		if (e->flags & OB_FLAG_METADATA_ONLY)
			continue;
		if (!triple || !*triple) {
			ol_diag_at(d, OL_E_BAD_FIELD, o->offset, "triple",
				   "a device image without a target triple");
			ol_diag_locate(d, o->file, o->member, 0);
			return d->code;
		}
		img = new_image(l);
		if (!img)
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		img->entry = e;
		img->kind = e->offload_kind;
		img->triple = triple;
		img->arch = arch ? arch : "";
		/* clang 22 names a CPU or SPIR-V device's arch "generic" where
		 * 16 and 19 leave a CPU's empty: one target (and never
		 * -march=generic, which clang rejects for x86_64; LLVM 22
		 * registers SPIR-V images with an empty arch too). */
		if (strcmp(img->arch, "generic") == 0 &&
		    (ol_triple_is_cpu(triple) || ol_triple_is_spirv(triple)))
			img->arch = "";
		img->input = s->input;
		img->member = s->member;
		img->final = o->final;
		img->origin = o->member
			? ol_arena_printf(&l->arena, "%s(%s)", o->file, o->member)
			: o->file;
	}
	return OL_OK;
}

struct section_ctx {
	struct scan_ctx *scan;
	const char *file, *member;
	struct ol_nvcc_sections nvcc; /* nvcc's, met on the way */
};

/* Offload sections, and which entry table the objects were built with. */
static enum ol_err on_section(void *ctx, const struct ol_elf_section *s,
			      struct ol_diag *d)
{
	struct section_ctx *c = ctx;
	struct ol_link *l = c->scan->l;
	struct ol_origin o = { c->file, c->member, s->name, s->shdr.sh_offset,
			       (s->shdr.sh_flags & SHF_ALLOC) != 0 };

	if (strcmp(s->name, "llvm_offload_entries") == 0)
		l->new_entries = true;
	ol_nvcc_note_section(&c->nvcc, s);
	if (!ol_elf_is_offload_section(s))
		return OL_OK;
	return ol_scan_binaries(&o, s->data, s->size, on_binary, c->scan, d);
}

static enum ol_err on_managed(void *ctx, const char *section, const char *init,
			      const char *pointer, struct ol_diag *d)
{
	struct scan_ctx *sc = ctx;
	struct ol_link *l = sc->l;
	struct ol_managed *m = ol_grow(l->managed, l->nmanaged, &l->capmanaged, sizeof(*m), 16);

	if (!m)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	l->managed = m;
	m = &l->managed[l->nmanaged++];
	m->kind = strncmp(section, "hip", 3) == 0 ? OB_OFK_HIP : OB_OFK_CUDA;
	m->init_symbol = ol_arena_strdup(&l->arena, init);
	m->pointer_symbol = pointer ? ol_arena_strdup(&l->arena, pointer) : NULL;
	m->input = sc->input;
	m->member = sc->member;
	return OL_OK;
}

/* The clang release that made the images just found (choose_llvm). */
static void note_producer(struct ol_link *l, struct ol_elf *e, size_t first_image)
{
	unsigned major = l->nimages > first_image ? ol_elf_clang_major(e) : 0;

	for (size_t i = first_image; i < l->nimages; i++)
		l->images[i].producer = major;
}

/* nvcc's relocatable device code (extract/nvcc_rdc.h): its cubins and
 * PTX become the object's CUDA images, as if clang had embedded them. */
static enum ol_err scan_nvcc(struct section_ctx *c, struct ol_diag *d)
{
	struct ol_nvcc_module m;
	struct ob_binary b;
	bool found;

	if (ol_nvcc_module_of(&c->nvcc, &m, &found, d) || !found)
		return d->code;
	if (ol_nvcc_binary(&m, &b, d)) {
		if (d->has_offset)
			d->offset += m.fatbin_offset;
		ol_diag_prefix(d, "nvcc relocatable device code (__nv_relfatbin)");
		return d->code;
	}
	struct ol_origin o = { c->file, c->member, "__nv_relfatbin", m.fatbin_offset, false };
	size_t first = c->scan->l->nimages;
	enum ol_err rc = on_binary(c->scan, &o, &b, d);

	ob_binary_free(&b);
	for (size_t i = first; !rc && i < c->scan->l->nimages; i++)
		c->scan->l->images[i].nvcc_module =
			ob_entry_get(c->scan->l->images[i].entry, OL_NVCC_MODULE_KEY);
	return rc;
}

struct def_ctx {
	struct scan_ctx *scan;
	const char *origin;
};

static enum ol_err on_def(void *ctx, const char *id, struct ol_diag *d)
{
	struct def_ctx *c = ctx;
	struct ol_link *l = c->scan->l;
	struct ol_nvcc_def *v = ol_grow(l->nvcc_defs, l->nnvcc_defs, &l->capnvcc_defs,
					sizeof(*v), 8);

	if (!v)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	l->nvcc_defs = v;
	l->nvcc_defs[l->nnvcc_defs++] = (struct ol_nvcc_def){
		ol_arena_strdup(&l->arena, id), c->origin, c->scan->input, c->scan->member };
	return OL_OK;
}

static void scan_elf(struct ol_link *l, struct scan_ctx *sc, const char *file,
		     const char *member, uint8_t *p, size_t n)
{
	struct section_ctx c = { .scan = sc, .file = file, .member = member };
	size_t first_image = l->nimages;
	struct ol_diag d;
	struct ol_elf e;

	ol_diag_clear(&d);
	if (ol_elf_open(&e, p, n, &d) == OL_OK) {
		struct def_ctx dc = { sc, member ? ol_arena_printf(&l->arena, "%s(%s)", file, member)
						 : file };

		if (ol_elf_for_each_section(&e, on_section, &c, &d) == OL_OK &&
		    e.ehdr.e_type == ET_REL && ol_elf_managed_vars(&e, on_managed, sc, &d) == OL_OK &&
		    scan_nvcc(&c, &d) == OL_OK)
			ol_nvcc_registered(&c.nvcc, on_def, &dc, &d);
		note_producer(l, &e, first_image);
		ol_elf_close(&e);
	}
	if (d.code) {
		ol_diag_locate(&d, file, member, 0);
		ol_link_error(l, &d);
	}
}

static enum ol_err add_member(void *ctx, const struct ol_ar_member *m,
			      struct ol_diag *d)
{
	struct scan_ctx *sc = ctx;
	struct ol_input *a = sc->input;
	struct ol_member *mem = &a->members[a->nmembers++];
	struct ol_link *l = sc->l;

	(void)d;
	mem->archive = a;
	mem->name = ol_arena_strdup(&l->arena, m->name);
	mem->data = m->data;
	mem->size = m->size;
	mem->header_offset = m->header_offset;
	mem->first_image = l->nimages;
	if (ol_is_elf(m->data, m->size)) {
		sc->member = mem;
		scan_elf(l, sc, a->path, mem->name, m->data, m->size);
		sc->member = NULL;
	}
	mem->nimages = l->nimages - mem->first_image;
	return OL_OK;
}

static enum ol_err count_member(void *ctx, const struct ol_ar_member *m,
				struct ol_diag *d)
{
	(void)m;
	(void)d;
	++*(size_t *)ctx;
	return OL_OK;
}

static void scan_archive(struct ol_link *l, struct ol_input *in)
{
	struct scan_ctx sc = { l, in, NULL };
	size_t count = 0;
	struct ol_diag d;

	ol_diag_clear(&d);
	if (ol_archive_for_each(in->path, in->map.data, in->map.len, count_member, &count,
				NULL, &d) == OL_OK) {
		in->members = ol_arena_array(&l->arena, count ? count : 1,
					     sizeof(*in->members));
		if (!in->members) {
			ol_diag_set(&d, OL_E_NOMEM, NULL, NULL);
		} else {
			ol_archive_for_each(in->path, in->map.data, in->map.len, add_member, &sc,
					    &in->thin, &d);
		}
	}
	if (d.code) {
		ol_diag_locate(&d, in->path, NULL, 0);
		ol_link_error(l, &d);
	}
}

static void scan_one(struct ol_link *l, struct ol_input *in)
{
	struct scan_ctx sc = { l, in, NULL };
	struct ol_origin raw = { in->path, NULL, NULL, 0, false };
	struct ol_diag d;

	in->first_image = l->nimages;
	ol_diag_clear(&d);
	switch (in->type) {
	case INPUT_OBJECT:
		if (ol_is_elf(in->map.data, in->map.len))
			scan_elf(l, &sc, in->path, NULL, in->map.data, in->map.len);
		break;
	case INPUT_OFFLOAD:
		if (ol_scan_binaries(&raw, in->map.data, in->map.len, on_binary, &sc, &d))
			ol_link_error(l, &d);
		break;
	case INPUT_ARCHIVE:
		scan_archive(l, in);
		break;
	default:
		break;
	}
	in->nimages = l->nimages - in->first_image;
}

/* A device image not inside any container: a --bitcode-library file. */
static struct ol_image *loose_image(struct ol_link *l, struct ol_input *in,
				    enum ob_offload_kind kind)
{
	struct ob_entry *e = ol_arena_alloc(&l->arena, sizeof(*e));
	struct ol_image *img;

	if (!e || !(img = new_image(l)))
		return NULL;
	e->image = in->map.data;
	e->image_size = in->map.len;
	e->image_kind = (uint16_t)ob_image_kind_for_file(in->path, in->map.data,
							 in->map.len, 0);
	e->offload_kind = kind;
	e->offload_kind_raw = ob_offload_kind_to_raw(kind, 0);
	img->entry = e;
	img->kind = kind;
	img->input = in;
	img->origin = in->path;
	return img;
}

/* Split "<kind>-<triple>-<arch>=<file>" (arch may be empty). */
static bool split_bitcode_spec(struct ol_link *l, const char *spec,
			       const char **kind, const char **triple,
			       const char **arch, const char **path)
{
	const char *eq = strchr(spec, '=');
	char *target, *first, *last;

	if (!eq)
		return false;
	target = ol_arena_strndup(&l->arena, spec, (size_t)(eq - spec));
	first = target ? strchr(target, '-') : NULL;
	last = target ? strrchr(target, '-') : NULL;
	if (!first || first == last)
		return false;
	*first = *last = '\0';
	*kind = target;
	*triple = first + 1;
	*arch = last + 1;
	*path = eq + 1;
	return true;
}

/* --bitcode-library=<kind>-<triple>-<arch>=<file>: device bitcode always
 * linked into that target's group. */
static void add_bitcode_libraries(struct ol_link *l)
{
	for (size_t i = 0; i < l->opt.bitcode_libraries.n; i++) {
		const char *spec = l->opt.bitcode_libraries.v[i];
		const char *kind, *triple, *arch, *path;
		struct ol_input *in = &l->inputs[l->ninputs];
		struct ol_image *img;

		if (!split_bitcode_spec(l, spec, &kind, &triple, &arch, &path)) {
			ol_link_errorf(l, "--bitcode-library=%s: expected <kind>-<triple>-<arch>=<file>", spec);
			continue;
		}
		memset(in, 0, sizeof(*in));
		in->path = path;
		in->group = -1;
		open_input(l, in);
		if (in->type == INPUT_MISSING)
			continue;
		l->ninputs++;
		img = loose_image(l, in, ob_offload_kind_parse(kind));
		if (!img)
			return;
		img->triple = triple;
		img->arch = arch;
		img->why = "--bitcode-library";
	}
}

static bool is_gpu_triple(const char *t)
{
	return ol_triple_is_nvptx(t) || ol_triple_is_amdgpu(t);
}

/* A final link gets OpenMP's GPU device runtime from the -lomptarget.devicertl
 * the clang driver adds; a relocatable (-r) link line has none, so GPU
 * device code could not link (LLVM 19's -r fails so).  When OpenMP GPU
 * code is linked with -r and no input is that library, it is taken from
 * the chosen LLVM release's library directory, for device code only: it
 * is never given to the host linker (it is not in the items).  A phase of
 * its own, after choose_llvm, which says whose runtime it is. */
enum ol_err ol_add_relocatable_runtime(struct ol_link *l)
{
	static const char lib[] = "libomptarget.devicertl.a";
	bool gpu = false;
	struct ol_input *in;
	const char *path;

	/* (from 23 clang names the runtime on the -r line too: -lompdevice,
	 * a device linker library, checked where the device links plan) */
	if (!l->opt.relocatable || ol_llvm_at_least(l, 23))
		return OL_OK;
	for (size_t i = 0; i < l->nimages && !gpu; i++)
		gpu = l->images[i].kind == OB_OFK_OPENMP && !l->images[i].final &&
		      is_gpu_triple(l->images[i].triple);
	for (size_t i = 0; i < l->ninputs && gpu; i++) {
		const char *base = strrchr(l->inputs[i].path ? l->inputs[i].path : "", '/');

		if (strcmp(base ? base + 1 : l->inputs[i].path ? l->inputs[i].path : "", lib) == 0)
			return OL_OK; /* given on the command line */
	}
	if (!gpu)
		return OL_OK;
	path = ol_clang_library(l, lib);
	if (!path) {
		ol_link_warnf(l, "-r: OpenMP GPU code, but no %s beside clang: pass -l%s "
				 "and its -L directory", lib, "omptarget.devicertl");
		return OL_OK;
	}
	/* Its members are device code only: taken for the symbols linked
	 * device code needs. */
	return ol_add_implicit_input(l, path, &in);
}

enum ol_err ol_add_implicit_input(struct ol_link *l, const char *path, struct ol_input **added)
{
	struct ol_input *in = &l->inputs[l->ninputs];

	*added = NULL;
	memset(in, 0, sizeof(*in));
	in->group = -1;
	in->implicit = true;
	in->path = path;
	open_input(l, in);
	if (in->type == INPUT_MISSING)
		return l->nerrors ? OL_E_REPORTED : OL_OK;
	l->ninputs++;
	scan_one(l, in);
	if (l->nerrors)
		return OL_E_REPORTED;
	*added = in;
	return ol_resolve_device_symbols(l);
}

enum ol_err ol_scan_inputs(struct ol_link *l)
{
	/* --override-image: the images are given, nothing is scanned. */
	if (l->opt.override_images.n)
		return OL_OK;
	if (resolve_items(l))
		return OL_E_NOMEM;
	add_bitcode_libraries(l);
	for (size_t i = 0; i < l->ninputs; i++)
		if (l->inputs[i].type != INPUT_MISSING)
			scan_one(l, &l->inputs[i]);
	l->entries_section = l->new_entries ? "llvm_offload_entries"
					    : "omp_offloading_entries";
	return l->nerrors ? OL_E_REPORTED : OL_OK;
}
