/* The state of one offlink run (src/link/, the room every planner stands
 * on): the options, the inputs as the host link will see them, the device
 * images found in them, the groups linked, and the files produced.  One
 * struct ol_link is passed first to every phase (docs/design.md); nothing
 * else is global but the temp registry.  This room also holds how the
 * link reports and names things (link.c), which LLVM release it follows
 * (llvm_release.c) and where its programs are (tools.c). */
#ifndef OFFLINK_LINK_LINK_H
#define OFFLINK_LINK_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/diag.h"
#include "common/strmap.h"
#include "common/strvec.h"
#include "extract/archive_reader.h"
#include "format/offload_binary.h"
#include "os/mapfile.h"
#include "os/outfile.h"
#include "cache/facts.h"
#include "cache/store.h"
#include "jobs/graph.h"
#include "jobs/progress.h"
#include "os/spawn.h"

/* What the command line asks the host link to read, in order. */
enum ol_item_kind {
	ITEM_FILE,          /* a positional input */
	ITEM_LIBRARY,       /* -l<name> or -l:<file> */
	ITEM_WHOLE_ON,      /* --whole-archive */
	ITEM_WHOLE_OFF,     /* --no-whole-archive */
	ITEM_GROUP_START,   /* --start-group, -( */
	ITEM_GROUP_END,     /* --end-group, -) */
	ITEM_STATIC,        /* -Bstatic and its synonyms */
	ITEM_DYNAMIC,       /* -Bdynamic and its synonyms */
	ITEM_UNDEFINED,     /* -u <symbol> */
	ITEM_AS_NEEDED,     /* --as-needed (kept for CPU device links) */
	ITEM_NO_AS_NEEDED,
};

struct ol_item {
	enum ol_item_kind kind;
	const char *value;  /* file, library name or symbol */
	const char *spelled;/* the argument as given, for messages */
	long host_arg;      /* ITEM_FILE: its index in host_args */
};

enum ol_input_type {
	INPUT_MISSING,
	INPUT_OBJECT,       /* ELF relocatable */
	INPUT_ARCHIVE,
	INPUT_SHARED,       /* ELF shared object: no device code to link */
	INPUT_OFFLOAD,      /* a raw offload binary: device code only */
	INPUT_OTHER,        /* linker scripts, executables, unknown */
};

struct ol_input;

/* An archive member; its host symbols are read only when the simulated
 * host link loads it. */
struct ol_member {
	struct ol_input *archive;
	const char *name;
	uint8_t *data;
	size_t size;
	uint64_t header_offset;
	bool loaded;        /* the host link pulls it in */
	bool indexed;       /* its archive's index names a symbol of it */
	size_t first_image, nimages; /* its device images in link->images */
};

/* A file the host link reads (a positional input or a found -l library). */
struct ol_input {
	const struct ol_item *item;
	const char *path;
	enum ol_input_type type;
	struct ol_map map;
	bool whole_archive; /* --whole-archive was on at its position */
	int group;          /* index of its --start-group, or -1 */
	bool loaded;        /* objects: always; archives: n/a */
	bool implicit;      /* added by offlink, not named by the user: a
			     * device runtime the device code needs */
	struct ol_member *members;
	size_t nmembers;
	struct ol_ar_keep thin;     /* a thin archive's member files, mapped */
	size_t first_image, nimages; /* device images of an object or raw file */
};

/* A device image found in an input. */
struct ol_image {
	const struct ob_entry *entry;
	enum ob_offload_kind kind;
	const char *triple;
	const char *arch;
	const char *origin;     /* "x.o", "lib.a(k.o)" */
	struct ol_input *input;
	struct ol_member *member; /* NULL unless from an archive */
	bool final;             /* from an allocated section: already linked */
	bool taken;             /* goes into a device link */
	const char *why;        /* why it was taken, for --dry-run */
	int symbols_state;      /* 0 unread, 1 read, -1 unknown */
	unsigned producer;      /* the LLVM release of its object's clang, or 0 */
	struct ol_strvec defined, undefined; /* its global device symbols */
	/* nvcc's relocatable code (extract/nvcc_rdc.h): its module's ID, or
	 * NULL; and the SMs of the links it goes into, which ol_nvcc_archs
	 * decides in place of its arch: the program's CUDA links (a cubin's
	 * own SM; each SM a PTX image is compiled for) and the OpenMP NVPTX
	 * links whose code calls into it */
	const char *nvcc_module;
	const char **nvcc_cuda, **nvcc_openmp;
	size_t nnvcc_cuda, nnvcc_openmp;
};

