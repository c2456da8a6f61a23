/* Which of nvcc's code goes into which link (extract/nvcc_rdc.h).
 *
 * The program's SMs are those of clang's CUDA code, or, with nvcc's code
 * alone, those every nvcc module has code of its own for (a cubin, or PTX
 * of that virtual architecture; else, those of the modules' cubins that
 * every module can serve).  A module takes part in each of them -- its
 * kernels must be in every image the program registers, and the code that
 * calls into it must link on every SM -- with the code nvcc's own link
 * would take: a cubin of that SM, else the PTX of the highest virtual
 * architecture not above it, which ptxas compiles for the SM.  Its other
 * code stays out (a library built for more GPUs than the program).  A
 * module with nothing for one of the program's SMs is an error naming it
 * and listing what it holds, PTX included.
 *
 * A module is taken whole: the host link or a device symbol takes one of
 * its images, the choice here takes the rest -- unless an input the host
 * link reads registers it already (the user's nvcc -dlink object), when
 * none of it is linked.  And OpenMP target code
 * for an NVPTX SM that calls into a module (an nvcc __device__ function)
 * gets that module's code for its SM in its own link: nvlink links
 * OpenMP's code and nvcc's as it links CUDA's. */
#include "devlink/devlink.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/strmap.h"
#include "devplan/device_symbols.h"

/* One nvcc module: its ID, the file it came from, its images. */
struct module {
	const char *id, *origin;
	const struct ol_nvcc_def *registered; /* an input registers it already */
	bool called;            /* (registered: a call into it was reported) */
	struct ol_image **images;
	size_t n, cap;
	bool taken;             /* some image of it is linked */
	bool implicit;          /* from an input offlink added: CUDA's device
				 * runtime, which decides no SM */
	const char *openmp_sym; /* OpenMP code calls this symbol of it ... */
	const char *openmp_by;  /* ... in this image; NULL when none does */
};

struct modules {
	struct module *v;
	size_t n, cap;
	bool oom;
	bool any_user;          /* a taken module is not offlink's own */
};

static void modules_free(struct modules *ms)
{
	for (size_t i = 0; i < ms->n; i++)
		free(ms->v[i].images);
	free(ms->v);
}

/* "sm_90" -> 90, "compute_90" (prefix "compute_") -> 90; 0 for anything
 * else ("sm_90a", "compute_90a": exact matches only). */
static unsigned arch_number(const char *arch, const char *prefix)
{
	size_t k = strlen(prefix);
	unsigned n = 0;

	if (strncmp(arch, prefix, k) != 0 || !arch[k])
		return 0;
	for (const char *p = arch + k; *p; p++) {
		if (*p < '0' || *p > '9' || n > 100000)
			return 0;
		n = n * 10 + (unsigned)(*p - '0');
	}
	return n;
}

static bool is_ptx(const struct ol_image *img)
{
	return img->entry->image_kind == OB_IMG_PTX;
}

/* Every nvcc module of the link, each image in its module, in the order
 * of the images. */
static void collect_modules(struct ol_link *l, struct modules *ms)
{
	struct ol_strmap ids = { 0 }; /* a module's ID -> its index + 1 */

	for (size_t i = 0; i < l->nimages && !ms->oom; i++) {
		struct ol_image *img = &l->images[i];
		uintptr_t *slot;
		struct module *m;

		if (!img->nvcc_module || img->final)
			continue;
		if (!(slot = ol_strmap_put(&ids, img->nvcc_module, strlen(img->nvcc_module)))) {
			ms->oom = true;
			break;
		}
		if (!*slot) {
			struct module *grown = ol_grow(ms->v, ms->n, &ms->cap, sizeof(*ms->v), 8);

			if (!grown) {
				ms->oom = true;
				break;
			}
			ms->v = grown;
			ms->v[ms->n] = (struct module){ .id = img->nvcc_module, .origin = img->origin,
							.implicit = img->input && img->input->implicit };
			*slot = ++ms->n;
		}
		m = &ms->v[*slot - 1];
		if (!(m->images = ol_grow(m->images, m->n, &m->cap, sizeof(*m->images), 4))) {
			ms->oom = true;
			break;
		}
		m->images[m->n++] = img;
		m->taken |= img->taken;
	}
	ol_strmap_free(&ids);
}

/* A module is linked whole, for the reason its first linked image was. */
static void take_whole(struct module *m)
{
	const char *why = NULL;

	for (size_t i = 0; i < m->n && !why; i++)
		if (m->images[i]->taken)
			why = m->images[i]->why;
	for (size_t i = 0; i < m->n; i++)
		if (!m->images[i]->taken) {
			m->images[i]->taken = true;
			m->images[i]->why = why;
		}
}

