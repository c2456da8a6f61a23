/* check_offload_entries: will the runtime find every kernel and variable
 * of the host's entry tables on each device the program is built for?
 *
 * A static library whose device code was built for sm_80 only, linked
 * into a program built for sm_90, links silently (with LLVM's wrapper as
 * before with offlink): the sm_90 image lacks the library's kernels, and
 * the user finds out at run time.  After the device links, for each
 * offload kind:
 *
 *   - the entries: those of every object the host link reads (objects on
 *     the line, archive members it pulls in), each with where it came
 *     from; an entry that names nothing on the device (a CUDA/HIP extern
 *     declaration, a surface, a texture) is left out;
 *   - the devices: the target of each image the program's own objects
 *     carry (not archive members': a library built for sm_80 does not make
 *     the program an sm_80 program), or, when all device code came from
 *     archives, the target of every image;
 *   - per device, the image the runtime loads there, as the runtimes
 *     choose: among the registered images it accepts for that device (a
 *     CPU image of the device's machine; a cubin of the same major SM and
 *     no newer minor; an AMDGPU code object whose target ID serves the
 *     device's; bitcode for the JIT with no arch), libomptarget loads the
 *     last in registration order; the CUDA and HIP runtimes the one built
 *     for the device exactly, else (as libomptarget) the last;
 *   - an entry that image does not define is reported with the entry, the
 *     device, the object or archive member it came from, and the images
 *     that do define it.
 *
 * Symbols are what the runtime looks up: a shared object's (CPU, AMDGPU)
 * dynamic symbols, a cubin's symbol table, bitcode's symbol table.  An
 * image of another form (SPIR-V, PTX) is not checked.
 * --offload-entries=warn (default) warns, =error fails the link before the
 * host link writes anything, =off does not look. */
#include "register/register.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/message.h"
#include "devlink/devlink.h"
#include "extract/elf_file.h"
#include "extract/entry_tables.h"
#include "extract/nvcc_rdc.h"
#include "format/bitcode_symtab.h"
#include "format/target_id.h"
#include "format/triple.h"

enum { CUDA_TYPE_MASK = 7, CUDA_SURFACE = 2, CUDA_TEXTURE = 3, CUDA_EXTERN = 8 };
/* An OpenMP entry that records `#pragma omp requires` (19 on; 22 names it
 * ".requires", 19 "", neither has an address): the runtime reads its
 * flags, it names nothing on the device. */
enum { OMP_REGISTER_REQUIRES = 0x10 };

struct entry {
	enum ob_offload_kind kind;
	const char *name;
	uint64_t size;
	uint32_t flags;
	const char *origin;
};

/* A group's linked image: what it defines (state 1), or unknown (-1). */
struct image_syms {
	int state;
	struct ol_map map;
	struct ol_strmap defined;
};

struct checker {
	struct ol_link *l;
	struct entry *v;
	size_t n, cap;
	struct ol_strmap seen;     /* "<kind>:<name>" already listed */
	struct image_syms *syms;   /* per group */
	const char *origin;        /* of the object being read */
	size_t reported;
};

/* ---- the entries ---- */

/* Entries that name a kernel, target region or variable the device
 * image defines.  Surveyed in 15 to 22, the others are: CUDA and HIP
 * extern declarations, surfaces and textures; OpenMP's requires records
 * (flags 0x10).  An entry with no name names nothing either. */
static bool names_device_symbol(const struct ol_offload_entry *e)
{
	if (!e->name[0])
		return false;
	if (e->kind == OB_OFK_CUDA || e->kind == OB_OFK_HIP) {
		unsigned type = e->flags & CUDA_TYPE_MASK;

		/* the defining object's entry is the one checked; surfaces and
		 * textures are references the runtime binds, not symbols */
		return !(e->flags & CUDA_EXTERN) && type != CUDA_SURFACE && type != CUDA_TEXTURE;
	}
	return e->kind == OB_OFK_OPENMP && !(e->flags & OMP_REGISTER_REQUIRES);
}

static enum ol_err on_entry(void *ctx, const struct ol_offload_entry *e, struct ol_diag *d)
{
	struct checker *c = ctx;
	struct entry *v;
	char *key;
	uintptr_t *slot;

