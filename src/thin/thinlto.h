/* ThinLTO device links, each module a job (thin/thinlto.c).
 *
 * A group whose bitcode was compiled with -foffload-lto=thin is linked as
 * a distributed ThinLTO build does it, each step a process of its own:
 *
 *   1. the thin link, the release's llvm-lto2 with the resolutions LLVM's
 *      wrapper would give its in-process LTO (lto_resolution.c): each
 *      thin module's index and import list, and the regular-LTO
 *      partition (OpenMP's device runtime) compiled to target code;
 *   2. one backend per thin module (the release's clang -cc1
 *      -fthinlto-index=), as soon as the thin link is done, on every slot;
 *   3. per target-code file, the backend's assembler (ptxas), as soon as
 *      its own backend is done;
 *   4. the device linker (nvlink) of everything.
 *
 * The steps run in the group's own directory, where every module is a
 * file named by its content: the paths the thin link records in the
 * indexes are the same in every link of the same code, so each module's
 * backend result can be kept in the device-link cache by content (the
 * module, its index, the modules it imports, the tools, the options)
 * and a relink after one changed file recompiles that file's module and
 * takes the others from the cache (thin_cache.c). */
#ifndef OFFLINK_THIN_THINLTO_H
#define OFFLINK_THIN_THINLTO_H

#include "common/strmap.h"
#include "link/link.h"

struct ol_thin_module {
	size_t image;          /* its image in the group */
	const char *name;      /* its file in the group's directory */
	bool thin;             /* compiled by a backend of its own (else: in
				* the regular partition) */
};

/* A step of the graph whose result the cache keeps (thin_cache.c). */
struct ol_thin_node {
	struct ol_link *l;
	struct ol_group *g;
	size_t step;
	bool backend;          /* a module's backend; else an assembler */
	const char *in;        /* what it compiles (absolute) */
	const char *index;     /* a backend's index, its list of imports */
	const char *imports;
	const char *out;       /* what it writes (absolute) */
	uint8_t key[32];
	bool keyed;            /* key holds a cacheable key */
	bool hit, ran;         /* its result came from the cache; it ran */
	size_t *deps;          /* the files the key was computed from */
	size_t ndeps;
	struct ol_thin_node *next;
};

struct ol_thin {
	const char *dir;       /* the group's directory */
	struct ol_thin_module *mods;
	size_t nmods, nthin;
	struct ol_strmap by_name;  /* a module's name -> its index + 1 */
	bool regular;          /* some module is regular LTO: a partition of its own */
	struct ol_thin_node *nodes; /* (arena) the steps the cache serves */
	/* what happened, for -v: [0] backends, [1] assemblers */
	size_t ran[2], cached[2];
};

/* The code one backend or the regular partition makes: its file in the
 * group's directory and the step that writes it. */
struct ol_thin_output {
	const char *path;      /* absolute */
	size_t step;
};

/* What the release's tools are told of the target. */
struct ol_thin_target {
	const char *cpu;       /* -mcpu, -target-cpu: "sm_90" */
	const char *feature;   /* -mattr, -target-feature ("+ptx85"), or NULL */
	const char *opt;       /* "0".."3" */
	const char *suffix;    /* the target code's file suffix: ".s" */
};

/* A module's file name in its group's directory: its content's digest
 * (128 bits of SHA-256, hex), "<hex>.bc", so that the name an index
 * records for it is the same in every link of the same module; the k-th
 * copy of the same bytes in one group "<hex>.<k>.bc" (k from 2).  copies
 * (digest -> copies so far) makes each name one lookup: linear in the
 * modules, however many are alike.  In a's memory; NULL when out of it. */
const char *ol_thin_module_name(struct ol_arena *a, struct ol_strmap *copies, const void *image,
				size_t size);

/* Plan g's thin link and backends (steps 1 and 2 above): g->thin, the
 * images written into its directory; *outs (arena) the target-code files
 * to assemble, the regular partition's first. */
enum ol_err ol_thin_plan(struct ol_link *l, struct ol_group *g, const struct ol_thin_target *t,
			 struct ol_thin_output **outs, size_t *nouts);

/* Step `step` of g, module m's backend writing out, as one whose result
 * the cache keeps, keyed by its program, its arguments, the module, its
 * index and the modules it imports. */
enum ol_err ol_thin_cache_backend(struct ol_link *l, struct ol_group *g, size_t step,
				  const struct ol_thin_module *m, const char *out);
/* Step `step` of g (an assembler of in into out, absolute paths) as one
 * whose result the cache keeps, keyed by its program, its arguments and
 * in's bytes. */
enum ol_err ol_thin_cache_assembler(struct ol_link *l, struct ol_group *g, size_t step,
				    const char *in, const char *out);

/* Before the group's first step: its directory. */
enum ol_err ol_thin_prepare_dir(struct ol_link *l, struct ol_group *g, struct ol_diag *d);

/* After a group's link: how many modules ran and how many came from the
 * cache, for -v. */
void ol_thin_report(struct ol_link *l, const struct ol_group *g);

/* The plan's line about it ("ThinLTO: 21 modules, ..."). */
const char *ol_thin_summary(struct ol_link *l, const struct ol_group *g);

/* Beside the host link: each step's result the cache did not have, kept
 * (when the files its key was computed from are the same as then). */
void ol_thin_store(struct ol_link *l);

/* What the cache's keys of the link's steps hold, and each group's map of its
 * modules' names. */
void ol_thin_free(struct ol_link *l);

/* lto_resolution.c: the llvm-lto2 -r argument of every symbol of g's
 * bitcode images (names[i]: image i's file as llvm-lto2 is given it, or
 * NULL: not bitcode), into out. */
enum ol_err ol_lto_resolutions(struct ol_link *l, const struct ol_group *g,
			       const char *const *names, struct ol_strvec *out, struct ol_diag *d);

#endif