/* What m holds, "sm_80, compute_90, sm_90", into b. */
static void held_text(const struct module *m, struct ol_buf *b)
{
	for (size_t i = 0; i < m->n; i++)
		ol_buf_printf(b, "%s%s", i ? ", " : "", m->images[i]->arch);
}

/* How well PTX of the virtual architecture ptx serves SM sm (0: not):
 * plain PTX an SM of its number or above, the nearer the better
 * ("compute_80" for sm_90); PTX with a suffix only its own SM
 * ("compute_90a" for sm_90a), and an SM with a suffix only that. */
static unsigned ptx_serves(const char *ptx, const char *sm)
{
	unsigned want = arch_number(sm, "sm_"), v = arch_number(ptx, "compute_");

	if (v)
		return want && v <= want ? v : 0;
	return !strncmp(ptx, "compute_", 8) && !strncmp(sm, "sm_", 3) && !strcmp(ptx + 8, sm + 3)
		? UINT_MAX : 0;
}

/* The code of m nvcc's link takes for SM sm: its cubin of that SM, else
 * its PTX of the highest virtual architecture not above it; or NULL. */
static struct ol_image *choose(const struct module *m, const char *sm)
{
	unsigned best = 0;
	struct ol_image *ptx = NULL;

	for (size_t i = 0; i < m->n; i++) {
		struct ol_image *img = m->images[i];
		unsigned v;

		if (!is_ptx(img) && strcmp(img->arch, sm) == 0)
			return img;
		if (is_ptx(img) && (v = ptx_serves(img->arch, sm)) > best) {
			best = v;
			ptx = img;
		}
	}
	return ptx;
}

/* The SM named like the virtual architecture of PTX: "compute_90a" ->
 * "sm_90a"; NULL for anything else. */
static const char *ptx_sm(struct ol_link *l, const char *ptx)
{
	return strncmp(ptx, "compute_", 8) == 0 && ptx[8] ? ol_arena_printf(&l->arena, "sm_%s", ptx + 8)
							  : NULL;
}

/* Whether m has code of its own for sm: a cubin of it, or PTX of its
 * virtual architecture. */
static bool holds(const struct module *m, const char *sm)
{
	for (size_t i = 0; i < m->n; i++)
		if (is_ptx(m->images[i]) ? !strncmp(m->images[i]->arch, "compute_", 8) &&
					   !strncmp(sm, "sm_", 3) &&
					   !strcmp(m->images[i]->arch + 8, sm + 3)
					 : strcmp(m->images[i]->arch, sm) == 0)
			return true;
	return false;
}

/* s into v (an arena array of up to cap) unless there. */
static void add_arch(const char **v, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(v[i], s) == 0)
			return;
	v[(*n)++] = s;
}

/* The modules that decide the program's SMs: the taken ones the user
 * gave; offlink's own (the device runtime) only when there are no others
 * (ms->any_user, set once the taken modules are known). */
static bool decides(const struct modules *ms, const struct module *m)
{
	return m->taken && (!m->implicit || !ms->any_user);
}

/* The distinct SMs the deciding modules have code for, in the order met:
 * their cubins' SMs, and with ptx their PTX's as "sm_<N>".  (Each is a
 * target of the link, so there are at most OL_DEVICE_TARGETS_MAX of
 * either kind, however many entries a module declares.) */
static bool candidates(struct ol_link *l, const struct modules *ms, bool ptx, const char **out,
		       size_t *n)
{
	struct ol_strmap seen = { 0 };
	bool ok = true;

	for (size_t k = 0; k < ms->n && ok; k++)
		for (size_t i = 0; decides(ms, &ms->v[k]) && i < ms->v[k].n && ok; i++) {
			const struct ol_image *img = ms->v[k].images[i];
			const char *sm = is_ptx(img) ? NULL : img->arch;
			uintptr_t *v;

			if (is_ptx(img) && ptx)
				sm = ptx_sm(l, img->arch);
			if (!sm)
				continue;
			if (!(v = ol_strmap_put(&seen, sm, strlen(sm))))
				ok = false;
			else if (!*v)
				*v = 1, out[(*n)++] = sm;
		}
	ol_strmap_free(&seen);
	return ok;
}

/* nvcc's code alone: the SMs every deciding module holds code of its own
 * for; if none, those of their cubins every deciding module can serve
 * (PTX compiled for a newer SM).  Linear in the images for each distinct
 * SM. */