	if (!names_device_symbol(e))
		return OL_OK;
	key = ol_arena_printf(&c->l->arena, "%d:%s", (int)e->kind, e->name);
	if (!key || !(slot = ol_strmap_put(&c->seen, key, strlen(key))))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if (*slot)
		return OL_OK; /* the same entry in another object */
	*slot = 1;
	if (!(v = ol_grow(c->v, c->n, &c->cap, sizeof(*v), 64)))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	c->v = v;
	v[c->n++] = (struct entry){ e->kind, e->name, e->size, e->flags, c->origin };
	return OL_OK;
}

static enum ol_err read_object(struct checker *c, uint8_t *p, size_t len, const char *file,
			       const char *member)
{
	struct ol_elf e;
	struct ol_diag d;
	enum ol_err rc;

	if (!ol_is_elf(p, len))
		return OL_OK;
	ol_diag_clear(&d);
	c->origin = member ? ol_arena_printf(&c->l->arena, "%s(%s)", file, member) : file;
	if (!c->origin || (rc = ol_elf_open(&e, p, len, &d)) != OL_OK) {
		rc = c->origin ? d.code : OL_E_NOMEM;
	} else {
		rc = ol_elf_offload_entries(&e, on_entry, c, &d);
		ol_elf_close(&e);
	}
	if (rc) {
		ol_diag_locate(&d, file, member, 0);
		ol_diag_prefix(&d, "its offload entries");
		ol_link_error(c->l, &d);
	}
	return rc;
}

/* nvcc's relocatable modules have no entry table: their kernels are their
 * cubins' entry functions (st_other 0x10), registered by the module's own
 * callback; checked as entries of the module's object. */
static enum ol_err on_nvcc_kernel(void *ctx, const struct ol_elf_symbol *s, struct ol_diag *d)
{
	struct ol_offload_entry e = { "__nv_relfatbin", OB_OFK_CUDA, s->name, 0, 0 };

	if (!s->defined || s->type != STT_FUNC || !(s->other & 0x10))
		return OL_OK;
	return on_entry(ctx, &e, d);
}

static enum ol_err read_nvcc_kernels(struct checker *c)
{
	enum ol_err rc = OL_OK;

	for (size_t i = 0; i < c->l->nimages; i++) {
		const struct ol_image *img = &c->l->images[i];
		struct ol_diag d;
		struct ol_elf e;

		if (!img->taken || img->kind != OB_OFK_CUDA ||
		    img->entry->image_kind != OB_IMG_CUBIN ||
		    !ob_entry_get(img->entry, OL_NVCC_MODULE_KEY))
			continue;
		ol_diag_clear(&d);
		c->origin = img->origin;
		if (ol_elf_open(&e, (uint8_t *)(uintptr_t)img->entry->image,
				(size_t)img->entry->image_size, &d) == OL_OK) {
			rc |= ol_elf_for_each_global(&e, false, on_nvcc_kernel, c, &d);
			ol_elf_close(&e);
		}
		if (d.code) {
			ol_diag_prefix(&d, "%s: its nvcc cubin for %s", ol_link_quote(c->l, img->origin),
				       img->arch);
			ol_link_error(c->l, &d);
			rc = d.code;
		}
	}
	return rc;
}

static enum ol_err read_entries(struct checker *c)
{
	enum ol_err rc = read_nvcc_kernels(c);

	for (size_t i = 0; i < c->l->ninputs; i++) {
		struct ol_input *in = &c->l->inputs[i];

		if (in->type == INPUT_OBJECT)
			rc |= read_object(c, in->map.data, in->map.len, in->path, NULL);
		for (size_t k = 0; in->type == INPUT_ARCHIVE && k < in->nmembers; k++)
			if (in->members[k].loaded)
				rc |= read_object(c, in->members[k].data, in->members[k].size,
						  in->path, in->members[k].name);
	}
	return rc ? OL_E_REPORTED : OL_OK;
}

/* ---- what an image defines ---- */

static enum ol_err on_elf(void *ctx, const struct ol_elf_symbol *s, struct ol_diag *d)
{
	struct image_syms *is = ctx;

	if (s->defined && !ol_strmap_put(&is->defined, s->name, strlen(s->name)))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	return OL_OK;
}

