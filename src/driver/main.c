/* offlink: a drop-in for clang-linker-wrapper.
 *
 * The clang driver runs it as the last step of every offloading link with
 * the whole host-linker command line.  main() is the list of phases; each
 * is one function, and this file alone decides the exit status. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/env.h"
#include "common/escape.h"
#include "common/grow.h"
#include "common/message.h"
#include "common/version.h"
#include "devlink/devlink.h"
#include "thin/thinlto.h"
#include "driver/host_files.h"
#include "link/llvm_release.h"
#include "link/tools.h"
#include "register/register.h"
#include "driver/options.h"
#include "driver/phases.h"
#include "os/cleanup.h"
#include "os/findprog.h"
#include "os/outfile.h"
#include "os/spawn.h"

enum { EXIT_OK = 0, EXIT_ERROR = 1, EXIT_USAGE = 2 };

static const char help_text[] =
	"OVERVIEW: offlink, the offloading link step: finds the device code clang\n"
	"embeds in host objects and archives, links it per target, wraps it for the\n"
	"runtime, and runs the host linker.  A drop-in for clang-linker-wrapper.\n"
	"\n"
	"USAGE: offlink [options] <host linker arguments>\n"
	"\n"
	"Every argument that is not an offlink option goes to the host linker,\n"
	"unchanged and in order.\n"
	"\n"
	"OPTIONS:\n"
	"  --linker-path=<path>     the host linker (required; clang passes it)\n"
	"  --llvm=<release>|<dir>   the LLVM release whose tools and behaviour the link\n"
	"                           follows (default: the clang that ran offlink, or\n"
	"                           the newest that produced the device code)\n"
	"  --host-triple=<triple>   target of the registration code (default " OFFLINK_DEFAULT_HOST_TRIPLE ")\n"
	"  --opt-level=O<n>         optimisation of device links (O0-O3, Os, Oz; default O2)\n"
	"  --wrapper-jobs=<n>       device links run in parallel (default: CPUs)\n"
	"  --dry-run                print the plan and every command, run nothing\n"
	"                           (but the fatbinary version probe)\n"
	"  --wrapper-verbose, -v    print the plan and each command as it runs\n"
	"  --save-temps             keep intermediate files, named after the output\n"
	"  --print-wrapped-module   print the generated registration source\n"
	"  --device-linker=[<triple>=]<arg>    argument for device links\n"
	"  --device-compiler=[<triple>=]<arg>  argument for device compilation\n"
	"  --should-extract=<arch>[,...]       always link archive members for these archs\n"
	"  --bitcode-library=<kind>-<triple>-<arch>=<file>  extra device bitcode\n"
	"  --builtin-bitcode=<triple>=<file>   bitcode linked into each device module\n"
	"  --override-image=<kind>=<file>      use <file> as the linked image\n"
	"  --cuda-path=<dir>        CUDA toolkit (ptxas, nvlink, fatbinary)\n"
	"  --embed-bitcode          embed linked bitcode instead of an object (JIT)\n"
	"  --emit-fatbin-only       CUDA/HIP: write the fatbinary or bundle and stop\n"
	"  --cache-dir=<dir>        the device-link cache (default $OFFLINK_CACHE_DIR,\n"
	"                           $XDG_CACHE_HOME/offlink, ~/.cache/offlink)\n"
	"  --cache-size=<n>[KMG]    its size cap (default $OFFLINK_CACHE_SIZE, 1G)\n"
	"  --no-cache               link every device image again\n"
	"  --cache-shared           the cache directory is shared: entries are\n"
	"                           authenticated with OFFLINK_CACHE_SECRET_FILE\n"
	"  --cache-secret-file=<f>  the secret a shared cache's users share\n"
	"  --cache-remote=<url>     a remote cache: redis://host[:port][/db] or\n"
	"                           http://host[:port]/path/ (several allowed)\n"
	"  --cache-base-dir=<dir>   paths under <dir> enter keys relative to the\n"
	"                           working directory, so checkouts share entries\n"
	"  --cache-stats, --cache-clear  show or empty the device-link cache\n"
	"  --progress=auto|always|never  a status line while the device links run\n"
	"                           (default auto: when stderr is a terminal; never\n"
	"                           under -v)\n"
	"  --offload-entries=warn|error|off  an offload entry (kernel, variable) that\n"
	"                           the image a target device loads does not define:\n"
	"                           a warning (default), an error, or not checked\n"
	"  --registration=obj|asm|c|auto  registration as an object offlink writes\n"
	"                           (OpenMP, x86_64 hosts), as assembly (x86_64,\n"
	"                           aarch64 hosts) or as C; default: the first that can\n"
	"  --compress, --compression-level=<n>  compress HIP bundles\n"
	"  --device-debug           device code with debug information\n"
	"  --ptxas-arg=<arg>        argument for ptxas\n"
	"  -mllvm <opt>, --offload-opt=<opt>   LLVM options for device code generation\n"
	"  --wrapper-time-trace=<file>  write a Chrome trace of the phases\n"
	"  --print-compat-dir       print the directory to pass to clang with -B\n"
	"  --help, --version\n"
	"\n"
	"Environment: OFFLINK_LLVM (as --llvm), OFFLINK_REGISTRATION (as\n"
	"--registration), OFFLINK_PROGRESS (as --progress), OFFLINK_AS,\n"
	"OFFLINK_CLANG and the other tool variables of offlink(1).\n"
	"Exit status: the host linker's; 1 for an error of offlink's own; 2 for a\n"
	"bad command line.  See offlink(1).\n";

static double now_us(void)
{
	return ol_now_us();
}

/* --wrapper-time-trace: each tool's run, named by its file name. */
static void record_child(void *ctx, const struct ol_cmd *c, double start_us, double end_us)
{
	struct ol_link *l = ctx;
	struct child_timing *v = ol_grow(l->children, l->nchildren, &l->capchildren,
					 sizeof(*v), 16);
	const char *slash = strrchr(c->argv.v[0], '/');
	struct ol_buf name = { 0 };

	if (!v)
		return;
	l->children = v;
	if (ol_file_name_part(&name, slash ? slash + 1 : c->argv.v[0], OL_NAME_PART_MAX))
		return;
	l->children[l->nchildren++] = (struct child_timing){ (char *)name.data, start_us,
							     end_us - start_us };
}

