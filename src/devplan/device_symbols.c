/* Device-symbol resolution: after the host link's choice of archive
 * members, a member whose device image defines a symbol that linked
 * device code of a compatible target still needs is linked too
 * (device-only callees, OpenMP's device runtime), until nothing changes.
 *
 * Linear in the symbols: images are sorted into targets (kind, triple,
 * arch) once, each target keeps a hash set of what its linked images
 * define, each symbol a list of the archive images that could define it,
 * and every needed symbol goes through a worklist once.  (The first
 * version compared every image with every other, re-parsing target IDs
 * per pair: cubic, about a second at 10k images.) */
#include "format/triple.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "devplan/device_symbols.h"
#include "extract/elf_file.h"
#include "format/bitcode_symtab.h"
#include "format/ptx_symbols.h"
#include "format/target_id.h"

/* One distinct (kind, triple, arch) of the images. */
struct target {
	const struct ol_image *first; /* an image of it: kind, triple, arch */
	struct ol_target_id tid;
	bool tid_ok;
	struct ol_strmap defined;     /* what its linked images define */
	size_t *compat;               /* the targets whose code can meet it */
	size_t ncompat;
};

struct need {
	const char *sym;
	size_t target;
	const struct ol_image *needer;
};

struct resolver {
	struct ol_link *l;
	struct target *t;
	size_t nt, capt;
	size_t *target_of;            /* per image */
	struct ol_strmap target_index;/* "<kind>\0<triple>\0<arch>" -> target + 1 */
	struct ol_strmap definers;    /* symbol -> head of a candidate list + 1 */
	size_t *next_definer;         /* per (candidate, symbol) link */
	size_t *definer_image;
	size_t ndef, capdef, capnext;
	struct need *work;
	size_t nwork, capwork;
	bool oom;
};

/* ---- reading an image's symbols (once) ---- */

static void note(struct ol_image *img, const char *name, size_t len, bool defined,
		 bool weak)
{
	if (defined)
		ol_strvec_pushn(&img->defined, name, len);
	else if (!weak)
		ol_strvec_pushn(&img->undefined, name, len);
}

static enum ol_err on_elf(void *ctx, const struct ol_elf_symbol *s, struct ol_diag *d)
{
	(void)d;
	note(ctx, s->name, strlen(s->name), s->defined, s->bind == STB_WEAK);
	return OL_OK;
}

static enum ol_err on_bc(void *ctx, const struct bc_symbol *s, struct ol_diag *d)
{
	(void)d;
	if (s->global && !s->format_specific)
		note(ctx, s->name, s->len, !s->undefined, s->weak);
	return OL_OK;
}

static enum ol_err on_ptx(void *ctx, const struct ol_ptx_symbol *s, struct ol_diag *d)
{
	(void)d;
	note(ctx, s->name, s->len, s->defined, s->weak);
	return OL_OK;
}

/* Images that are neither ELF, bitcode nor PTX text (fatbinaries) have
 * no symbols offlink can read: symbols_state -1. */
void ol_read_device_symbols(struct ol_image *img)
{
	const uint8_t *p = img->entry->image;
	size_t n = (size_t)img->entry->image_size;
	struct ol_diag d;
	struct ol_elf e;

	if (img->symbols_state)
		return;
	img->symbols_state = -1;
	ol_diag_clear(&d);
	if (bc_is_bitcode(p, n)) {
		if (bc_for_each_symbol(p, n, on_bc, img, &d) == OL_OK)
			img->symbols_state = 1;
	} else if (ol_is_elf(p, n) && ol_elf_open(&e, (uint8_t *)(uintptr_t)p, n, &d) == OL_OK) {
		if (ol_elf_for_each_global(&e, false, on_elf, img, &d) == OL_OK)
			img->symbols_state = 1;
		ol_elf_close(&e);
	} else if (img->entry->image_kind == OB_IMG_PTX && ol_is_ptx(p, n)) {
		if (ol_ptx_for_each_symbol(p, n, on_ptx, img, &d) == OL_OK)
			img->symbols_state = 1;
	}
	if (img->defined.err || img->undefined.err)
		img->symbols_state = -1;
}

