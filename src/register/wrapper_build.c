/* emit_wrappers and compile_wrappers: one registration object per offload
 * kind present.  OpenMP's on an x86_64 host is written by offlink itself,
 * the object the assembler would make (wrap/openmp_object.c): no process
 * at all.  Otherwise, for x86_64 and aarch64 hosts, it is written as
 * assembly and assembled by the host's assembler (GNU as, the cross
 * binutils' as, or the LLVM release's llvm-mc): a few milliseconds where a
 * compiler process costs tens.  Otherwise, or with --registration=c, it
 * is C, compiled by clang for the host triple (wrap/). */
#include "register/register.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "common/message.h"
#include "common/pieces.h"
#include "format/offload_binary.h"
#include "link/llvm_release.h"
#include "link/tools.h"
#include "register/bundle.h"
#include "os/findprog.h"
#include "os/mapfile.h"
#include "os/outfile.h"
#include "wrap/asm_code.h"
#include "wrap/wrapper.h"

static const enum ob_offload_kind kinds[] = { OB_OFK_OPENMP, OB_OFK_CUDA, OB_OFK_HIP, OB_OFK_SYCL };

/* Every origin of the group's images, for the generated comment. */
static const char *origins_of(struct ol_link *l, const struct ol_group *g)
{
	struct ol_buf b = { 0 };
	const char *s;

	for (size_t i = 0; i < g->nimages; i++)
		ol_buf_printf(&b, "%s%s", i ? ", " : "", g->images[i]->origin);
	s = ol_arena_strdup(&l->arena, b.data ? (char *)b.data : "");
	ol_buf_free(&b);
	return s;
}

static enum ol_err plan_compile(struct ol_link *l, struct ol_wrapper *w)
{
	struct ol_cmd *c = ol_wrapper_add_step(l, w, l->clang, "compile the registration code for");

	if (!c)
		return OL_E_NOMEM;
	c->response_file = true;
	if (ol_llvm_at_least(l, 16)) /* (it came with 16's default config files) */
		ol_strvec_push(&c->argv, "--no-default-config");
	ol_strvec_pushf(&c->argv, "--target=%s", l->opt.host_triple);
	/* The same code in a PIE, a shared library or a static program. */
	ol_strvec_push(&c->argv, "-fPIC");
	ol_strvec_push(&c->argv, "-O2");
	ol_strvec_push(&c->argv, "-c");
	ol_strvec_push(&c->argv, w->source_path);
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, w->object_path);
	return c->argv.err;
}

/* The assembler for arch: $OFFLINK_AS, the binutils one named after the
 * architecture, the plain `as` when the host is this machine's
 * architecture, else the LLVM release's llvm-mc.  *mc: it is llvm-mc. */
static char *find_assembler(struct ol_link *l, const struct asm_arch *a, bool *mc)
{
	const char *env = getenv("OFFLINK_AS");
	struct utsname u;
	char *found = NULL;

	*mc = false;
	if (env && *env) {
		found = ol_find_in_path(env);
		*mc = found && strstr(found, "llvm-mc");
		return found;
	}
	found = ol_find_in_path(ol_arena_printf(&l->arena, "%s-linux-gnu-as", a->name));
	if (!found && uname(&u) == 0 && strcmp(u.machine, a->name) == 0)
		found = ol_find_in_path("as");
	if (!found && (found = ol_llvm_tool(l, "llvm-mc", NULL)))
		*mc = true;
	return found;
}

/* An object offlink writes (w->object), assembly (w->arch set,
 * *assembler found) or C: --registration, else $OFFLINK_REGISTRATION,
 * else "auto" (the object where offlink writes one, else assembly where
 * it can be, else C). */