static void set_defaults(struct ol_link *l, char *argv0)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	l->argv0 = argv0;
	l->opt.jobs = cpus > 0 ? (unsigned)cpus : 1;
	l->output_arg = -1;
}

/* OFFLINK_VERBOSE, OFFLINK_DRY_RUN: booleans (common/env.h); "no" is no,
 * and a value that is neither is an error, not a guess. */
static enum ol_err env_switch(struct ol_link *l, const char *name, bool *opt)
{
	struct ol_diag d;
	bool on;

	ol_diag_clear(&d);
	if (ol_env_bool(name, false, &on, &d)) {
		ol_link_error(l, &d);
		return d.code;
	}
	*opt |= on;
	return OL_OK;
}

/* OFFLINK_PROGRESS: as --progress, which wins; anything but auto, always
 * or never is an error naming the variable. */
static enum ol_err env_progress(struct ol_link *l)
{
	const char *v = getenv("OFFLINK_PROGRESS");
	enum ol_progress_mode mode;

	if (!v || !*v)
		return OL_OK;
	if (!ol_progress_parse(v, &mode)) {
		ol_link_errorf(l, "OFFLINK_PROGRESS=%s: expected auto, always or never", v);
		return OL_E_USAGE;
	}
	if (!l->opt.progress_given)
		l->opt.progress = mode;
	return OL_OK;
}

static enum ol_err finish_options(struct ol_link *l)
{
	/* For a whole build: offlink reads these, no other tool does, so
	 * they can be set where a flag would reach every link (and gcc's);
	 * both are checked, so both mistakes are reported at once. */
	enum ol_err bad = env_switch(l, "OFFLINK_VERBOSE", &l->opt.verbose);