static enum ol_err on_bc(void *ctx, const struct bc_symbol *s, struct ol_diag *d)
{
	struct image_syms *is = ctx;

	if (!s->undefined && s->global && !ol_strmap_put(&is->defined, s->name, s->len))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	return OL_OK;
}

/* Read once; an image offlink cannot read the symbols of is unknown. */
static struct image_syms *image_syms(struct checker *c, const struct ol_group *g)
{
	struct image_syms *is = &c->syms[g - c->l->groups];
	struct ol_diag d;
	struct ol_elf e;
	enum ol_err rc = OL_E_UNSUPPORTED;

	if (is->state)
		return is;
	is->state = -1;
	ol_diag_clear(&d);
	if (ol_triple_is_spirv(g->triple) || !g->image_path ||
	    ol_map_file(g->image_path, &is->map, &d))
		return is;
	if (ol_is_elf(is->map.data, is->map.len) &&
	    ol_elf_open(&e, is->map.data, is->map.len, &d) == OL_OK) {
		/* a shared object is looked up through its dynamic symbols */
		rc = ol_elf_for_each_global(&e, e.ehdr.e_type == ET_DYN, on_elf, is, &d);
		ol_elf_close(&e);
	} else if (bc_is_bitcode(is->map.data, is->map.len)) {
		rc = bc_for_each_symbol(is->map.data, is->map.len, on_bc, is, &d);
	}
	is->state = rc ? -1 : 1;
	return is;
}

/* An AMDGPU kernel is found by its descriptor, "<name>.kd"; a HIP managed
 * variable's storage may be "<name>.managed". */
static bool defines(const struct image_syms *is, const char *name)
{
	static const char *const suffixes[] = { ".kd", ".managed" };
	size_t len = strlen(name);
	char buf[1024];

	if (ol_strmap_get(&is->defined, name, len))
		return true;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t sl = strlen(suffixes[i]);

		if (len + sl >= sizeof(buf))
			continue;
		memcpy(buf, name, len);
		memcpy(buf + len, suffixes[i], sl + 1);
		if (ol_strmap_get(&is->defined, buf, len + sl))
			return true;
	}
	return false;
}

/* ---- devices and the image each loads ---- */

static size_t machine_len(const char *triple)
{
	const char *dash = strchr(triple, '-');

	return dash ? (size_t)(dash - triple) : strlen(triple);
}

static bool same_machine(const char *a, const char *b)
{
	return machine_len(a) == machine_len(b) && !strncmp(a, b, machine_len(a));
}

static bool generic_arch(const char *arch)
{
	return !arch[0] || strcmp(arch, "generic") == 0;
}

/* "sm_86" -> 86; 0 for anything else ("sm_90a": exact matches only). */
static unsigned sm_number(const char *arch)
{
	unsigned n = 0;

	if (strncmp(arch, "sm_", 3) != 0 || !arch[3])
		return 0;
	for (const char *p = arch + 3; *p; p++) {
		if (*p < '0' || *p > '9' || n > 10000)
			return 0;
		n = n * 10 + (unsigned)(*p - '0');
	}
	return n;
}

/* The runtime accepts image g on a device the target of group dev names. */
static bool accepts(const struct ol_group *g, const struct ol_group *dev)
{
	struct ol_target_id code, target;
	struct ol_diag d;
	unsigned gs, ds;

	if (ol_triple_is_cpu(dev->triple))
		return ol_triple_is_cpu(g->triple) && same_machine(g->triple, dev->triple);
	if (ol_triple_is_nvptx(dev->triple) && ol_triple_is_nvptx(g->triple)) {
		gs = sm_number(g->arch);
		ds = sm_number(dev->arch);
		return generic_arch(g->arch) || !strcmp(g->arch, dev->arch) ||
		       (gs && ds && gs / 10 == ds / 10 && gs % 10 <= ds % 10);
	}
	if (ol_triple_is_amdgpu(dev->triple) && ol_triple_is_amdgpu(g->triple)) {
		ol_diag_clear(&d);
		return generic_arch(g->arch) ||
		       (!ol_target_id_parse(g->arch, &code, &d) &&
			!ol_target_id_parse(dev->arch, &target, &d) &&
			ol_target_id_serves(&code, &target));
	}
	return !strcmp(g->triple, dev->triple) && !strcmp(g->arch, dev->arch);
}