/* ---- targets ---- */

/* "sm_90" or "compute_90" -> 90; 0 for anything else. */
static unsigned nvptx_number(const char *arch)
{
	const char *p = !strncmp(arch, "sm_", 3) ? arch + 3
			: !strncmp(arch, "compute_", 8) ? arch + 8 : NULL;
	unsigned n = 0;

	for (; p && *p; p++) {
		if (*p < '0' || *p > '9' || n > 100000)
			return 0;
		n = n * 10 + (unsigned)(*p - '0');
	}
	return p ? n : 0;
}

/* nvcc's PTX (compute_<N>, extract/nvcc_rdc.h) meets code for any SM from
 * N on, and any other PTX: ptxas compiles it for such an SM.  PTX with a
 * suffix (compute_90a) meets only its own SM's code (sm_90a). */
static bool ptx_meets(const char *a, const char *b)
{
	unsigned x = nvptx_number(a), y = nvptx_number(b);
	bool pa = !strncmp(a, "compute_", 8), pb = !strncmp(b, "compute_", 8);
	const char *ptx = pa ? a : b, *sm = pa ? b : a;

	if (pa != pb && !strncmp(sm, "sm_", 3) && !strcmp(ptx + 8, sm + 3))
		return true;
	return x && y && (pa || pb) && ((pa && pb) || (pa ? x <= y : y <= x));
}

/* Kinds whose code can meet: the same, a kind-less image's, or OpenMP's
 * NVPTX code and nvcc's (which joins OpenMP's links it is called from). */
static bool kinds_meet(const struct ol_image *x, const struct ol_image *y)
{
	if (x->kind == y->kind || x->kind == OB_OFK_NONE || y->kind == OB_OFK_NONE)
		return true;
	return (x->nvcc_module && y->kind == OB_OFK_OPENMP) ||
	       (y->nvcc_module && x->kind == OB_OFK_OPENMP);
}

static bool compatible(const struct target *a, const struct target *b)
{
	const struct ol_image *x = a->first, *y = b->first;

	if (!kinds_meet(x, y))
		return false;
	if (strcmp(x->triple, y->triple) != 0)
		return false;
	if (strcmp(x->arch, y->arch) == 0)
		return true;
	if ((x->nvcc_module || y->nvcc_module) && ptx_meets(x->arch, y->arch))
		return true;
	return a->tid_ok && b->tid_ok &&
	       (ol_target_id_serves(&a->tid, &b->tid) || ol_target_id_serves(&b->tid, &a->tid));
}

static size_t target_of(struct resolver *r, const struct ol_image *img)
{
	struct ol_link *l = r->l;
	/* (nvcc's code is a target of its own: it meets OpenMP's) */
	char *key = ol_arena_printf(&l->arena, "%d%s%c%s%c%s", (int)img->kind,
				    img->nvcc_module ? "nvcc" : "", 0, img->triple, 0, img->arch);
	size_t len = key ? strlen(key) + 1 + strlen(img->triple) + 1 + strlen(img->arch) : 0;
	uintptr_t *v = key ? ol_strmap_put(&r->target_index, key, len) : NULL;
	struct target *t;
	struct ol_diag d;

	if (!v) {
		r->oom = true;
		return 0;
	}
	if (*v)
		return *v - 1;
	t = ol_grow(r->t, r->nt, &r->capt, sizeof(*t), 16);
	if (!t) {
		r->oom = true;
		return 0;
	}
	r->t = t;
	t = &r->t[r->nt];
	memset(t, 0, sizeof(*t));
	t->first = img;
	ol_diag_clear(&d);
	t->tid_ok = ol_target_id_parse(img->arch, &t->tid, &d) == OL_OK;
	*v = ++r->nt;
	return r->nt - 1;
}

/* Compatibility lists.  Targets are few (one per kind, triple and arch in
 * the link), so all pairs are compared once here, not per symbol. */