/* A managed variable of an LLVM 19 entry table: its initial value and the
 * global pointer the runtime publishes its device copy in. */
struct ol_managed {
	enum ob_offload_kind kind;
	const char *init_symbol;
	const char *pointer_symbol; /* NULL: not reachable from the wrapper */
	struct ol_input *input;
	struct ol_member *member;
};

/* A module an input registers itself (extract/nvcc_rdc.h,
 * ol_nvcc_registered): the user's nvcc -dlink object (CMake's
 * cmake_device_link.o), an -r output. */
struct ol_nvcc_def {
	const char *id;
	const char *origin;         /* "dlink.o", "lib.a(dlink.o)" */
	struct ol_input *input;
	struct ol_member *member;   /* NULL unless from an archive */
};

struct ol_backend;

/* How a step of a group's link is scheduled (jobs/graph.h).  By default
 * it waits for the step before it: a chain.  The steps of a graph (a
 * ThinLTO link: a module's backend waits for the thin link, nvlink for
 * every module) name what they wait for, and may carry offlink's own work
 * before and after their command (a module's result looked up in the
 * cache, and kept). */
struct ol_step_sched {
	bool explicit_after;         /* after[] says what it waits for */
	const size_t *after;         /* indices of earlier steps (arena) */
	size_t nafter;
	unsigned rank;               /* (explicit_after) among steps ready at once: */
	int64_t weight;              /* the lowest rank, then the heaviest, first */
	enum ol_err (*prepare)(void *ctx, enum ol_prepared *what, struct ol_diag *d);
	enum ol_err (*complete)(void *ctx, struct ol_diag *d);
	void *ctx;
};

/* One device link: images of one offload kind for one (triple, arch). */
struct ol_group {
	enum ob_offload_kind kind;
	const char *triple;
	const char *arch;            /* "" for CPU targets */
	struct ol_image **images;
	size_t nimages;
	bool any_bitcode, all_bitcode;
	bool any_thin;               /* some bitcode is a ThinLTO module */
	const char *stem;            /* file names: "<index>.<kind>.<triple>[.<arch>]" */
	const char **input_paths;    /* where each image is written for the linker */
	const char *inputs_archive;  /* or: all of them, as one archive (its
				      * linker reads it with --whole-archive) */
	char *image_path;            /* the linked image */
	const char *module_path;     /* what the link writes when the image is
				      * a container made after it (SPIR-V),
				      * or NULL: the link writes image_path */
	struct ol_cmd *steps;        /* the commands that link it */
	struct ol_step_sched *sched; /* how each of them waits, beside steps[] */
	size_t nsteps, capsteps, capsched;
	struct ol_thin *thin;        /* a ThinLTO link's modules (thin/thinlto.h), or NULL */
	bool relinked;               /* scratch: dropped as redundant while grouping */
	const struct ol_backend *backend; /* whose plan it is (targets/backend.h) */
	/* the device-link cache (devcache/cache.h) */
	enum { CACHE_OFF, CACHE_HIT, CACHE_MISS, CACHE_NOT_USED } cache;
	const char *cache_note;      /* for the plan: "local hit", "not used: ..." */
	uint8_t cache_key[32];       /* what the link runs and reads up front */
	struct ol_depfile {          /* dependency files its linkers write */
		size_t step;         /* whose */
		char *path;
		int flavor;          /* enum ol_ld_flavor */
		char *trace;         /* GNU ld: its --verbose output (where it
				      * looked), or NULL */
		struct ol_strvec dirs; /* lld: its search directories, and */
		char *sysroot;       /* its --sysroot: where its scripts'
				      * searches look */
	} *depfiles;
	size_t ndepfiles;
	size_t *cache_deps;          /* the files its key was computed from
				      * (records of l->cache.files) */
	size_t ncache_deps;
	struct ol_strvec cache_relative; /* absolute paths its key holds
					  * relative (the base directory) */
	struct ol_strvec cache_verbatim; /* paths its key holds as they are */
	uint8_t cache_key2[32];      /* the first key, what clang decided on and
				      * the linker command it runs */
	bool cache_key2_known;
	uint8_t probe_key[32];       /* clang, its arguments, the environment:
				      * what its answer is remembered under */
	bool linked;                 /* its link ran and made the image */
	/* its link through clang (CPU, SPIR-V, merged bitcode), if any */
	int driver_step;             /* its step's index, or -1 */
	size_t driver_plain_argc;    /* its arguments before the cache's flags */
	enum { PROBE_NONE, PROBE_KNOWN, PROBE_PENDING } probe;
	int predicted;               /* PENDING: the linker flavor flagged for */
	struct ol_strvec linker;     /* the command clang runs */
	struct ol_facts facts;       /* what clang decided it on */
	struct ol_cmd probe_cmd;     /* PENDING: clang -### under the recorder */
	char *probe_log, *probe_out;
	double probe_time;           /* when the probe started (coarse clock) */
	bool probe_ran;
	bool probe_opaque;           /* clang is a program the recorder cannot see
				      * into (static): its answer is asked each
				      * link, never remembered */
};