/* Devices are told apart as the runtime tells them: CPU images by machine. */
static bool same_device(const struct ol_group *a, const struct ol_group *b)
{
	if (ol_triple_is_cpu(a->triple) || ol_triple_is_cpu(b->triple))
		return ol_triple_is_cpu(a->triple) && ol_triple_is_cpu(b->triple) &&
		       same_machine(a->triple, b->triple);
	return !strcmp(a->triple, b->triple) && !strcmp(a->arch, b->arch);
}

static bool own_code(const struct ol_group *g)
{
	for (size_t i = 0; i < g->nimages; i++)
		if (g->images[i]->input && !g->images[i]->member)
			return true;
	return false;
}

/* The image the runtime loads on dev, from w's groups in registration order. */
static const struct ol_group *loaded_on(const struct ol_wrapper *w, const struct ol_group *dev)
{
	const struct ol_group *last = NULL;

	for (size_t i = 0; i < w->ngroups; i++) {
		const struct ol_group *g = w->groups[i];

		if (!accepts(g, dev))
			continue;
		if (w->kind != OB_OFK_OPENMP && !strcmp(g->triple, dev->triple) &&
		    !strcmp(g->arch, dev->arch))
			return g; /* the CUDA and HIP runtimes: the exact build */
		last = g;
	}
	return last;
}

/* ---- reporting ---- */

static const char *device_name(struct checker *c, const struct ol_group *dev)
{
	if (ol_triple_is_cpu(dev->triple))
		return ol_arena_printf(&c->l->arena, "%.*s", (int)machine_len(dev->triple),
				       dev->triple);
	return ol_link_quote(c->l, dev->arch);
}

static const char *image_name(struct checker *c, const struct ol_group *g)
{
	return ol_arena_printf(&c->l->arena, "%s %s%s%s", ob_offload_kind_name(g->kind),
			       ol_link_quote(c->l, g->triple), g->arch[0] ? " " : "",
			       g->arch[0] ? ol_link_quote(c->l, g->arch) : "");
}

/* The images of w that define name: "only the openmp ... sm_80 image has it". */
static const char *holders(struct checker *c, const struct ol_wrapper *w, const char *name)
{
	struct ol_buf b = { 0 };
	size_t n = 0;
	const char *r;

	for (size_t i = 0; i < w->ngroups; i++) {
		struct image_syms *is = image_syms(c, w->groups[i]);

		if (is->state == 1 && defines(is, name))
			ol_buf_printf(&b, "%s%s", n++ ? ", " : "", image_name(c, w->groups[i]));
	}
	r = !n ? "no image of the link defines it"
	       : ol_arena_printf(&c->l->arena, "only the %s%s %s it", n > 1 ? "images " : "",
				 b.data ? (const char *)b.data : "", n > 1 ? "have" : "image has");
	ol_buf_free(&b);
	return r ? r : "";
}

static const char *what(const struct entry *e)
{
	if (e->size)
		return "variable";
	return e->kind == OB_OFK_OPENMP ? "target region" : "kernel";
}

/* img: the image the runtime loads on dev, or NULL: none it can load. */
static void report(struct checker *c, const struct ol_wrapper *w, const struct entry *e,
		   const struct ol_group *dev, const struct ol_group *img)
{
	const char *msg = img ? ol_arena_printf(
		&c->l->arena, "%s %s (from %s) is not in the image the runtime loads on %s (%s): "
		"%s; on such a device it cannot be found",
		what(e), ol_link_quote(c->l, e->name), ol_link_quote(c->l, e->origin),
		device_name(c, dev), image_name(c, img), holders(c, w, e->name))
		: ol_arena_printf(
		&c->l->arena, "%s %s (from %s) has no image the runtime can load on %s, which the "
		"program's own device code is built for: %s; on such a device it cannot be found",
		what(e), ol_link_quote(c->l, e->name), ol_link_quote(c->l, e->origin),
		device_name(c, dev), holders(c, w, e->name));

	c->reported++;
	if (c->l->opt.offload_entries == ENTRIES_ERROR)
		ol_link_errorf(c->l, "%s", msg ? msg : "an offload entry is missing");
	else
		ol_link_warnf(c->l, "%s", msg ? msg : "an offload entry is missing");
}

