/* emit_wrappers and compile_wrappers: one registration object per offload
 * kind present, generated as C (wrap/) and compiled with the host
 * compiler for the host triple. */
#include "driver/phases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver/bundle.h"
#include "driver/device_link.h"
#include "os/outfile.h"
#include "wrap/wrapper.h"

static const enum ob_offload_kind kinds[] = { OB_OFK_OPENMP, OB_OFK_CUDA, OB_OFK_HIP };

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

static struct ol_cmd *add_step(struct ol_link *l, struct ol_wrapper *w,
			       const char *program, const char *what)
{
	struct ol_cmd *steps = realloc(w->steps, (w->nsteps + 1) * sizeof(*steps));
	struct ol_cmd *c;

	if (!steps)
		return NULL;
	w->steps = steps;
	c = &w->steps[w->nsteps++];
	memset(c, 0, sizeof(*c));
	c->step = strdup(ol_arena_printf(&l->arena, "%s %s", what,
					 ob_offload_kind_name(w->kind)));
	ol_strvec_push(&c->argv, program);
	return c;
}

struct ol_cmd *ol_wrapper_add_step(struct ol_link *l, struct ol_wrapper *w,
				   const char *program, const char *what)
{
	return add_step(l, w, program, what);
}

static enum ol_err plan_compile(struct ol_link *l, struct ol_wrapper *w)
{
	struct ol_cmd *c = add_step(l, w, l->clang, "compile the registration code for");

	if (!c)
		return OL_E_NOMEM;
	c->response_file = true;
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

enum ol_err ol_plan_wrappers(struct ol_link *l)
{
	l->wrappers = calloc(sizeof(kinds) / sizeof(kinds[0]), sizeof(*l->wrappers));
	if (!l->wrappers)
		return OL_E_NOMEM;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct ol_wrapper *w = &l->wrappers[l->nwrappers];
		const char *name = ob_offload_kind_name(kinds[k]);

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
		w->source_path = strdup(ol_link_temp_path(
			l, ol_arena_printf(&l->arena, "%s.image.wrapper.c", name)));
		w->object_path = strdup(ol_link_temp_path(
			l, ol_arena_printf(&l->arena, "%s.image.wrapper.o", name)));
		if (!w->source_path || !w->object_path)
			return OL_E_NOMEM;
		if (w->kind != OB_OFK_OPENMP && ol_plan_bundle(l, w))
			return l->nerrors ? OL_E_REPORTED : OL_E_NOMEM;
		if (plan_compile(l, w))
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
 * magic so that the label never claims what the bytes are not. */
static uint16_t linked_image_kind(const char *path)
{
	static const unsigned char bc[4] = { 'B', 'C', 0xc0, 0xde };
	unsigned char head[4] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t n = 0;

	if (f) {
		n = fread(head, 1, sizeof(head), f);
		fclose(f);
	}
	return n == sizeof(head) && memcmp(head, bc, sizeof(bc)) == 0 ? OB_IMG_BITCODE
								       : OB_IMG_OBJECT;
}

static enum ol_err openmp_source(struct ol_link *l, struct ol_wrapper *w,
				 struct ol_buf *src, struct ol_diag *d)
{
	struct wrap_image *imgs = calloc(w->ngroups, sizeof(*imgs));
	struct wrap_openmp wo = { l->output, imgs, w->ngroups,
				  l->new_entries ? "llvm_offload_entries"
						 : "omp_offloading_entries",
				  l->opt.relocatable };
	enum ol_err rc = OL_OK;

	if (!imgs)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	for (size_t i = 0; i < w->ngroups && !rc; i++) {
		const struct ol_group *g = w->groups[i];

		imgs[i] = (struct wrap_image){ g->triple, g->arch, g->image_path, 0,
					       OB_IMG_OBJECT, origins_of(l, g) };
		rc = image_size(l, g->image_path, &imgs[i].size);
		if (!rc)
			imgs[i].image_kind = linked_image_kind(g->image_path);
	}
	if (!rc)
		rc = wrap_openmp_source(&wo, src, d);
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

enum ol_err ol_build_wrappers(struct ol_link *l)
{
	for (size_t k = 0; k < l->nwrappers; k++) {
		struct ol_wrapper *w = &l->wrappers[k];
		size_t last = w->nsteps - 1;
		struct ol_diag d;
		int status;

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