	bad |= env_switch(l, "OFFLINK_DRY_RUN", &l->opt.dry_run);
	bad |= env_progress(l);
	if (bad)
		return OL_E_USAGE;
	if (!l->opt.host_triple)
		l->opt.host_triple = strdup(OFFLINK_DEFAULT_HOST_TRIPLE);
	l->opt.opt_level_given = l->opt.opt_level != NULL;
	if (!l->opt.opt_level)
		l->opt.opt_level = strdup("2");
	l->run.verbose = l->opt.verbose;
	l->run.dry_run = l->opt.dry_run;
	for (size_t i = 0; i < l->opt.ignored.n; i++)
		ol_link_warnf(l, "%s is internal to LLVM's tool; ignored", l->opt.ignored.v[i]);
	return l->opt.host_triple && l->opt.opt_level ? OL_OK : OL_E_NOMEM;
}

/* The link's watchdog, before the link makes anything: from here on
 * everything it makes -- its temporary directory, the output's private
 * directory, the outputs' and the device-link cache's temporaries -- is
 * known to the watchdog before it exists (os/cleanup.c), and removed by it
 * if offlink is SIGKILLed. */
static void start_watchdog(struct ol_link *l)
{
	if (l->opt.dry_run)
		return;
	if ((l->watchdog_fd = ol_spawn_watchdog()) >= 0)
		ol_cleanup_attach_watchdog(l->watchdog_fd);
}

/* All intermediate files in one directory of this link's own, made by
 * mkdir under a random name (a new directory, never one that exists,
 * never through a link planted there): in $TMPDIR, removed on every exit;
 * or, with --save-temps, beside the output as
 * "<output>.offlink-temps.XXXXXX", kept.  Two links to one output never
 * share it. */
static enum ol_err make_temp_dir(struct ol_link *l)
{
	const char *base = getenv("TMPDIR");
	char *dir = l->opt.save_temps
		? ol_arena_printf(&l->arena, "%s.offlink-temps.XXXXXX", l->output)
		: ol_arena_printf(&l->arena, "%s/offlink-XXXXXX", base && *base ? base : "/tmp");
	int made;

	if (l->opt.dry_run) {
		l->tmpdir = dir; /* printed as a template, never created */
		return dir ? OL_OK : OL_E_NOMEM;
	}
	/* kept under --save-temps: made as any directory, unregistered */
	made = !dir ? (errno = ENOMEM, -1)
		: l->opt.save_temps ? (mkdtemp(dir) ? 0 : -1) : ol_cleanup_create(dir, true);
	if (made < 0) {
		int err = errno;
		char *where = l->opt.save_temps ? ol_arena_printf(&l->arena, "beside %s", l->output)
			: ol_arena_printf(&l->arena, "in %s", base && *base ? base : "/tmp");

		ol_link_errorf(l, "cannot create a temporary directory %s: %s",
			       where ? ol_link_quote(l, where) : "", strerror(err));
		return OL_E_IO;
	}
	l->tmpdir = dir;
	l->run.response_dir = dir;
	if (l->opt.verbose)
		ol_message("offlink", NULL, "temporary files %s %s",
			   l->opt.save_temps ? "kept in" : "in", dir);
	return OL_OK;
}