static void link_targets(struct resolver *r)
{
	for (size_t a = 0; a < r->nt && !r->oom; a++) {
		struct target *t = &r->t[a];

		t->compat = ol_arena_array(&r->l->arena, r->nt, sizeof(*t->compat));
		if (!t->compat) {
			r->oom = true;
			return;
		}
		for (size_t b = 0; b < r->nt; b++)
			if (a == b || compatible(t, &r->t[b]))
				t->compat[t->ncompat++] = b;
	}
}

/* ---- the worklist ---- */

static void push_needs(struct resolver *r, const struct ol_image *img, size_t target)
{
	for (size_t u = 0; u < img->undefined.n; u++) {
		struct need *w = ol_grow(r->work, r->nwork, &r->capwork, sizeof(*w), 256);

		if (!w) {
			r->oom = true;
			return;
		}
		r->work = w;
		r->work[r->nwork++] = (struct need){ img->undefined.v[u], target, img };
	}
}

static void define_all(struct resolver *r, const struct ol_image *img, size_t target)
{
	for (size_t i = 0; i < img->defined.n; i++)
		if (!ol_strmap_put(&r->t[target].defined, img->defined.v[i],
				   strlen(img->defined.v[i])))
			r->oom = true;
}

static bool resolved(const struct resolver *r, const struct need *n)
{
	const struct target *t = &r->t[n->target];

	for (size_t i = 0; i < t->ncompat; i++)
		if (ol_strmap_get(&r->t[t->compat[i]].defined, n->sym, strlen(n->sym)))
			return true;
	return false;
}

static void take(struct resolver *r, struct ol_image *img, const struct need *n)
{
	struct ol_link *l = r->l;
	size_t t = r->target_of[img - l->images];

	img->taken = true;
	img->why = ol_arena_printf(&l->arena, "defines %s, needed by %s", n->sym,
				   n->needer->origin);
	define_all(r, img, t);
	push_needs(r, img, t);
}

/* The first archive image in command-line order that defines n->sym for
 * a compatible target and is not linked yet. */
static struct ol_image *first_definer(struct resolver *r, const struct need *n)
{
	uintptr_t *head = ol_strmap_get(&r->definers, n->sym, strlen(n->sym));
	const struct target *t = &r->t[n->target];

	for (size_t k = head ? *head - 1 : SIZE_MAX; k != SIZE_MAX; k = r->next_definer[k]) {
		struct ol_image *c = &r->l->images[r->definer_image[k]];
		size_t tc = r->target_of[r->definer_image[k]];

		if (c->taken)
			continue;
		for (size_t i = 0; i < t->ncompat; i++)
			if (t->compat[i] == tc)
				return c;
	}
	return NULL;
}

/* ---- setup ---- */

static bool candidate(const struct ol_image *img)
{
	return !img->taken && !img->final && img->member;
}

/* Definer lists: symbol -> candidates in image order (appended at the
 * tail, so each list is in command-line order). */
static void index_definers(struct resolver *r)
{
	struct ol_strmap tails = { 0 };

	for (size_t i = 0; i < r->l->nimages && !r->oom; i++) {
		const struct ol_image *img = &r->l->images[i];

		if (!candidate(img) || img->symbols_state != 1)
			continue;
		for (size_t s = 0; s < img->defined.n && !r->oom; s++) {
			const char *sym = img->defined.v[s];
			uintptr_t *head = ol_strmap_put(&r->definers, sym, strlen(sym));
			uintptr_t *tail = ol_strmap_put(&tails, sym, strlen(sym));
			size_t k = r->ndef;

			if (!head || !tail ||
			    !(r->definer_image = ol_grow(r->definer_image, r->ndef, &r->capdef,
							 sizeof(size_t), 256)) ||
			    !(r->next_definer = ol_grow(r->next_definer, r->ndef, &r->capnext,
							sizeof(size_t), 256))) {
				r->oom = true;
				break;
			}
			r->definer_image[k] = i;
			r->next_definer[k] = SIZE_MAX;
			if (*tail)
				r->next_definer[*tail - 1] = k;
			else
				*head = k + 1;
			*tail = k + 1;
			r->ndef++;
		}
	}
	ol_strmap_free(&tails);
}