static enum ol_err choose_form(struct ol_link *l, struct ol_wrapper *w, char **assembler,
			       bool *mc)
{
	const char *mode = l->opt.registration ? l->opt.registration : getenv("OFFLINK_REGISTRATION");
	const struct asm_arch *a = asm_arch_of(l->opt.host_triple);
	const char *why = NULL;

	*assembler = NULL;
	*mc = false;
	w->llvm_as = true; /* until an assembler other than LLVM's is found */
	if (!mode || !*mode)
		mode = "auto";
	if (strcmp(mode, "c") == 0)
		return OL_OK;
	if (strcmp(mode, "asm") != 0 && strcmp(mode, "auto") != 0 && strcmp(mode, "obj") != 0) {
		ol_link_errorf(l, "OFFLINK_REGISTRATION=%s: expected obj, asm, c or auto",
			       ol_link_quote(l, mode));
		return OL_E_USAGE;
	}
	/* (the object form is x86_64's OpenMP registration of a link) */
	if (strcmp(mode, "asm") != 0 && w->kind == OB_OFK_OPENMP && a == &asm_x86_64) {
		w->object = true;
		w->llvm_as = false;
		return OL_OK;
	}
	if (strcmp(mode, "obj") == 0) {
		ol_link_errorf(l, "--registration=obj: offlink writes the object itself only for "
				  "OpenMP on x86_64 hosts (%s registration, host %s); use auto",
			       ob_offload_kind_name(w->kind), ol_link_quote(l, l->opt.host_triple));
		return OL_E_USAGE;
	}
	if (!a)
		why = ol_arena_printf(&l->arena, "offlink writes no assembly for host %s",
				      ol_link_quote(l, l->opt.host_triple));
	else if (ol_bundles(w) && !ol_bundle_asm_names_ok(l, w))
		why = "a managed variable's name is not one the assembly path writes";
	else if (!(*assembler = find_assembler(l, a, mc)))
		why = ol_arena_printf(&l->arena, "no assembler for %s ($OFFLINK_AS, %s-linux-gnu-as, "
					     "as, llvm-mc of LLVM %u)", a->name, a->name, l->llvm.major);
	if (!why) {
		w->arch = a;
		w->llvm_as = *mc;
		return OL_OK;
	}
	w->llvm_as = true; /* C, compiled by clang */
	if (strcmp(mode, "asm") == 0) {
		ol_link_errorf(l, "--registration=asm: %s", why);
		return OL_E_USAGE;
	}
	return OL_OK;
}

static enum ol_err plan_assemble(struct ol_link *l, struct ol_wrapper *w,
				 const char *assembler, bool mc)
{
	struct ol_cmd *c = ol_wrapper_add_step(l, w, assembler, "assemble the registration code for");

	if (!c)
		return OL_E_NOMEM;
	if (mc) {
		ol_strvec_pushf(&c->argv, "--triple=%s", l->opt.host_triple);
		ol_strvec_push(&c->argv, "-filetype=obj");
	}
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, w->object_path);
	ol_strvec_push(&c->argv, w->source_path);
	return c->argv.err;
}

enum ol_err ol_plan_wrappers(struct ol_link *l)
{
	l->wrappers = calloc(sizeof(kinds) / sizeof(kinds[0]), sizeof(*l->wrappers));
	if (!l->wrappers)
		return OL_E_NOMEM;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct ol_wrapper *w = &l->wrappers[l->nwrappers];
		const char *name = ob_offload_kind_name(kinds[k]);
		char *assembler = NULL;
		bool mc;
		enum ol_err rc;

		w->kind = kinds[k];
		w->groups = ol_arena_array(&l->arena, l->ngroups ? l->ngroups : 1,
					   sizeof(*w->groups));
		if (!w->groups)
			return OL_E_NOMEM;
		for (size_t i = 0; i < l->ngroups; i++)
			if (l->groups[i].kind == kinds[k])
				w->groups[w->ngroups++] = &l->groups[i];
		if (!w->ngroups)
			continue;
		if (ol_order_registration(l, w))
			return OL_E_NOMEM;
		l->nwrappers++;
		if ((rc = choose_form(l, w, &assembler, &mc)))
			return rc;
		w->object_path = strdup(ol_link_temp_path(
			l, ol_arena_printf(&l->arena, "%s.image.wrapper.o", name)));
		if (!w->object_path)
			return OL_E_NOMEM;
		if (w->object)
			continue;
		w->source_path = strdup(ol_link_temp_path(
			l, ol_arena_printf(&l->arena, "%s.image.wrapper.%s", name, w->arch ? "s" : "c")));
		if (!w->source_path) {
			free(assembler);
			return OL_E_NOMEM;
		}
		if (ol_bundles(w) && ol_plan_bundle(l, w)) {
			free(assembler);
			return l->nerrors ? OL_E_REPORTED : OL_E_NOMEM;
		}
		rc = w->arch ? plan_assemble(l, w, assembler, mc) : plan_compile(l, w);
		free(assembler);
		if (rc)
			return OL_E_NOMEM;
	}
	return OL_OK;
}

