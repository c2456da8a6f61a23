/* bundle: the container a CUDA or HIP runtime loads.
 *
 * CUDA: a fatbinary made by NVIDIA's fatbinary from the linked cubins.
 * CUDA 12.9 removed the --image=profile=sm_NN,file= option LLVM 19 passes
 * (LLVM 19 cannot link CUDA programs with CUDA 13); --image3=kind=elf,
 * sm=NN,file= exists since CUDA 10, so offlink asks fatbinary its version
 * and uses --image3 from 10.0 on, the old form before.
 *
 * HIP: an offload bundle written by offlink itself (src/format/bundle.c):
 * an empty host entry and one hip-amdgcn-amd-amdhsa--<target ID> entry per
 * image, 4096-aligned as clang's HIP bundles are; compressed (CCOB) with
 * --compress. */
#include "register/bundle.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/message.h"
#include "link/llvm_release.h"
#include "extract/nvcc_rdc.h"
#include "common/pieces.h"
#include "link/tools.h"
#include "format/bundle.h"
#include "format/bundle_id.h"
#include "format/ccob.h"
#include "format/triple.h"
#include "os/findprog.h"
#include "os/outfile.h"
#include "wrap/wrapper.h"

struct ol_cmd *ol_wrapper_add_step(struct ol_link *l, struct ol_wrapper *w,
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

/* Whether fatbinary sits in a CUDA of release 11 or later: <root>/bin
 * beside <root>/version.json, which CUDA writes from 11.0 on (10 and
 * older have version.txt). */
static bool cuda_11_or_later(const char *fatbinary)
{
	const char *slash = strrchr(fatbinary, '/');
	char path[4096];
	struct stat st;

	if (!slash || snprintf(path, sizeof(path), "%.*s/../version.json", (int)(slash - fatbinary),
			       fatbinary) >= (int)sizeof(path))
		return false;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* "release X.Y" in `fatbinary --version`, as X*10+Y; -1 if unknown.  A
 * CUDA that says it is 11 or later by its version.json is not asked (a
 * process, 3 ms of a link): 110. */
static int cuda_version(const struct ol_link *l, const char *fatbinary)
{
	struct ol_run_opts o = l->run;
	struct ol_cmd c = { .step = (char *)"probe fatbinary" };
	struct ol_buf out = { 0 };
	struct ol_diag d;
	const char *r;
	int major = -1, minor = 0;

	if (cuda_11_or_later(fatbinary))
		return 110;
	ol_diag_clear(&d);
	ol_strvec_push(&c.argv, fatbinary);
	ol_strvec_push(&c.argv, "--version");
	if (ol_run_capture(&c, &o, &out, &d) == OL_OK && out.data &&
	    (r = strstr((char *)out.data, "release ")) != NULL)
		sscanf(r + 8, "%d.%d", &major, &minor);
	ol_strvec_free(&c.argv);
	ol_buf_free(&out);
	return major < 0 ? -1 : major * 10 + minor;
}

static enum ol_err plan_fatbinary(struct ol_link *l, struct ol_wrapper *w)
{
	char searched[512];
	char *tool = ol_find_cuda_tool(l, "fatbinary", searched, sizeof(searched));
	struct ol_cmd *c;
	int version;

	if (!tool && !l->opt.dry_run) {
		ol_link_errorf(l, "CUDA registration: cannot find fatbinary (searched %s)", searched);
		return OL_E_UNSUPPORTED;
	}
	version = tool ? cuda_version(l, tool) : -1;
	c = ol_wrapper_add_step(l, w, tool ? tool : "fatbinary", "fatbinary for");
	free(tool);
	if (!c)
		return OL_E_NOMEM;
	ol_strvec_push(&c->argv, "-64");
	ol_strvec_push(&c->argv, "--create");
	ol_strvec_push(&c->argv, w->bundle_path);
	for (size_t i = 0; i < w->ngroups; i++) {
		const struct ol_group *g = w->groups[i];

		if (strncmp(g->arch, "sm_", 3) != 0) {
			ol_link_errorf(l, "CUDA registration: %s is not an NVIDIA architecture",
				       g->arch[0] ? g->arch : "(no arch)");
			return OL_E_UNSUPPORTED;
		}
		if (version >= 0 && version < 100)
			ol_strvec_pushf(&c->argv, "--image=profile=%s,file=%s", g->arch, g->image_path);
		else
			ol_strvec_pushf(&c->argv, "--image3=kind=elf,sm=%s,file=%s", g->arch + 3,
					g->image_path);
	}
	return c->argv.err;
}

enum ol_err ol_plan_bundle(struct ol_link *l, struct ol_wrapper *w)
{
	w->bundle_path = strdup(ol_link_temp_path(
		l, w->kind == OB_OFK_CUDA ? "cuda.fatbin" : "hip.hipfb"));
	if (!w->bundle_path)
		return OL_E_NOMEM;
	if (w->kind == OB_OFK_CUDA)
		return plan_fatbinary(l, w);
	if (w->kind != OB_OFK_HIP) {
		ol_link_errorf(l, "%s registration is not supported", ob_offload_kind_name(w->kind));
		return OL_E_UNSUPPORTED;
	}
	return OL_OK; /* the HIP bundle is written in-process, see below */
}

/* ---- HIP bundle ---- */

/* The IDs of the HIP bundle, as each release's wrapper names its entries
 * and its bundler writes them (docs/compat.md, "HIP"): the host entry is a
 * constant, whatever the host -- "host-x86_64-unknown-linux" up to 19,
 * "host-x86_64-unknown-linux-gnu" from 20 --, and the link's host triple
 * from 23; the device entries are
 * "hipv4-<triple>--<arch>" up to 16, "hip-..." after; the bundler of 15
 * and 16 writes an ID as it is given, from 17 on in its standard form
 * ("host-x86_64-unknown-linux--"). */
static const char *hip_id(struct ol_link *l, const char *given, struct ol_diag *d)
{
	struct ol_bundle_id id;

	if (ol_bundle_id_parse(given, strlen(given), &id, d))
		return NULL;
	return ol_llvm_at_least(l, 17) ? ol_arena_strdup(&l->arena, id.text) : given;
}

/* The host entry's ID: a constant up to 22, the link's own host triple
 * from 23. */
static const char *hip_host_id(struct ol_link *l, struct ol_diag *d)
{
	if (ol_llvm_at_least(l, 23))
		return hip_id(l, ol_arena_printf(&l->arena, "host-%s", l->opt.host_triple), d);
	return hip_id(l, ol_llvm_at_least(l, 20) ? "host-x86_64-unknown-linux-gnu"
						 : "host-x86_64-unknown-linux", d);
}

static enum ol_err hip_entries(struct ol_link *l, struct ol_wrapper *w,
			       struct ol_map *maps, struct ol_bundle_entry *e,
			       struct ol_diag *d)
{
	const char *host = hip_host_id(l, d);
	char triple[256];

	if (!host)
		return d->code ? d->code : OL_E_NOMEM;
	e[0] = (struct ol_bundle_entry){ host, strlen(host), (const uint8_t *)"", 0 };
	for (size_t i = 0; i < w->ngroups; i++) {
		const struct ol_group *g = w->groups[i];
		const char *id;

		/* (LLVM 24 names the entries amdgcn still, whatever its
		 * triples say) */
		if (!ol_triple_as_amdgcn(g->triple, triple, sizeof(triple)))
			return ol_diag_set(d, OL_E_BAD_TARGET, NULL, "triple too long: %s", g->triple);
		id = hip_id(l, ol_arena_printf(&l->arena, "%s-%s--%s",
					       ol_llvm_at_least(l, 17) ? "hip" : "hipv4",
					       triple, g->arch), d);

		if (!id || ol_map_file(g->image_path, &maps[i], d))
			return d->code ? d->code : OL_E_NOMEM;
		e[i + 1] = (struct ol_bundle_entry){ id, strlen(id), maps[i].data, maps[i].len };
	}
	return OL_OK;
}

static enum ol_err write_hip_bundle(struct ol_link *l, struct ol_wrapper *w,
				    struct ol_buf *contents, struct ol_diag *d)
{
	struct ol_map *maps = calloc(w->ngroups, sizeof(*maps));
	struct ol_bundle_entry *e = calloc(w->ngroups + 1, sizeof(*e));
	struct ol_pieces out = { 0 };
	struct ol_buf flat = { 0 }, z = { 0 };
	struct ol_ccob_info info;
	enum ol_err rc = OL_OK;

	if (!maps || !e) {
		rc = ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		goto out;
	}
	if (hip_entries(l, w, maps, e, d) ||
	    ol_bundle_encode_binary(e, w->ngroups + 1, 4096, &out, d)) {
		rc = d->code;
		goto out;
	}
	for (size_t i = 0; i <= w->ngroups; i++)
		ol_buf_printf(contents, "%s%.*s", i ? ", " : "Bundle: ", (int)e[i].id_len, e[i].id);
	if (l->opt.compress) {
		int level = l->opt.compression_level != INT_MIN ? l->opt.compression_level : 3;

		/* the compressor reads the bundle whole */
		if (ol_pieces_flatten(&out, &flat)) {
			rc = ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
			goto out;
		}
		if (ol_ccob_encode(flat.data, flat.len, 2, OL_COMP_ZSTD, level, &z, &info, d)) {
			rc = d->code;
			goto out;
		}
		ol_buf_printf(contents, " (compressed, CCOB v2 zstd)");
	}
	if (l->opt.verbose || l->opt.dry_run)
		ol_message("offlink", NULL, "writing the HIP offload bundle %s: %s",
			   w->bundle_path, (char *)contents->data);
	rc = l->opt.compress ? ol_write_file_atomic(w->bundle_path, z.data, z.len, d)
			     : ol_write_pieces_atomic(w->bundle_path, &out, d);
out:
	for (size_t i = 0; maps && i < w->ngroups; i++)
		ol_unmap(&maps[i]);
	free(maps);
	free(e);
	ol_pieces_free(&out);
	ol_buf_free(&flat);
	ol_buf_free(&z);
	return rc;
}

/* ---- --emit-fatbin-only ---- */

static enum ol_err copy_to_output(struct ol_link *l, const char *from)
{
	struct ol_map m;
	struct ol_diag d;
	enum ol_err rc;

	ol_diag_clear(&d);
	if (ol_map_file(from, &m, &d)) {
		ol_link_error(l, &d);
		return d.code;
	}
	rc = ol_write_file_atomic(l->output, m.data, m.len, &d);
	ol_unmap(&m);
	if (rc)
		ol_link_error(l, &d);
	return rc;
}

enum ol_err ol_emit_fatbin(struct ol_link *l)
{
	struct ol_wrapper *w = l->nwrappers == 1 ? &l->wrappers[0] : NULL;
	struct ol_buf contents = { 0 };
	struct ol_diag d;
	int status;

	if (!w || w->kind == OB_OFK_OPENMP) {
		ol_link_errorf(l, "--emit-fatbin-only: the inputs must hold device code of one "
				  "kind, CUDA or HIP (found %zu kind%s)", l->nwrappers,
			       l->nwrappers == 1 ? ", OpenMP" : "s");
		return OL_E_USAGE;
	}
	ol_diag_clear(&d);
	if (w->kind == OB_OFK_HIP) {
		if (write_hip_bundle(l, w, &contents, &d))
			ol_link_error(l, &d);
		ol_buf_free(&contents);
		if (d.code)
			return d.code;
	} else if (ol_run(&w->steps[0], &l->run, &status, &d)) { /* fatbinary */
		ol_link_error(l, &d);
		return OL_E_TOOL_FAILED;
	}
	return l->opt.dry_run ? OL_OK : copy_to_output(l, w->bundle_path);
}

/* ---- source ---- */

static bool linked(const struct ol_managed *m)
{
	return !m->member || m->member->loaded;
}

/* "x.o" or "lib.a(x.o)", escaped, for messages. */
static const char *managed_origin(struct ol_link *l, const struct ol_managed *m)
{
	return ol_link_quote(l, m->member ? ol_arena_printf(&l->arena, "%s(%s)",
							    m->input->path, m->member->name)
					  : m->input->path);
}

static enum ol_err managed_vars(struct ol_link *l, struct ol_wrapper *w,
				struct wrap_managed **out, size_t *n)
{
	*out = calloc(l->nmanaged ? l->nmanaged : 1, sizeof(**out));
	*n = 0;
	if (!*out)
		return OL_E_NOMEM;
	for (size_t i = 0; i < l->nmanaged; i++) {
		const struct ol_managed *m = &l->managed[i];

		if (m->kind != w->kind || !linked(m))
			continue;
		if (!m->pointer_symbol) {
			ol_link_warnf(l, "%s: managed variable %s cannot be registered: "
					 "its pointer is not a global symbol", managed_origin(l, m),
				      ol_link_quote(l, m->init_symbol));
			continue;
		}
		if (!wrap_symbol_allowed(m->init_symbol) ||
		    !wrap_symbol_allowed(m->pointer_symbol)) {
			ol_link_errorf(l, "%s: managed variable %s: a symbol name the "
					  "registration code cannot reference", managed_origin(l, m),
				       ol_link_quote(l, m->init_symbol));
			continue;
		}
		if (w->llvm_as && (strncmp(m->init_symbol, ".L", 2) == 0 ||
				   strncmp(m->pointer_symbol, ".L", 2) == 0)) {
			ol_link_errorf(l, "%s: managed variable %s: LLVM's assembler takes a name "
					  "starting with .L for a label of its own and cannot reference "
					  "it; GNU as can (binutils for the host, or OFFLINK_AS)",
				       managed_origin(l, m), ol_link_quote(l, m->pointer_symbol));
			continue;
		}
		(*out)[(*n)++] = (struct wrap_managed){ m->init_symbol, m->pointer_symbol };
	}
	return OL_OK;
}

/* The IDs of the nvcc relocatable modules whose code w's links took,
 * each once, in the order first met (extract/nvcc_rdc.h). */
static enum ol_err nvcc_ids(struct ol_link *l, const struct ol_wrapper *w, const char ***out,
			    size_t *n)
{
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	for (size_t g = 0; w->kind == OB_OFK_CUDA && g < w->ngroups; g++)
		for (size_t i = 0; i < w->groups[g]->nimages; i++) {
			const char *id = ob_entry_get(w->groups[g]->images[i]->entry, OL_NVCC_MODULE_KEY);
			bool seen = false;

			for (size_t k = 0; id && k < *n && !seen; k++)
				seen = strcmp((*out)[k], id) == 0;
			if (!id || seen)
				continue;
			if (*n == cap) {
				const char **v = ol_arena_array(&l->arena, cap = cap ? 2 * cap : 8,
								sizeof(*v));

				if (!v)
					return OL_E_NOMEM;
				if (*n)
					memcpy(v, *out, *n * sizeof(*v));
				*out = v;
			}
			(*out)[(*n)++] = id;
		}
	return OL_OK;
}

bool ol_bundle_asm_names_ok(struct ol_link *l, const struct ol_wrapper *w)
{
	if (l->new_entries)
		return true; /* the pointers are in the entries: no names written */
	for (size_t i = 0; i < l->nmanaged; i++) {
		const struct ol_managed *m = &l->managed[i];

		if (m->kind == w->kind && linked(m) && m->pointer_symbol &&
		    (!wrap_asm_symbol_ok(m->init_symbol) || !wrap_asm_symbol_ok(m->pointer_symbol)))
			return false;
	}
	return true;
}

enum ol_err ol_bundle_source(struct ol_link *l, struct ol_wrapper *w,
			     struct ol_buf *src, struct ol_diag *d)
{
	struct ol_buf contents = { 0 };
	struct wrap_managed *managed = NULL;
	struct wrap_cuda_hip wc = { 0 };
	enum ol_err rc;

	if (w->kind == OB_OFK_HIP) {
		if (write_hip_bundle(l, w, &contents, d)) {
			ol_buf_free(&contents);
			return d->code;
		}
	} else {
		ol_buf_puts(&contents, "Fatbinary of:");
		for (size_t i = 0; i < w->ngroups; i++)
			ol_buf_printf(&contents, " %s", w->groups[i]->arch);
	}
	if (managed_vars(l, w, &managed, &wc.nmanaged) || l->nerrors) {
		ol_buf_free(&contents);
		free(managed);
		return l->nerrors ? OL_E_REPORTED : ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	wc.hip = w->kind == OB_OFK_HIP;
	wc.output = l->output;
	wc.bundle_path = w->bundle_path;
	wc.contents = contents.data ? (char *)contents.data : "";
	wc.new_entries = l->new_entries;
	wc.managed = managed;
	if (nvcc_ids(l, w, (const char ***)&wc.nvcc_modules, &wc.nnvcc)) {
		free(managed);
		ol_buf_free(&contents);
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	rc = w->arch ? wrap_cuda_hip_asm(&wc, w->arch, src, d) : wrap_cuda_hip_source(&wc, src, d);
	free(managed);
	ol_buf_free(&contents);
	return rc;
}