static bool nvcc_program_archs(struct ol_link *l, const struct modules *ms, const char **prog,
			       size_t *n)
{
	const char **c = ol_arena_array(&l->arena, l->nimages + 1, sizeof(*c));
	size_t nc;

	for (int pass = 0; pass < 2 && !*n; pass++) {
		nc = 0;
		if (!c || !candidates(l, ms, pass == 0, c, &nc))
			return false;
		for (size_t s = 0; s < nc; s++) {
			bool all = true;

			for (size_t j = 0; all && j < ms->n; j++)
				if (decides(ms, &ms->v[j]))
					all = pass == 0 ? holds(&ms->v[j], c[s])
							: choose(&ms->v[j], c[s]) != NULL;
			if (all)
				prog[(*n)++] = c[s];
		}
	}
	return true;
}

/* Each SM of prog into the image of m that serves it (for OpenMP's
 * links when openmp); an error for an SM it has nothing for. */
static bool join(struct ol_link *l, struct module *m, const char *const *prog, size_t nprog,
		 bool openmp, const char *who)
{
	bool ok = true;

	for (size_t s = 0; s < nprog; s++) {
		struct ol_image *img = choose(m, prog[s]);
		const char ***v;
		size_t *n;
		struct ol_buf held = { 0 };

		if (!img) {
			held_text(m, &held);
			ol_link_errorf(l, "%s: field __nv_relfatbin: nvcc relocatable device code for "
					  "%s has none for %s, which %s",
				       ol_link_quote(l, m->origin), held.data ? (char *)held.data : "",
				       prog[s], who);
			ol_buf_free(&held);
			ok = false;
			continue;
		}
		v = openmp ? &img->nvcc_openmp : &img->nvcc_cuda;
		n = openmp ? &img->nnvcc_openmp : &img->nnvcc_cuda;
		if (!*v && !(*v = ol_arena_array(&l->arena, nprog, sizeof(**v))))
			return false;
		add_arch(*v, n, prog[s]);
	}
	return ok;
}

/* The program's CUDA links: every taken module's code for each SM. */
static bool cuda_joins(struct ol_link *l, struct modules *ms)
{
	const char **prog = ol_arena_array(&l->arena, l->nimages + 1, sizeof(*prog));
	size_t n = 0;
	bool clang = false, ok = true;

	if (!prog)
		return false;
	for (size_t i = 0; i < l->nimages; i++) {
		const struct ol_image *img = &l->images[i];

		if (img->taken && img->kind == OB_OFK_CUDA && !img->nvcc_module &&
		    ol_triple_is_nvptx(img->triple))
			add_arch(prog, &n, img->arch);
	}
	clang = n > 0;
	if (!clang && !nvcc_program_archs(l, ms, prog, &n))
		return false;
	for (size_t k = 0; k < ms->n; k++) {
		struct module *m = &ms->v[k];
		struct ol_buf held = { 0 };

		if (!m->taken)
			continue;
		if (n) {
			ok &= join(l, m, prog, n, false,
				   clang ? "the program's CUDA code is built for"
					 : "the program's other nvcc modules have code for");
			continue;
		}
		held_text(m, &held);
		ol_link_errorf(l, "%s: field __nv_relfatbin: nvcc relocatable device code for %s "
				  "shares no SM with the program's other nvcc modules",
			       ol_link_quote(l, m->origin), held.data ? (char *)held.data : "");
		ol_buf_free(&held);
		ok = false;
	}
	return ok;
}

/* ---- OpenMP code calling nvcc's ---- */

/* Which modules OpenMP's NVPTX code calls into, directly or through
 * other modules: m->openmp_sym set.  Symbols read from the images
 * (cubins and bitcode by their symbol tables, PTX by its declarations). */