static enum ol_err image_size(struct ol_link *l, const char *path, uint64_t *size)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		ol_link_errorf(l, "%s: the device linker produced no image", path);
		return OL_E_IO;
	}
	*size = (uint64_t)st.st_size;
	return OL_OK;
}

/* The image kind the entry declares: what the linked file is (bitcode
 * under --embed-bitcode, an ELF object or cubin otherwise), read from its
 * first bytes so that the label never claims what the bytes are not. */
static uint16_t image_kind_of(const uint8_t *head, size_t n)
{
	static const unsigned char bc[4] = { 'B', 'C', 0xc0, 0xde };

	return n >= sizeof(bc) && memcmp(head, bc, sizeof(bc)) == 0 ? OB_IMG_BITCODE
								     : OB_IMG_OBJECT;
}

static uint16_t linked_image_kind(const char *path)
{
	uint8_t head[4];
	FILE *f = fopen(path, "rb");
	size_t n = 0;

	if (f) {
		n = fread(head, 1, sizeof(head), f);
		fclose(f);
	}
	return image_kind_of(head, n);
}

/* The OpenMP registration's description: its images, in w's order;
 * maps (when given): each image mapped, for the object form. */
static enum ol_err openmp_images(struct ol_link *l, struct ol_wrapper *w,
				 struct wrap_image *imgs, struct ol_map *maps, struct ol_diag *d)
{
	for (size_t i = 0; i < w->ngroups; i++) {
		const struct ol_group *g = w->groups[i];
		enum ol_err rc;

		imgs[i] = (struct wrap_image){ g->triple, g->arch, g->image_path, 0,
					       OB_IMG_OBJECT, origins_of(l, g), 0, NULL };
		if (maps) { /* (the kind from the mapping: the file is read once) */
			if ((rc = ol_map_file_fd(g->image_path, &maps[i], d)))
				return rc;
			imgs[i].size = maps[i].len;
			imgs[i].data = maps[i].data;
			imgs[i].image_kind = image_kind_of(maps[i].data, maps[i].len);
		} else if ((rc = image_size(l, g->image_path, &imgs[i].size))) {
			return rc;
		} else {
			imgs[i].image_kind = linked_image_kind(g->image_path);
		}
	}
	return OL_OK;
}

static struct wrap_openmp openmp_of(struct ol_link *l, const struct ol_wrapper *w,
				    const struct wrap_image *imgs)
{
	return (struct wrap_openmp){ l->output, imgs, w->ngroups,
				     l->new_entries ? "llvm_offload_entries"
						    : "omp_offloading_entries",
				     l->opt.relocatable, WRAP_OMP_LINK,
				     ob_release_version(l->llvm.major) };
}

static enum ol_err openmp_source(struct ol_link *l, struct ol_wrapper *w,
				 struct ol_buf *src, struct ol_diag *d)
{
	struct wrap_image *imgs = calloc(w->ngroups, sizeof(*imgs));
	struct wrap_openmp wo = openmp_of(l, w, imgs);
	enum ol_err rc;

	if (!imgs)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	rc = openmp_images(l, w, imgs, NULL, d);
	if (!rc)
		rc = w->arch ? wrap_openmp_asm(&wo, w->arch, src, d) : wrap_openmp_source(&wo, src, d);
	free(imgs);
	return rc;
}

/* SYCL: each group's image (clang-sycl-linker's offload binary) as it
 * is; the release decides the constructor's form. */
static enum ol_err sycl_source(struct ol_link *l, struct ol_wrapper *w, struct ol_buf *src,
			       struct ol_diag *d)
{
	struct wrap_image *imgs = calloc(w->ngroups, sizeof(*imgs));
	struct wrap_sycl ws = { l->output, imgs, w->ngroups, l->opt.relocatable,
				ol_llvm_at_least(l, 24) };
	enum ol_err rc = imgs ? OL_OK : ol_diag_set(d, OL_E_NOMEM, NULL, NULL);