/* The LLVM release the link follows (llvm_release.c). */
struct ol_llvm {
	unsigned major;              /* 16, 19, 22, ...; 0 when unknown */
	char *bin;                   /* its tools' directory, or NULL */
	const char *why;             /* how it was chosen, for the plan */
	const char *searched;        /* where it was looked for */
};

struct asm_arch;

/* One registration wrapper per offload kind. */
struct ol_wrapper {
	enum ob_offload_kind kind;
	struct ol_group **groups;
	size_t ngroups;
	char *bundle_path;           /* CUDA fatbinary / HIP bundle, or NULL */
	char *source_path;
	char *object_path;
	struct ol_cmd *steps;        /* bundling, then compiling */
	size_t nsteps;
	const struct asm_arch *arch; /* registration written as assembly for
				      * it (wrap/asm_code.h), or NULL: as C */
	bool llvm_as;                /* assembled by LLVM (llvm-mc, or clang for
				      * the C form): it cannot name a symbol
				      * starting with .L, its own local prefix */
	bool object;                 /* written by offlink as an object
				      * (wrap_openmp_object): no step */
};

/* A file the host linker writes that names its output (host_files.c). */
struct ol_host_file {
	enum { HOST_DEPFILE, HOST_MAP } kind;
	long arg;                    /* index in host_args of the argument replaced */
	const char *replacement;     /* ... by this, naming tmp */
	const char *dest;            /* where the user wants it, or NULL: stdout */
	const char *tmp;             /* where the linker writes it */
};

struct ol_options {
	char *linker_path;
	char *host_triple;
	char *opt_level;        /* "0".."3", "s", "z" */
	bool opt_level_given;   /* by --opt-level, not the default 2 */
	char *cuda_path;
	char *time_trace;
	char *llvm;             /* --llvm=<release or bin directory> */
	char *registration;     /* --registration=asm|c|auto, or NULL (auto) */
	enum { JOBS_DEFAULT, JOBS_GIVEN, JOBS_JOBSERVER } jobs_mode; /* --wrapper-jobs */
	char *cache_dir;        /* --cache-dir= */
	bool no_cache;          /* --no-cache */
	uint64_t cache_size;    /* --cache-size=, 0: not given */
	bool cache_shared;      /* --cache-shared */
	char *cache_secret_file;/* --cache-secret-file= */
	char *cache_base_dir;   /* --cache-base-dir= */
	struct ol_strvec cache_remotes; /* --cache-remote= */
	bool cache_stats, cache_clear;  /* --cache-stats, --cache-clear */
	bool dry_run, verbose, save_temps, embed_bitcode, print_wrapped;
	bool relocatable, device_debug, compress, help, help_hidden, version;
	bool print_compat_dir;
	bool whole_program, clang_backend;
	bool emit_fatbin_only;  /* LLVM 22: the CUDA/HIP container is the output */
	int compression_level;  /* INT_MIN: not given */
	/* --offload-entries: an entry no image for a target device defines
	 * (entry_check.c) is a warning (the default), an error, or not looked for */
	enum { ENTRIES_WARN, ENTRIES_ERROR, ENTRIES_OFF } offload_entries;
	/* --progress (OFFLINK_PROGRESS): the device links' status line
	 * (jobs/progress.h); never under -v or --dry-run */
	enum ol_progress_mode progress;
	bool progress_given;
	unsigned jobs;
	struct ol_strvec mllvm, offload_opt, device_linker, device_compiler;
	struct ol_strvec ptxas_args, bitcode_libraries, builtin_bitcode;
	struct ol_strvec override_images, should_extract, ignored;
};