static bool modules_called(struct ol_link *l, struct modules *ms)
{
	struct ol_strmap omp_defs = { 0 }, definer = { 0 }; /* symbol -> module + 1 */
	struct need { const char *sym, *by; } *work = NULL;
	size_t nwork = 0, cap = 0;
	bool ok = true;

	for (size_t k = 0; k < ms->n && ok; k++)
		for (size_t i = 0; ms->v[k].taken && i < ms->v[k].n && ok; i++) {
			struct ol_image *img = ms->v[k].images[i];

			ol_read_device_symbols(img);
			for (size_t s = 0; s < img->defined.n && ok; s++) {
				uintptr_t *v = ol_strmap_put(&definer, img->defined.v[s],
							     strlen(img->defined.v[s]));

				if (!v)
					ok = false;
				else if (!*v)
					*v = k + 1;
			}
		}
	for (size_t i = 0; i < l->nimages && ok; i++) {
		struct ol_image *img = &l->images[i];

		if (!img->taken || img->kind != OB_OFK_OPENMP || !ol_triple_is_nvptx(img->triple))
			continue;
		ol_read_device_symbols(img);
		for (size_t s = 0; s < img->defined.n && ok; s++)
			ok = ol_strmap_put(&omp_defs, img->defined.v[s], strlen(img->defined.v[s]));
		for (size_t s = 0; s < img->undefined.n && ok; s++) {
			struct need *w = ol_grow(work, nwork, &cap, sizeof(*work), 64);

			if (!(ok = w))
				break;
			work = w;
			work[nwork++] = (struct need){ img->undefined.v[s], img->origin };
		}
	}
	/* breadth first: each module once, named by the first call into it */
	for (size_t w = 0; w < nwork && ok; w++) {
		uintptr_t *k = ol_strmap_get(&definer, work[w].sym, strlen(work[w].sym));
		struct module *m = k ? &ms->v[*k - 1] : NULL;

		if (!m || m->openmp_sym || ol_strmap_get(&omp_defs, work[w].sym, strlen(work[w].sym)))
			continue;
		m->openmp_sym = work[w].sym;
		m->openmp_by = work[w].by;
		for (size_t i = 0; i < m->n && ok; i++)
			for (size_t s = 0; s < m->images[i]->undefined.n && ok; s++) {
				struct need *grown = ol_grow(work, nwork, &cap, sizeof(*work), 64);

				if (!(ok = grown))
					break;
				work = grown;
				work[nwork++] = (struct need){ m->images[i]->undefined.v[s], m->origin };
			}
	}
	free(work);
	ol_strmap_free(&omp_defs);
	ol_strmap_free(&definer);
	return ok;
}

/* OpenMP's NVPTX links: each module their code calls, for each SM. */
static bool openmp_joins(struct ol_link *l, struct modules *ms)
{
	const char **sms = ol_arena_array(&l->arena, l->nimages + 1, sizeof(*sms));
	size_t n = 0;
	bool ok = true;

	if (!sms)
		return false;
	for (size_t i = 0; i < l->nimages; i++) {
		const struct ol_image *img = &l->images[i];

		if (img->taken && img->kind == OB_OFK_OPENMP && ol_triple_is_nvptx(img->triple) &&
		    strncmp(img->arch, "sm_", 3) == 0)
			add_arch(sms, &n, img->arch);
	}
	if (!n || !ms->n)
		return true;
	if (!modules_called(l, ms))
		return false;
	for (size_t k = 0; k < ms->n; k++) {
		struct module *m = &ms->v[k];
		const char *who;

		if (!m->taken || !m->openmp_sym)
			continue;
		if (l->opt.embed_bitcode) {
			ol_link_errorf(l, "%s: OpenMP target code calls %s, which nvcc's code in %s "
					  "defines: with --embed-bitcode (-fopenmp-target-jit) the OpenMP "
					  "image is bitcode the runtime compiles, and nvcc's machine code "
					  "cannot join it",
				       ol_link_quote(l, m->openmp_by), ol_link_quote(l, m->openmp_sym),
				       ol_link_quote(l, m->origin));
			ok = false;
			continue;
		}
		who = ol_arena_printf(&l->arena, "the OpenMP target code calling %s (%s) is built for",
				      ol_link_quote(l, m->openmp_sym), ol_link_quote(l, m->openmp_by));
		ok &= who && join(l, m, sms, n, true, who);
	}
	return ok;
}

/* ---- modules an input registers already ---- */

/* The user's nvcc -dlink object (CMake's cmake_device_link.o) linked
 * these modules and registers them: a "def <ID>" in an object the host
 * link reads.  Their code is not linked or registered again (its
 * __cudaRegisterLinkedBinary<ID> would be defined twice). */