/* Whether the runtime of kind drives devices of dev's target: CUDA's
 * NVIDIA GPUs, HIP's AMD GPUs. */
static bool drives(enum ob_offload_kind kind, const struct ol_group *dev)
{
	return (kind == OB_OFK_CUDA && ol_triple_is_nvptx(dev->triple)) ||
	       (kind == OB_OFK_HIP && ol_triple_is_amdgpu(dev->triple));
}

/* The devices w's entries are checked on: the targets of its groups that
 * hold the program's own code, or of all its groups when all of its code
 * came from libraries -- unless, then, the program's own code of another
 * kind is built for devices w's runtime drives: an sm_90 OpenMP program
 * with an nvcc library built for sm_80 runs on sm_90 GPUs, where the
 * library's kernels have no image (rule 2 of docs/design.md, "Offload
 * entries").  Into devs (one per device); *cross: taken from another
 * kind. */
static size_t devices(struct checker *c, const struct ol_wrapper *w, const struct ol_group **devs,
		      bool *cross)
{
	struct ol_link *l = c->l;
	bool any_own = false;
	size_t n = 0;

	*cross = false;
	for (size_t i = 0; i < w->ngroups; i++)
		any_own |= own_code(w->groups[i]);
	for (size_t k = 0; !any_own && k < l->nwrappers; k++)
		for (size_t i = 0; &l->wrappers[k] != w && i < l->wrappers[k].ngroups; i++) {
			const struct ol_group *g = l->wrappers[k].groups[i];
			bool seen = false;

			if (!own_code(g) || !drives(w->kind, g))
				continue;
			for (size_t j = 0; j < n && !seen; j++)
				seen = same_device(devs[j], g);
			if (!seen)
				devs[n++] = g;
		}
	if ((*cross = n > 0))
		return n;
	for (size_t i = 0; i < w->ngroups; i++) {
		const struct ol_group *dev = w->groups[i];
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = same_device(w->groups[k], dev) && (!any_own || own_code(w->groups[k]));
		if (!seen && (!any_own || own_code(dev)))
			devs[n++] = dev;
	}
	return n;
}

/* Every entry of w's kind on every device its program is built for. */
static void check_kind(struct checker *c, const struct ol_wrapper *w)
{
	const struct ol_group **devs = calloc(c->l->ngroups + 1, sizeof(*devs));
	size_t n;
	bool cross;

	if (!devs)
		return;
	n = devices(c, w, devs, &cross);
	for (size_t i = 0; i < n; i++) {
		const struct ol_group *dev = devs[i], *img = loaded_on(w, dev);
		struct image_syms *is = img ? image_syms(c, img) : NULL;

		if (!img && !cross)
			continue;
		if (is && is->state != 1)
			continue;
		for (size_t k = 0; k < c->n; k++)
			if (c->v[k].kind == w->kind && (!is || !defines(is, c->v[k].name)))
				report(c, w, &c->v[k], dev, img);
	}
	free(devs);
}

enum ol_err ol_check_offload_entries(struct ol_link *l)
{
	struct checker c = { .l = l };
	enum ol_err rc;

	if (l->opt.offload_entries == ENTRIES_OFF || l->opt.dry_run || !l->nwrappers)
		return OL_OK;
	c.syms = calloc(l->ngroups ? l->ngroups : 1, sizeof(*c.syms));
	if (!c.syms)
		return OL_E_NOMEM;
	rc = read_entries(&c);
	for (size_t i = 0; !rc && i < l->nwrappers; i++)
		check_kind(&c, &l->wrappers[i]);
	if (!rc && c.reported && l->opt.offload_entries == ENTRIES_WARN)
		ol_message("offlink", "note", "--offload-entries=error makes %s an error, "
			   "--offload-entries=off does not look", c.reported > 1 ? "these" : "this");
	for (size_t i = 0; i < l->ngroups; i++) {
		ol_strmap_free(&c.syms[i].defined);
		ol_unmap(&c.syms[i].map);
	}
	free(c.syms);
	free(c.v);
	ol_strmap_free(&c.seen);
	if (!rc && c.reported && l->opt.offload_entries == ENTRIES_ERROR)
		rc = OL_E_REPORTED;
	return rc;
}
