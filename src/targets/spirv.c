/* The SPIR-V backend (OpenMP for Intel GPUs, LLVM 22 on), as LLVM's
 * wrapper does them: the release's clang with --target=<triple> links the
 * group's modules (it runs spirv-link from SPIRV-Tools), each image its
 * own input file (spirv-link reads no archives), the -Xoffload-linker
 * arguments through -Xlinker; from 23 the link is partial and makes a
 * library (-Xlinker --allow-partial-linkage --create-library: Debian has
 * no SPIR-V device runtime to resolve against).  The module is then
 * wrapped (the backend's finishing step, run by devlink/run.c after the
 * link), and that is the image registered: for 22 the ELF container
 * Intel's runtime reads (format/spirv_container.h), from 23 an offload
 * binary of the release's version holding the module as a SPIR-V image,
 * with its triple and the container version "1.0". */
#include "targets/backend.h"

#include <stdlib.h>
#include <string.h>

#include "common/pieces.h"
#include "format/offload_binary.h"
#include "format/spirv_container.h"
#include "link/llvm_release.h"
#include "os/findprog.h"
#include "os/mapfile.h"
#include "os/outfile.h"

/* Where clang 22 looks for spirv-link: beside itself, then PATH. */
static bool have_spirv_link(struct ol_link *l)
{
	char *p = l->llvm.bin ? ol_find_in_dir(l->llvm.bin, "spirv-link") : NULL;
	bool found;

	if (!p)
		p = ol_find_in_path("spirv-link");
	found = p != NULL;
	free(p);
	return found;
}

/* "-Xlinker F" pairs after the first for the flags 23 adds itself: a
 * user who still passes -Xoffload-linker --allow-partial-linkage, as 22
 * needed, would have spirv-link refuse the repetition (LLVM 23's link
 * stops there). */
static void drop_repeated_flags(struct ol_strvec *argv)
{
	static const char *const flags[] = { "--allow-partial-linkage", "--create-library" };

	for (size_t f = 0; f < 2; f++) {
		bool seen = false;
		size_t out = 0;

		for (size_t i = 0; i < argv->n; i++) {
			bool pair = i + 1 < argv->n && strcmp(argv->v[i], "-Xlinker") == 0 &&
				    strcmp(argv->v[i + 1], flags[f]) == 0;

			if (pair && seen) {
				free(argv->v[i]);
				free(argv->v[i + 1]);
				i++;
				continue;
			}
			seen |= pair;
			argv->v[out++] = argv->v[i];
			if (pair)
				argv->v[out++] = argv->v[++i];
		}
		argv->n = out;
		argv->v[out] = NULL;
	}
}

static enum ol_err plan_spirv(struct ol_link *l, struct ol_group *g)
{
	struct ol_cmd *c;

	if (!ol_llvm_at_least(l, 22)) {
		ol_link_errorf(l, "device link %s: LLVM %u has no SPIR-V device link; device code "
				  "for %s needs clang 22 or later (device code from %s)",
			       ol_group_label(l, g), l->llvm.major, g->triple, ol_group_origins(l, g));
		return OL_E_UNSUPPORTED;
	}
	if (g->kind != OB_OFK_OPENMP) {
		ol_link_errorf(l, "device link %s: SPIR-V device links are for OpenMP, not %s "
				  "(device code from %s)",
			       ol_group_label(l, g), ol_kind_name(g->kind), ol_group_origins(l, g));
		return OL_E_UNSUPPORTED;
	}
	if (ol_refuse_embed_bitcode(l, g, "SPIR-V"))
		return OL_E_UNSUPPORTED;
	if (!l->opt.dry_run && !have_spirv_link(l)) {
		ol_link_errorf(l, "device link %s: clang links SPIR-V with spirv-link, found neither "
				  "in %s nor in PATH (Debian: apt-get install spirv-tools)",
			       ol_group_label(l, g), l->llvm.bin ? l->llvm.bin : "clang's directory");
		return OL_E_UNSUPPORTED;
	}
	g->module_path = ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.spv", g->stem));
	c = ol_clang_step(l, g, NULL);
	if (!g->module_path || !c)
		return OL_E_NOMEM;
	ol_strvec_push(&c->argv, "-o");
	ol_strvec_push(&c->argv, g->module_path);
	if (g->arch[0])
		ol_strvec_pushf(&c->argv, "-march=%s", g->arch);
	for (size_t i = 0; i < g->nimages; i++)
		ol_strvec_push(&c->argv, ol_group_input_path(l, g, i));
	if (ol_llvm_at_least(l, 23)) {
		ol_strvec_push(&c->argv, "-Xlinker");
		ol_strvec_push(&c->argv, "--allow-partial-linkage");
		ol_strvec_push(&c->argv, "-Xlinker");
		ol_strvec_push(&c->argv, "--create-library");
	}
	/* spirv-link takes no -mllvm (there is no code generation here), and
	 * reads no @file */
	ol_add_user_args(l, c, g->triple, true, MLLVM_DROP, true);
	if (ol_llvm_at_least(l, 23))
		drop_repeated_flags(&c->argv);
	/* bitcode (-foffload-lto): clang's own LTO for SPIR-V, as LLVM 22 asks
	 * for it (its spirv-link then rejects the result: LLVM 22 fails too) */
	if (g->any_bitcode)
		ol_strvec_push(&c->argv, "-flto=full");
	return c->argv.err;
}

/* From 23: the module as the SPIR-V image of an offload binary. */
static enum ol_err nest(struct ol_link *l, const struct ol_group *g, const struct ol_map *m,
			struct ol_pieces *p, struct ol_diag *d)
{
	struct ob_kv kv[] = { { "triple", g->triple }, { "version", "1.0" } };
	struct ob_image_desc img = { OB_IMG_SPIRV, ob_offload_kind_to_raw(OB_OFK_OPENMP, l->llvm.major),
				     0, kv, 2, m->data, m->len };
	struct ob_encode_opts o = { .version = ob_release_version(l->llvm.major) };

	return ob_encode_pieces(&img, 1, &o, p, d);
}

/* A linked SPIR-V module wrapped as the release's runtime reads it (the
 * ELF container of 22, an offload binary from 23), written from the
 * module's mapping. */
static enum ol_err containerize(struct ol_link *l, struct ol_group *g, struct ol_diag *d)
{
	struct ol_map m = { 0 };
	struct ol_pieces p = { 0 };
	enum ol_err rc;

	if ((rc = ol_map_file_fd(g->module_path, &m, d)))
		return rc;
	rc = ol_llvm_at_least(l, 23) ? nest(l, g, &m, &p, d)
				      : ol_spirv_container_encode(m.data, m.len, &p, d);
	if (!rc) {
		ol_pieces_attach_file(&p, m.data, m.len, ol_map_fd(&m));
		rc = ol_write_pieces_atomic(g->image_path, &p, d);
	}
	if (rc && !d->file[0])
		ol_diag_locate(d, g->module_path, NULL, 0);
	ol_pieces_free(&p);
	ol_unmap(&m);
	return rc;
}

const struct ol_backend ol_backend_spirv = {
	.name = "SPIR-V",
	.claims = ol_triple_is_spirv,
	.plan = plan_spirv,
	.finish = containerize,
	.finishing = "SPIR-V wrapping",
};
