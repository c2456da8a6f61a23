/* order_registration: the order in which a wrapper registers its images.
 *
 * libomptarget numbers devices in the order images are registered, so
 * device 0 - the default device - is whichever image comes first; a
 * program linked by offlink must pick the same device as one linked by
 * the LLVM release that compiled it.  Every release so far sorts each
 * offload kind's images, before bundling and wrapping, with
 *
 *     A before B  if  A.triple > B.triple || A.arch > B.arch
 *                     (|| A.kind < B.kind, equal within one kind)
 *
 * which is not a strict weak order, so the result depends on the order
 * the images reach the sort.  std::sort of libstdc++ is an insertion sort
 * up to 16 elements; what reaches it is one image per (triple, arch):
 *
 *   LLVM 17 and later: the targets in first-appearance order - plain
 *     objects and --whole-archive members in command-line order first,
 *     then targets first met in archive members (a MapVector);
 *   LLVM 15 and 16: the iteration order of a DenseMap keyed by (triple,
 *   arch) (15 registers in that order, without the sort),
 *     keys inserted in input order (llvm_maps.c reproduces the table).
 *
 * (Measured against Debian's clang-linker-wrapper 16, 19 and 22 with two,
 * three and four targets in every input order; tests/e2e/image_order.sh.)
 * Beyond 16 targets libstdc++ partitions first, and with this comparator
 * where its unguarded scans stop is not defined; offlink keeps the
 * insertion sort there.  The release is l->llvm.major; unknown (0) means
 * the newest rule. */
#include "register/register.h"

#include <stdlib.h>
#include <string.h>

#include "format/llvm_maps.h"

static bool llvm_before(const struct ol_group *a, const struct ol_group *b)
{
	return strcmp(a->triple, b->triple) > 0 || strcmp(a->arch, b->arch) > 0;
}

/* libstdc++'s __insertion_sort with LLVM's comparator. */
static void insertion_sort(struct ol_group **v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct ol_group *val = v[i];
		size_t j = i;

		if (llvm_before(val, v[0])) {
			memmove(v + 1, v, i * sizeof(*v));
			v[0] = val;
			continue;
		}
		/* Stops at j == 1 at the latest: val is not before v[0]. */
		while (llvm_before(val, v[j - 1])) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = val;
	}
}

/* Images LLVM 17+ reads before any archive extraction. */
static bool read_first(const struct ol_image *img)
{
	return !img->member || img->member->archive->whole_archive;
}

/* A distinct (triple, arch) target of the link, in input order. */
struct target {
	const char *triple, *arch;
};

static bool is_linked(const struct ol_image *img)
{
	return img->taken && img->kind != OB_OFK_NONE;
}

/* The position of g's target in what LLVM feeds the sort: first
 * appearance (17+), or the LLVM 16 DenseMap's bucket order. */
static enum ol_err rank_targets(const struct ol_link *l, bool densemap,
				struct target **out, size_t **rank, size_t *count)
{
	size_t most = 1, n = 0;

	for (size_t i = 0; i < l->nimages; i++)
		most += l->images[i].nvcc_module ? l->images[i].nnvcc_cuda : 1;

	struct target *t = calloc(most, sizeof(*t));
	size_t *r = calloc(most, sizeof(*r));

	if (!t || !r)
		goto nomem;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < l->nimages; i++) {
			const struct ol_image *img = &l->images[i];
			size_t k = 0;

			if (!is_linked(img) || (!densemap && read_first(img) != (pass == 0)) ||
			    (densemap && pass == 1))
				continue;
			/* (nvcc's code: the SMs ol_nvcc_archs chose it for) */
			for (size_t a = 0; a < (img->nvcc_module ? img->nnvcc_cuda : 1); a++) {
				const char *arch = img->nvcc_module ? img->nvcc_cuda[a] : img->arch;

				for (k = 0; k < n && !(strcmp(t[k].triple, img->triple) == 0 &&
						       strcmp(t[k].arch, arch) == 0);)
					k++;
				if (k == n)
					t[n++] = (struct target){ img->triple, arch };
			}
		}
	}
	for (size_t k = 0; k < n; k++)
		r[k] = k;
	if (densemap && n) {
		uint32_t *h = calloc(n, sizeof(*h));
		size_t *order = calloc(n, sizeof(*order));

		if (!h || !order) {
			free(h);
			free(order);
			goto nomem;
		}
		for (size_t k = 0; k < n; k++)
			h[k] = ol_llvm_pair_hash(
				(uint32_t)ol_llvm_hash_value(t[k].triple, strlen(t[k].triple), 16),
				(uint32_t)ol_llvm_hash_value(t[k].arch, strlen(t[k].arch), 16));
		if (ol_llvm_densemap_order_hashed(h, n, 16, order)) {
			free(h);
			free(order);
			goto nomem;
		}
		for (size_t pos = 0; pos < n; pos++)
			r[order[pos]] = pos;
		free(h);
		free(order);
	}
	*out = t;
	*rank = r;
	*count = n;
	return OL_OK;
nomem:
	free(t);
	free(r);
	return OL_E_NOMEM;
}

static size_t group_rank(const struct ol_group *g, const struct target *t,
			 const size_t *rank, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (strcmp(t[k].triple, g->triple) == 0 && strcmp(t[k].arch, g->arch) == 0)
			return rank[k];
	return n; /* --override-image: no scanned image */
}

enum ol_err ol_order_registration(const struct ol_link *l, struct ol_wrapper *w)
{
	bool densemap = l->llvm.major && l->llvm.major <= 16;
	struct target *t;
	size_t *rank, n;

	if (w->ngroups < 2)
		return OL_OK;
	if (rank_targets(l, densemap, &t, &rank, &n))
		return OL_E_NOMEM;
	/* Put the groups in the order LLVM meets them (ranks are distinct
	 * within one kind; a stable insertion keeps override groups as
	 * given), then sort as LLVM does. */
	for (size_t i = 1; i < w->ngroups; i++) {
		struct ol_group *g = w->groups[i];
		size_t gr = group_rank(g, t, rank, n), j = i;

		while (j > 0 && group_rank(w->groups[j - 1], t, rank, n) > gr) {
			w->groups[j] = w->groups[j - 1];
			j--;
		}
		w->groups[j] = g;
	}
	free(t);
	free(rank);
	/* LLVM 15 registers in the DenseMap's order, unsorted (16 added the
	 * sort); 14's clang-offload-wrapper, in the order of its arguments
	 * (offlink-wrapper). */
	if (!l->llvm.major || l->llvm.major >= 16)
		insertion_sort(w->groups, w->ngroups);
	return OL_OK;
}