	for (size_t i = 0; i < w->ngroups && !rc; i++) {
		const struct ol_group *g = w->groups[i];

		imgs[i] = (struct wrap_image){ g->triple, g->arch, g->image_path, 0,
					       OB_IMG_NONE, origins_of(l, g), 0, NULL };
		rc = image_size(l, g->image_path, &imgs[i].size);
	}
	if (!rc)
		rc = w->arch ? wrap_sycl_asm(&ws, w->arch, src, d) : wrap_sycl_source(&ws, src, d);
	free(imgs);
	return rc;
}

static enum ol_err write_source(struct ol_link *l, struct ol_wrapper *w)
{
	struct ol_buf src = { 0 };
	struct ol_diag d;
	enum ol_err rc;

	ol_diag_clear(&d);
	if (w->kind == OB_OFK_OPENMP)
		rc = openmp_source(l, w, &src, &d);
	else if (w->kind == OB_OFK_SYCL)
		rc = sycl_source(l, w, &src, &d);
	else
		rc = ol_bundle_source(l, w, &src, &d);
	if (!rc)
		rc = ol_write_file_atomic(w->source_path, src.data, src.len, &d);
	if (!rc && l->opt.print_wrapped)
		fwrite(src.data, 1, src.len, stderr);
	if (rc && d.code) /* a missing image was reported where it was found */
		ol_link_error(l, &d);
	ol_buf_free(&src);
	return rc;
}

/* The object form: the images mapped and written into the object from
 * their files; --print-wrapped shows the assembly it is the object of. */
static enum ol_err write_object(struct ol_link *l, struct ol_wrapper *w)
{
	struct wrap_image *imgs = calloc(w->ngroups, sizeof(*imgs));
	struct ol_map *maps = calloc(w->ngroups, sizeof(*maps));
	struct wrap_openmp wo = openmp_of(l, w, imgs);
	struct ol_pieces obj = { 0 };
	struct ol_buf text = { 0 };
	struct ol_diag d;
	enum ol_err rc;

	ol_diag_clear(&d);
	if (!imgs || !maps)
		rc = ol_diag_set(&d, OL_E_NOMEM, NULL, NULL);
	else
		rc = openmp_images(l, w, imgs, maps, &d);
	if (!rc)
		rc = wrap_openmp_object(&wo, &obj, &d);
	for (size_t i = 0; !rc && i < w->ngroups; i++)
		ol_pieces_attach_file(&obj, maps[i].data, maps[i].len, ol_map_fd(&maps[i]));
	if (!rc)
		rc = ol_write_pieces_atomic(w->object_path, &obj, &d);
	if (!rc && l->opt.verbose)
		ol_message("offlink", NULL, "%s registration: written by offlink as an x86_64 object, %s",
			   ob_offload_kind_name(w->kind), w->object_path);
	if (!rc && l->opt.print_wrapped && !wrap_openmp_asm(&wo, &asm_x86_64, &text, &d))
		fwrite(text.data, 1, text.len, stderr);
	if (rc)
		ol_link_error(l, &d);
	for (size_t i = 0; maps && i < w->ngroups; i++)
		ol_unmap(&maps[i]);
	free(maps);
	free(imgs);
	ol_pieces_free(&obj);
	ol_buf_free(&text);
	return rc;
}

enum ol_err ol_build_wrappers(struct ol_link *l)
{
	for (size_t k = 0; k < l->nwrappers; k++) {
		struct ol_wrapper *w = &l->wrappers[k];
		size_t last;
		struct ol_diag d;
		int status;

		if (w->object) { /* (no step: offlink writes it) */
			if (!l->opt.dry_run && write_object(l, w))
				return OL_E_IO;
			continue;
		}
		last = w->nsteps - 1;
		/* Bundling steps, then the source (which needs their output),
		 * then the compile. */
		for (size_t s = 0; s < last; s++) {
			ol_diag_clear(&d);
			if (ol_run(&w->steps[s], &l->run, &status, &d)) {
				ol_link_error(l, &d);
				return OL_E_TOOL_FAILED;
			}
		}
		if (!l->opt.dry_run && write_source(l, w))
			return OL_E_IO;
		ol_diag_clear(&d);
		if (ol_run(&w->steps[last], &l->run, &status, &d)) {
			ol_link_error(l, &d);
			return OL_E_TOOL_FAILED;
		}
	}
	return OL_OK;
}