static void resolver_free(struct resolver *r)
{
	for (size_t i = 0; i < r->nt; i++)
		ol_strmap_free(&r->t[i].defined);
	ol_strmap_free(&r->target_index);
	ol_strmap_free(&r->definers);
	free(r->t);
	free(r->target_of);
	free(r->next_definer);
	free(r->definer_image);
	free(r->work);
}

/* Which targets can take part: one whose linked images could meet a
 * candidate (an archive image not linked yet) of a compatible target, and
 * such a candidate's own.  Only their images' symbols are read: a link of
 * 1000 host-device objects with only GPU runtimes in archives reads none
 * (7 ms before). */
static bool *useful_targets(struct resolver *r)
{
	struct ol_link *l = r->l;
	size_t nt = r->nt ? r->nt : 1;
	bool *useful = calloc(nt, sizeof(bool)), *has = calloc(nt, 2 * sizeof(bool));
	bool *has_cand = has, *has_taken = has ? has + nt : NULL;

	if (!useful || !has) {
		free(useful);
		free(has);
		return NULL;
	}
	for (size_t i = 0; i < l->nimages; i++) {
		if (candidate(&l->images[i]))
			has_cand[r->target_of[i]] = true;
		else if (l->images[i].taken)
			has_taken[r->target_of[i]] = true;
	}
	/* linked code that can meet a candidate ... */
	for (size_t a = 0; a < r->nt; a++)
		for (size_t c = 0; has_taken[a] && c < r->t[a].ncompat; c++)
			useful[a] |= has_cand[r->t[a].compat[c]];
	/* ... and the candidates it, or a candidate taken in turn, can meet
	 * (compatibility of target IDs need not be transitive) */
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t a = 0; a < r->nt; a++)
			for (size_t c = 0; useful[a] && c < r->t[a].ncompat; c++)
				if (has_cand[r->t[a].compat[c]] && !useful[r->t[a].compat[c]])
					useful[r->t[a].compat[c]] = changed = true;
	}
	free(has);
	return useful;
}

enum ol_err ol_resolve_device_symbols(struct ol_link *l)
{
	struct resolver r = { .l = l };
	bool *useful = NULL;

	r.target_of = calloc(l->nimages ? l->nimages : 1, sizeof(*r.target_of));
	if (!r.target_of)
		return OL_E_NOMEM;
	for (size_t i = 0; i < l->nimages && !r.oom; i++) {
		r.target_of[i] = target_of(&r, &l->images[i]);
		if (r.nt > OL_DEVICE_TARGETS_MAX) {
			ol_link_errorf(l, "%s: device code for more than %d targets (offload kind, "
					  "triple, arch) in one link; %s %s is one too many",
				       ol_link_quote(l, l->images[i].origin), OL_DEVICE_TARGETS_MAX,
				       ol_link_quote(l, l->images[i].triple),
				       ol_link_quote(l, l->images[i].arch));
			resolver_free(&r);
			return OL_E_REPORTED;
		}
	}
	link_targets(&r);
	if (!r.oom && !(useful = useful_targets(&r)))
		r.oom = true;
	for (size_t i = 0; i < l->nimages && !r.oom; i++) {
		struct ol_image *img = &l->images[i];

		if (useful[r.target_of[i]] && (img->taken || candidate(img)))
			ol_read_device_symbols(img);
	}
	index_definers(&r);
	for (size_t i = 0; i < l->nimages && !r.oom; i++) {
		const struct ol_image *img = &l->images[i];

		if (img->taken && img->symbols_state == 1) {
			define_all(&r, img, r.target_of[i]);
			push_needs(&r, img, r.target_of[i]);
		}
	}
	/* In order: the first image that needs a symbol names it. */
	for (size_t w = 0; w < r.nwork && !r.oom; w++) {
		struct need n = r.work[w];
		struct ol_image *c;

		if (!resolved(&r, &n) && (c = first_definer(&r, &n)))
			take(&r, c, &n);
	}
	free(useful);
	resolver_free(&r);
	return r.oom ? OL_E_NOMEM : OL_OK;
}
