/* What a backend is (src/targets/): one file per target family, one
 * table of them.
 *
 * A backend plans the link of one target family's groups: it claims the
 * triples (or the offload kind) it links, and turns a group into the
 * chain of commands that makes its image (g->steps: each a program, its
 * arguments, what it reads), through the helpers of devplan/plan.h.  The
 * cache keys each step from that description (devcache/cache.h); the job
 * graph runs the chains (devlink/run.c); a backend whose image is made
 * from what its link wrote (SPIR-V: a container around the module) does
 * that in its finish hook.  Adding a family is one file defining a struct
 * ol_backend and one row of the table in backends.c (docs/design.md,
 * "Adding a target family"). */
#ifndef OFFLINK_TARGETS_BACKEND_H
#define OFFLINK_TARGETS_BACKEND_H

#include "devplan/plan.h"
#include "format/triple.h"
#include "link/link.h"

struct ol_backend {
	const char *name;            /* "CPU", "NVPTX", ...: for readers */
	/* A family of one offload kind (SYCL: its own linker, whatever the
	 * triple) claims every group of that kind; the others (kind 0) claim
	 * the groups of the triples they link. */
	enum ob_offload_kind kind;
	/* Whether the family links groups of this triple (kind 0). */
	bool (*claims)(const char *triple);
	/* Add g's steps (ol_group_add_step); g->stem, g->input_paths and
	 * g->image_path are set.  OL_E_UNSUPPORTED: reported already (the
	 * other groups are still planned). */
	enum ol_err (*plan)(struct ol_link *l, struct ol_group *g);
	/* After g's last step, or NULL: the image made from what the link
	 * wrote (g->module_path); finishing names it in messages. */
	enum ol_err (*finish)(struct ol_link *l, struct ol_group *g, struct ol_diag *d);
	const char *finishing;
};

/* The families (sycl.c, cpu.c, nvptx.c, amdgpu.c, spirv.c), and the one
 * that links groups of kind and triple, or NULL (backends.c). */
extern const struct ol_backend ol_backend_sycl, ol_backend_cpu, ol_backend_nvptx,
	ol_backend_amdgpu, ol_backend_spirv;
const struct ol_backend *ol_backend_of(enum ob_offload_kind kind, const char *triple);

#endif