static bool drop_registered(struct ol_link *l, struct modules *ms)
{
	struct ol_strmap defs = { 0 }; /* ID -> def + 1 */
	bool any = false;

	for (size_t i = 0; i < l->nnvcc_defs; i++) {
		const struct ol_nvcc_def *def = &l->nvcc_defs[i];
		uintptr_t *v;

		if (def->member ? !def->member->loaded : def->input->type != INPUT_OBJECT)
			continue;
		if (!(v = ol_strmap_put(&defs, def->id, strlen(def->id)))) {
			ms->oom = true;
			break;
		}
		if (!*v)
			*v = i + 1;
	}
	for (size_t k = 0; k < ms->n && !ms->oom; k++) {
		struct module *m = &ms->v[k];
		uintptr_t *v = ol_strmap_get(&defs, m->id, strlen(m->id));

		if (!v)
			continue;
		m->registered = &l->nvcc_defs[*v - 1];
		any |= m->taken;
		m->taken = false;
		for (size_t i = 0; i < m->n; i++) {
			m->images[i]->taken = false;
			m->images[i]->why = ol_arena_printf(&l->arena, "linked and registered by %s (nvcc "
								     "-dlink)", m->registered->origin);
		}
	}
	ol_strmap_free(&defs);
	return any;
}

/* Device code the link still takes cannot call into a module another
 * input has linked: that code is in the other input's image.  An error
 * for each such module, naming the first call. */
static bool calls_registered(struct ol_link *l, struct modules *ms)
{
	struct ol_strmap defined = { 0 }, dropped = { 0 }; /* symbol -> module + 1 */
	bool ok = true;

	for (size_t k = 0; k < ms->n; k++)
		for (size_t i = 0; ms->v[k].registered && i < ms->v[k].n; i++) {
			struct ol_image *img = ms->v[k].images[i];

			ol_read_device_symbols(img);
			for (size_t s = 0; s < img->defined.n; s++) {
				uintptr_t *v = ol_strmap_put(&dropped, img->defined.v[s],
							     strlen(img->defined.v[s]));

				if (v && !*v)
					*v = k + 1;
			}
		}
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < l->nimages; i++) {
			struct ol_image *img = &l->images[i];

			if (!img->taken || !ol_triple_is_nvptx(img->triple) ||
			    (img->kind != OB_OFK_CUDA && img->kind != OB_OFK_OPENMP))
				continue;
			ol_read_device_symbols(img);
			for (size_t s = 0; pass == 0 && s < img->defined.n; s++)
				ol_strmap_put(&defined, img->defined.v[s], strlen(img->defined.v[s]));
			for (size_t s = 0; pass == 1 && s < img->undefined.n; s++) {
				const char *sym = img->undefined.v[s];
				uintptr_t *k = ol_strmap_get(&dropped, sym, strlen(sym));
				struct module *m = k ? &ms->v[*k - 1] : NULL;

				if (!m || m->called || ol_strmap_get(&defined, sym, strlen(sym)))
					continue;
				m->called = true;
				ol_link_errorf(l, "%s: device code refers to %s, which %s defines; %s (nvcc "
						  "-dlink) has linked and registers that module, so it "
						  "cannot be linked again here: leave %s out and offlink "
						  "links and registers it with the rest",
					       ol_link_quote(l, img->origin), ol_link_quote(l, sym),
					       ol_link_quote(l, m->origin),
					       ol_link_quote(l, m->registered->origin),
					       ol_link_quote(l, m->registered->origin));
				ok = false;
			}
		}
	ol_strmap_free(&defined);
	ol_strmap_free(&dropped);
	return ok;
}

enum ol_err ol_nvcc_archs(struct ol_link *l)
{
	struct modules ms = { 0 };
	bool ok;

	collect_modules(l, &ms);
	if (ms.oom || !ms.n) {
		modules_free(&ms);
		return ms.oom ? OL_E_NOMEM : OL_OK;
	}
	if (l->nnvcc_defs && drop_registered(l, &ms) && !calls_registered(l, &ms)) {
		modules_free(&ms);
		return OL_E_REPORTED;
	}
	for (size_t k = 0; k < ms.n; k++) {
		if (ms.v[k].taken)
			take_whole(&ms.v[k]);
		ms.any_user |= ms.v[k].taken && !ms.v[k].implicit;
	}
	ok = cuda_joins(l, &ms);
	ok &= openmp_joins(l, &ms);
	/* code for SMs the program is not linked for stays out */
	for (size_t k = 0; ok && k < ms.n; k++)
		for (size_t i = 0; i < ms.v[k].n; i++) {
			struct ol_image *img = ms.v[k].images[i];

			if (img->taken && !img->nnvcc_cuda && !img->nnvcc_openmp) {
				img->taken = false;
				img->why = is_ptx(img) ? "nvcc PTX no SM of the program needs"
						       : "nvcc code for an SM the program is not linked for";
			}
		}
	modules_free(&ms);
	return ok ? OL_OK : l->nerrors ? OL_E_REPORTED : OL_E_NOMEM;
}