#define PHASE(l, fn)                                                       \
	do {                                                               \
		double t0_ = now_us();                                     \
		enum ol_err rc_ = fn(l);                                   \
		if ((l)->ntimings < sizeof((l)->timings) / sizeof((l)->timings[0])) \
			(l)->timings[(l)->ntimings++] =                    \
				(struct timing){ #fn, t0_, now_us() - t0_ }; \
		if (rc_)                                                   \
			return rc_;                                        \
	} while (0)

static enum ol_err show_plan(struct ol_link *l)
{
	if (l->opt.dry_run || l->opt.verbose)
		ol_print_plan(l);
	return OL_OK;
}

static enum ol_err commit_output(struct ol_link *l)
{
	struct ol_diag d;

	if (!l->out_open)
		return OL_OK;
	/* the dependency file and map, naming the output, then the output */
	if (ol_deliver_host_files(l, false))
		return OL_E_IO;
	ol_diag_clear(&d);
	l->out_open = false;
	if (ol_out_commit(&l->out, false, &d)) {
		ol_link_error(l, &d);
		return d.code;
	}
	return OL_OK;
}

/* The link, phase by phase. */
static enum ol_err link_program(struct ol_link *l)
{
	ol_cache_preload(l);
	PHASE(l, make_temp_dir);
	/* find the device code in every input and -l library */
	PHASE(l, ol_scan_inputs);
	/* take archive members' device code when the host link uses them */
	PHASE(l, ol_select_archive_members);
	/* one device link per (kind, triple, arch) */
	/* the LLVM release whose tools link this device code */
	PHASE(l, ol_choose_llvm);
	PHASE(l, ol_add_relocatable_runtime);
	/* nvcc's code calling CUDA's device runtime: libcudadevrt.a, as nvcc */
	PHASE(l, ol_add_cuda_device_runtime);
	PHASE(l, ol_group_images);
	PHASE(l, ol_find_tools);
	PHASE(l, ol_plan_device_links);
	PHASE(l, ol_open_cache);
	/* a group whose image is in the cache runs no device linker */
	PHASE(l, ol_lookup_device_cache);
	PHASE(l, ol_plan_wrappers);
	PHASE(l, show_plan);
	/* link each group's images, in parallel */
	PHASE(l, ol_run_device_links);
	/* every kernel and variable on every device the program is built for */
	PHASE(l, ol_check_offload_entries);
	/* clang 22's HIP without -fgpu-rdc: the container is the output */
	if (l->opt.emit_fatbin_only) {
		PHASE(l, ol_emit_fatbin);
		ol_cache_store(l);
		return OL_OK;
	}
	/* fatbinary/bundle, generate and compile the registration code */
	PHASE(l, ol_build_wrappers);
	/* the host link, with the registration objects after -o */
	PHASE(l, ol_run_host_linker);
	/* -r: private entries section, device code dropped */
	PHASE(l, ol_finish_relocatable);
	PHASE(l, commit_output);
	/* (done beside the host link, unless that stopped early) */
	ol_cache_store(l);
	return OL_OK;
}

/* --wrapper-time-trace: the phases as a Chrome trace.  The file is opened
 * (under a temporary name) before the link, so an unwritable path is an
 * error before anything is linked, as LLVM's tool fails on it. */
static enum ol_err write_time_trace(struct ol_link *l, struct ol_outfile *out)
{
	double origin = l->ntimings ? l->timings[0].start_us : 0;
	struct ol_buf b = { 0 };
	struct ol_diag d;
	enum ol_err rc = OL_OK;

	ol_diag_clear(&d);
	rc |= ol_buf_puts(&b, "{\"traceEvents\":[\n");
	for (size_t i = 0; i < l->ntimings; i++)
		rc |= ol_buf_printf(&b, "{\"name\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":1,"
				    "\"ts\":%.0f,\"dur\":%.0f}%s\n",
				    l->timings[i].phase, l->timings[i].start_us - origin,
				    l->timings[i].dur_us,
				    i + 1 < l->ntimings || l->nchildren ? "," : "");
	/* The tools, on a track of their own ("cat":"tool"). */
	for (size_t i = 0; i < l->nchildren; i++)
		rc |= ol_buf_printf(&b, "{\"name\":\"%s\",\"cat\":\"tool\",\"ph\":\"X\",\"pid\":1,"
				    "\"tid\":2,\"ts\":%.0f,\"dur\":%.0f}%s\n",
				    l->children[i].tool, l->children[i].start_us - origin,
				    l->children[i].dur_us, i + 1 < l->nchildren ? "," : "");
	rc |= ol_buf_puts(&b, "]}\n");
	if (rc)
		rc = ol_diag_set(&d, OL_E_NOMEM, NULL, NULL);
	else if (!ol_out_write(out, b.data, b.len, &d))
		rc = ol_out_commit(out, false, &d);
	else
		rc = d.code;
	ol_buf_free(&b);
	if (rc) {
		ol_out_abort(out);
		ol_link_error(l, &d);
	}
	return rc;
}

static void free_cmds(struct ol_cmd *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ol_cmd_free(&c[i]);
	free(c);
}

static void link_free(struct ol_link *l)
{
	struct ol_options *o = &l->opt;
	struct ol_strvec *lists[] = { &o->mllvm, &o->offload_opt, &o->device_linker,
				      &o->device_compiler, &o->ptxas_args,
				      &o->bitcode_libraries, &o->builtin_bitcode,
				      &o->override_images, &o->should_extract,
				      &o->ignored, &l->host_args, &l->lib_dirs, &l->rpaths,
				      &o->cache_remotes };

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		ol_strvec_free(lists[i]);
	ol_thin_free(l);
	for (size_t i = 0; i < l->ngroups; i++) {
		free_cmds(l->groups[i].steps, l->groups[i].nsteps);
		free(l->groups[i].sched);
		free(l->groups[i].image_path);
		for (size_t k = 0; k < l->groups[i].ndepfiles; k++) {
			free(l->groups[i].depfiles[k].path);
			free(l->groups[i].depfiles[k].trace);
			free(l->groups[i].depfiles[k].sysroot);
			ol_strvec_free(&l->groups[i].depfiles[k].dirs);
		}
		free(l->groups[i].depfiles);
		free(l->groups[i].cache_deps);
		ol_strvec_free(&l->groups[i].linker);
		ol_facts_free(&l->groups[i].facts);
		ol_cmd_free(&l->groups[i].probe_cmd);
		ol_strvec_free(&l->groups[i].cache_relative);
		ol_strvec_free(&l->groups[i].cache_verbatim);
	}
	for (size_t i = 0; i < l->nwrappers; i++) {
		free_cmds(l->wrappers[i].steps, l->wrappers[i].nsteps);
		free(l->wrappers[i].source_path);
		free(l->wrappers[i].object_path);
		free(l->wrappers[i].bundle_path);
	}
	for (size_t i = 0; i < l->nimages; i++) {
		ol_strvec_free(&l->images[i].defined);
		ol_strvec_free(&l->images[i].undefined);
	}
	for (size_t i = 0; i < l->nbinaries; i++)
		ob_binary_free(&l->binaries[i]);
	for (size_t i = 0; i < l->ninputs; i++) {
		ol_unmap(&l->inputs[i].map);
		ol_ar_keep_free(&l->inputs[i].thin);
	}
	if (l->out_open)
		ol_out_abort(&l->out);
	free(l->host_files);
	free(l->wrappers);
	free(l->groups);
	free(l->images);
	free(l->managed);
	free(l->nvcc_defs);
	free(l->binaries);
	free(l->inputs);
	free(l->items);
	free(l->clang);
	free(o->linker_path);
	free(o->host_triple);
	free(o->opt_level);
	free(o->cuda_path);
	free(o->time_trace);
	free(o->llvm);
	free(o->registration);
	free(l->llvm.bin);
	free(l->sysroot);
	free(o->cache_dir);
	free(o->cache_secret_file);
	free(o->cache_base_dir);
	free(l->cache_base_dir);
	free(l->cwd);
	if (l->cache_opened)
		ol_store_close(&l->cache);
	free(l->probe_lib);
	for (size_t i = 0; i < l->nchildren; i++)
		free(l->children[i].tool);
	free(l->children);
	ol_strmap_free(&l->host_symbols);
	ol_arena_free(&l->arena);
}

static void print_version(void)
{
	char *compat = ol_compat_dir();

	printf("offlink %s (clang-linker-wrapper compatible, LLVM %s)\n",
	       OFFLINK_VERSION, OFFLINK_LLVM_COMPAT);
	printf("compat directory: %s\n", compat ? compat : "(not found beside offlink)");
	free(compat);
	fflush(stdout);
}

/* --print-compat-dir: for clang -B"$(offlink --print-compat-dir)". */
static int print_compat_dir(struct ol_link *l)
{
	char *compat = ol_compat_dir();

	if (!compat) {
		ol_link_errorf(l, "no compat directory beside this offlink (looked for "
				  "../lib/offlink/compat and ../compat from its executable)");
		return EXIT_ERROR;
	}
	puts(compat);
	free(compat);
	return EXIT_OK;
}

/* The one place that turns the outcome into an exit status. */
static int exit_status(const struct ol_link *l, enum ol_err rc)
{
	if (rc == OL_OK)
		return EXIT_OK;
	if (rc == OL_E_USAGE)
		return EXIT_USAGE;
	if (l->exit_status) /* the host linker's own failure status */
		return l->exit_status;
	return EXIT_ERROR;
}

static int run(struct ol_link *l, int argc, char **argv)
{
	struct ol_outfile trace = { .fd = -1 };
	struct ol_diag d;
	enum ol_err rc;

	ol_diag_clear(&d);
	set_defaults(l, argv[0]);
	if (ol_parse_command_line(l, argc, argv, &d)) {
		ol_link_error(l, &d);
		if (d.code == OL_E_USAGE)
			fprintf(stderr, "Try 'offlink --help' for more information.\n");
		return exit_status(l, d.code);
	}
	if (l->opt.help) {
		fputs(help_text, stdout);
		return EXIT_OK;
	}
	if (l->opt.print_compat_dir)
		return print_compat_dir(l);
	if (l->opt.cache_stats || l->opt.cache_clear)
		return exit_status(l, ol_cache_command(l));
	if (l->opt.version)
		print_version();
	if (l->opt.version && (!l->opt.verbose || l->nitems == 0))
		return EXIT_OK; /* --version, or -v alone: LLVM's behaviour */
	if (!l->opt.linker_path) {
		/* Run as a linker (CMAKE_LINKER, -fuse-ld=<compat>/...), not by
		 * clang as its offloading link step. */
		char *compat = ol_compat_dir();

		ol_link_errorf(l, "no host linker: pass --linker-path=<linker> (the clang driver "
				  "always does).  offlink is clang's offloading link step, not a "
				  "linker: give clang -B%s on its link line (CMAKE_EXE_LINKER_FLAGS, "
				  "LDFLAGS), not as the linker (CMAKE_LINKER, -fuse-ld); docs/install.md",
			       compat ? ol_link_quote(l, compat) : "<offlink's compat directory>");
		free(compat);
		return EXIT_USAGE;
	}
	if ((rc = finish_options(l)))
		return exit_status(l, rc);
	start_watchdog(l);
	if (l->opt.time_trace && ol_out_open(&trace, l->opt.time_trace, &d)) {
		ol_diag_prefix(&d, "--wrapper-time-trace");
		ol_link_error(l, &d);
		return EXIT_ERROR;
	}
	if (l->opt.time_trace) {
		l->run.child_done = record_child;
		l->run.child_ctx = l;
	}
	rc = link_program(l);
	if (l->opt.time_trace && write_time_trace(l, &trace) && !rc)
		rc = OL_E_IO;
	return exit_status(l, rc);
}

int main(int argc, char **argv)
{
	struct ol_link link;
	char *guard;
	int status;

	/* A guarded start of a tool (os/spawn.c) becomes that tool here. */
	ol_spawn_guard_main(argc, argv);
	memset(&link, 0, sizeof(link));
	ol_cleanup_init();
	if ((guard = ol_find_guard()))
		ol_spawn_guard_enable(guard, false);
	else if (access("/proc/self/exe", X_OK) == 0)
		ol_spawn_guard_enable("/proc/self/exe", true);
	link.watchdog_fd = -1;
	status = run(&link, argc, argv);
	link_free(&link);
	ol_cleanup_run();
	ol_cleanup_watchdog_done();
	free(guard);
	return status;
}