struct ol_link {
	const char *argv0;
	struct ol_options opt;
	/* the host command line */
	struct ol_strvec host_args;  /* forwarded, in order, unchanged */
	long output_arg;             /* index in host_args of the output path token, -1 */
	size_t output_prefix;        /* chars before the path in that token ("-o" joined) */
	size_t wrappers_at;          /* where wrapper objects are inserted */
	const char *output;          /* -o value, or "a.out" */
	struct ol_item *items;
	size_t nitems;
	struct ol_strvec lib_dirs;   /* -L, in order */
	bool *lib_dir_present;       /* which of them exist (inputs.c) */
	struct ol_strvec rpaths;
	char *sysroot;
	/* run state */
	struct ol_arena arena;
	struct ol_run_opts run;
	struct ol_progress *progress; /* the status line while the device links
				       * run, or NULL: messages erase it first */
	struct ol_store cache;       /* the device-link cache (devcache/cache.h) */
	bool cache_opened;           /* l->cache needs closing */
	bool cache_on;               /* some store is in use */
	char *cache_base_dir;        /* the cache's base directory, or NULL */
	char *cwd;                   /* the working directory, for the cache */
	double cache_key_time;       /* when the first key was begun (wall
				      * clock, s): a file changed after it may
				      * not be what a key says */
	size_t cache_nkeyed;         /* file records made while keying: later
				      * ones were first read after a link */
	char *probe_lib;             /* offlink-probe.so, or NULL */
	bool cache_stored;           /* the groups' stores are done */
	char *tmpdir;                /* private temp directory, or <output>.offlink-temps */
	int watchdog_fd;             /* the watchdog's socket (the cleanup registry's), or -1 */
	struct ol_input *inputs;
	size_t ninputs;
	struct ob_binary *binaries;  /* decoded, owned */
	size_t nbinaries, capbinaries;
	struct ol_image *images;
	size_t nimages, capimages;
	struct ol_strmap host_symbols;
	struct ol_managed *managed;
	size_t nmanaged, capmanaged;
	struct ol_nvcc_def *nvcc_defs;
	size_t nnvcc_defs, capnvcc_defs;
	struct ol_input *cuda_devrt; /* CUDA's device runtime, when offlink
				      * added it (driver/cuda_devrt.c): if its
				      * module is linked, the host link takes
				      * its host object too */
	struct ol_group *groups;
	size_t ngroups;
	struct ol_wrapper *wrappers;
	size_t nwrappers;
	struct ol_llvm llvm;         /* the release whose tools run */
	char *clang;                 /* the clang used for device links and wrappers */
	const char *entries_section; /* omp_offloading_entries or llvm_offload_entries */
	bool new_entries;            /* inputs use LLVM >= 20's llvm_offload_entries */
	struct ol_outfile out;       /* the output, under its temporary name */
	bool out_open;
	struct ol_host_file *host_files; /* the linker's files that name the output */
	size_t nhost_files, caphost_files;
	int exit_status;             /* the host linker's, passed through */
	/* collected errors (phases report every problem, then stop) */
	size_t nerrors;
	struct timing {
		const char *phase;
		double start_us, dur_us;
	} timings[16];
	size_t ntimings;
	struct child_timing {        /* the tools run, for the time trace */
		char *tool;
		double start_us, dur_us;
	} *children;
	size_t nchildren, capchildren;
};

/* Report an error now (prefixed "offlink: error: ") and count it. */
void ol_link_error(struct ol_link *l, const struct ol_diag *d);
/* printf-style error or warning without a diagnostic. */
void ol_link_errorf(struct ol_link *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ol_link_warnf(struct ol_link *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Path of an intermediate file: "<tmpdir>/<suffix>", where tmpdir is the
 * private temporary directory, or "<output>.offlink-temps" under
 * --save-temps. */
char *ol_link_temp_path(struct ol_link *l, const char *suffix);

/* --wrapper-time-trace: a span of offlink's own work (name, from
 * start_us on ol_now_us's clock to now), beside the tools' runs. */
void ol_link_span(struct ol_link *l, const char *name, double start_us);

/* Text from an input (a triple, an arch, a member or symbol name) made
 * safe to print: common/escape.h's rendering, in l's arena. */
const char *ol_link_quote(struct ol_link *l, const char *text);

/* "openmp", "cuda", "hip", ... */
const char *ol_kind_name(enum ob_offload_kind k);
/* "openmp nvptx64-nvidia-cuda sm_90": the group in messages. */
char *ol_group_label(struct ol_link *l, const struct ol_group *g);
/* Where g's device code comes from, for messages: "a.o, lib.a(k.o)" or
 * "a.o, b.o, c.o and 7 more". */
const char *ol_group_origins(struct ol_link *l, const struct ol_group *g);


#endif
