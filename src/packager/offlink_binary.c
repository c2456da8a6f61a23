/* offlink-binary: package device images into offload binaries, extract
 * them again, and list them.  A drop-in for clang-offload-packager (LLVM
 * 19) and llvm-offload-binary (its successor), plus --list/--json.
 *
 *   package:  offlink-binary -o out.bin --image=file=a.o,triple=T[,k=v]...
 *   extract:  offlink-binary IN... --image=k=v,...   [--archive -o lib.a]
 *   list:     offlink-binary --list [--json] IN...
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/arena.h"
#include "common/escape.h"
#include "common/grow.h"
#include "common/json.h"
#include "common/message.h"
#include "common/pieces.h"
#include "common/response_file.h"
#include "common/version.h"
#include "extract/archive_writer.h"
#include "extract/containers.h"
#include "extract/offload_scan.h"
#include "format/llvm_maps.h"
#include "format/offload_binary.h"
#include "format/spirv_container.h"
#include "os/cleanup.h"
#include "os/llvm_install.h"
#include "os/mapfile.h"
#include "os/outfile.h"
#include "packager/image_spec.h"

enum { EXIT_OK = 0, EXIT_ERROR = 1, EXIT_USAGE = 2 };

static const char tool[] = "offlink-binary";

struct options {
	const char *output;
	struct ol_strvec inputs;
	struct image_spec *specs;
	size_t nspecs;
	int archive, list, json, help, version;
	const char *extract_dir; /* --extract[=DIR]: every image, into DIR */
	struct ob_encode_opts enc;
	int method_given, level_given, compress;
	const char *llvm;   /* --llvm=<release> */
	unsigned release;   /* the LLVM release whose output is matched */
};

/* An image in another container (extract/containers.h), as listed. */
struct contained_row {
	const char *format, *producer, *triple, *arch, *file, *member, *path, *compression;
	const char *origin;      /* "file" or "file(member)" */
	uint64_t size, stored;
	bool linked;
};

/* Every offload binary found in the inputs, and the images they hold. */
struct found_image {
	const struct ob_entry *entry;
	struct ol_origin origin; /* strings live in the arena */
	const char *input;       /* the input path as given */
	const struct ol_map *map; /* the input's mapping (the image may lie in it) */
	size_t bin;              /* the offload binary it is in (collection.bins) */
};

struct collection {
	struct ol_arena arena;
	struct ob_binary *bins;
	size_t nbins, capbins;
	struct found_image *imgs;
	size_t nimgs, capimgs;
	struct ol_map *maps;
	size_t nmaps;
	struct ol_ar_keep thin;  /* member files of thin archives */
	const char *input;
	struct ol_scan_budget budget; /* the input's (extract/containers.h) */
	bool containers;         /* also the images of other containers (--list, --extract) */
	/* (listed in input order: an input's offload binaries, then its
	 * other containers' images) */
	struct row_ref { bool contained; size_t index; } *order;
	size_t norder, caporder;
	struct contained_row *rows;
	size_t nrows, caprows;
	const char *extract_dir; /* --extract: write each image there */
	size_t extracted;
	/* Files written so far: known to the cleanup registry until every
	 * one is written, so that a failure (or a signal) removes them all --
	 * a failed extraction leaves nothing -- and printed only then. */
	struct ol_strvec written;
};

static const char usage_text[] =
	"OVERVIEW: package device images into offload binaries (magic 0x10FF10AD),\n"
	"extract them, or list them; a drop-in for clang-offload-packager and\n"
	"llvm-offload-binary.\n"
	"\n"
	"USAGE: offlink-binary -o <file> --image=file=<f>,triple=<t>[,<key>=<value>]...\n"
	"       offlink-binary <input>... --image=<key>=<value>[,...]... [--archive -o <lib.a>]\n"
	"       offlink-binary --list [--json] <input>...\n"
	"       offlink-binary --extract[=<dir>] <input>...\n"
	"\n"
	"Inputs may be raw offload binaries, ELF objects, executables or shared\n"
	"objects with offload sections, or static archives of those.\n"
	"\n"
	"OPTIONS:\n"
	"  --image=<k>=<v>,...        an image to package (needs file= and triple=;\n"
	"                             kind=openmp|cuda|hip|sycl sets the producer,\n"
	"                             other keys are stored as strings), or a filter\n"
	"                             for extraction (file= names the output)\n"
	"  -o <file>                  output of packaging, or the archive of --archive\n"
	"  --archive                  write the extracted images into a static archive\n"
	"  --list                     list the images: kind, producer, triple, arch,\n"
	"                             size and origin, one row each\n"
	"  --json                     with --list, print JSON instead of a table\n"
	"  --extract[=<dir>]          write every image of the inputs into <dir>\n"
	"                             (default .), decompressed, and print each name\n"
	"\n"
	"--list and --extract read every container: offload binaries, clang's\n"
	"bundles (plain or compressed, several back to back), NVIDIA fat binaries\n"
	"(.nv_fatbin, nvcc's __nv_relfatbin), HIP fat binaries, SPIR-V containers;\n"
	"each image's ORIGIN names the containers it sits in, outermost first.\n"
	"  --llvm=<release>           write what that LLVM release's packager writes\n"
	"                             (16, 19, 22, ...; default: $OFFLINK_LLVM, else the\n"
	"                             release of the clang that runs offlink-binary,\n"
	"                             else the newest offlink knows)\n"
	"  --format-version=<1|2|3>   offload binary version to write (default: the\n"
	"                             release's: 1 up to LLVM 22, 2 for 23, 3 for 24)\n"
	"  --compress                 compress the binary (writes version 3)\n"
	"  --compression-format=<zstd|zlib>  compressor for --compress (default zstd)\n"
	"  --compression-level=<n>    level for --compression-format\n"
	"  @<file>                    read more arguments from <file>\n"
	"  --help, -h                 print this help\n"
	"  --version                  print the version\n"
	"\n"
	"Exit status: 0 success, 1 error, 2 bad usage.\n";

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ol_vmessage(tool, "error", fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", tool);
	return EXIT_USAGE;
}

static int report(const struct ol_diag *d)
{
	ol_message_diag(tool, d);
	return EXIT_ERROR;
}

/* ---- options ---- */

/* "--name=value" or "-name=value" (LLVM's cl accepts one or two dashes). */
static const char *opt_value(const char *arg, const char *name)
{
	size_t n = strlen(name);

	if (arg[0] != '-')
		return NULL;
	arg += arg[1] == '-' ? 2 : 1;
	if (strncmp(arg, name, n) == 0 && arg[n] == '=')
		return arg + n + 1;
	return NULL;
}

static int opt_is(const char *arg, const char *name)
{
	if (arg[0] != '-')
		return 0;
	arg += arg[1] == '-' ? 2 : 1;
	return strcmp(arg, name) == 0;
}

static int add_spec(struct options *o, const char *text)
{
	struct ol_diag d;
	struct image_spec *s = realloc(o->specs, (o->nspecs + 1) * sizeof(*s));

	ol_diag_clear(&d);
	if (!s)
		return usage_error("out of memory");
	o->specs = s;
	if (image_spec_parse(text, &o->specs[o->nspecs], &d))
		return report(&d);
	o->nspecs++;
	return 0;
}

static int parse_int(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < -1000 || v > 1000)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_format_option(struct options *o, const char *a)
{
	const char *v;

	if ((v = opt_value(a, "llvm"))) {
		o->llvm = v;
	} else if ((v = opt_value(a, "format-version"))) {
		if (strcmp(v, "1") && strcmp(v, "2") && strcmp(v, "3"))
			return usage_error("--format-version=%s: expected 1, 2 or 3", v);
		o->enc.version = (unsigned)(v[0] - '0');
	} else if ((v = opt_value(a, "compression-format"))) {
		if (strcmp(v, "zstd") == 0)
			o->enc.method = OL_COMP_ZSTD;
		else if (strcmp(v, "zlib") == 0)
			o->enc.method = OL_COMP_ZLIB;
		else
			return usage_error("--compression-format=%s: expected zstd or zlib", v);
		o->method_given = 1;
	} else if ((v = opt_value(a, "compression-level"))) {
		if (parse_int(v, &o->enc.level))
			return usage_error("--compression-level=%s: expected an integer", v);
		o->level_given = 1;
	} else {
		return usage_error("unknown option '%s'", a);
	}
	return 0;
}

static int parse_one(struct options *o, struct ol_strvec *args, size_t *i)
{
	const char *a = args->v[*i], *v;

	if (strcmp(a, "-o") == 0) {
		if (*i + 1 >= args->n)
			return usage_error("-o needs a file name");
		o->output = args->v[++*i];
	} else if (strncmp(a, "-o", 2) == 0 && a[2] && a[1] != '-') {
		o->output = a[2] == '=' ? a + 3 : a + 2;
	} else if ((v = opt_value(a, "image"))) {
		return add_spec(o, v);
	} else if (opt_is(a, "archive")) {
		o->archive = 1;
	} else if (opt_is(a, "list")) {
		o->list = 1;
	} else if (opt_is(a, "json")) {
		o->json = 1;
	} else if (opt_is(a, "extract")) {
		o->extract_dir = ".";
	} else if ((v = opt_value(a, "extract"))) {
		o->extract_dir = v;
	} else if (opt_is(a, "compress")) {
		o->compress = 1;
	} else if (opt_is(a, "help") || strcmp(a, "-h") == 0 ||
		   opt_is(a, "help-list") || opt_is(a, "help-hidden")) {
		o->help = 1;
	} else if (opt_is(a, "version")) {
		o->version = 1;
	} else if (a[0] == '-' && a[1] != '\0') {
		return parse_format_option(o, a);
	} else if (ol_strvec_push(&o->inputs, a)) {
		return usage_error("out of memory");
	}
	return 0;
}

static int check_options(struct options *o)
{
	int lo, hi;

	if (o->json && !o->list)
		return usage_error("--json needs --list");
	if (o->extract_dir && (o->list || o->nspecs || o->output || o->archive))
		return usage_error("--extract takes only input files");
	if (o->extract_dir && o->inputs.n == 0)
		return usage_error("--extract needs at least one input file");
	if (o->list && (o->nspecs || o->output || o->archive))
		return usage_error("--list takes only input files (and --json)");
	if (o->list && o->inputs.n == 0)
		return usage_error("--list needs at least one input file");
	if (o->output && o->inputs.n && !o->archive)
		return usage_error("packaging to an output file and extracting from an input file are mutually exclusive");
	if (o->archive && o->inputs.n == 0)
		return usage_error("--archive needs an input to extract from");
	if (o->level_given && !o->method_given)
		return usage_error("--compression-level needs --compression-format");
	if (o->method_given && !o->compress)
		return usage_error("--compression-format needs --compress");
	if (o->compress) {
		if (o->enc.version && o->enc.version != 3)
			return usage_error("--compress writes format version 3");
		o->enc.version = 3;
		o->enc.compress = true;
		if (!o->method_given)
			o->enc.method = OL_COMP_ZSTD;
		if (!o->level_given)
			o->enc.level = ol_compression_default_level(o->enc.method);
		ol_compression_level_range(o->enc.method, &lo, &hi);
		if (o->enc.level < lo || o->enc.level > hi)
			return usage_error("invalid %s compression level %d; expected a value in [%d, %d]",
					   ol_compression_name(o->enc.method),
					   o->enc.level, lo, hi);
	}
	return 0;
}

static int parse_options(struct ol_strvec *args, struct options *o)
{
	const char *bad;

	for (size_t i = 0; i < args->n; i++) {
		int rc = parse_one(o, args, &i);

		if (rc)
			return rc;
	}
	if (o->help || o->version)
		return 0;
	if (!o->output && o->inputs.n == 0 && !o->list && !o->extract_dir)
		return usage_error("nothing to do: give -o to package or an input to extract from");
	o->release = ol_llvm_tool_release(o->llvm, &bad);
	if (!o->release)
		return usage_error("--llvm=%s: %s", o->llvm ? o->llvm : getenv("OFFLINK_LLVM"), bad);
	if (!o->enc.version && !o->compress)
		o->enc.version = ob_release_version(o->release);
	return check_options(o);
}

/* ---- collecting the images of the inputs ---- */

static enum ol_err on_binary(void *ctx, const struct ol_origin *o,
			     struct ob_binary *b, struct ol_diag *d)
{
	struct collection *c = ctx;
	struct ob_binary *kept;
	struct ob_binary *bins = ol_grow(c->bins, c->nbins, &c->capbins, sizeof(*bins), 16);

	if (!bins)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	c->bins = bins;
	kept = &c->bins[c->nbins++];
	*kept = *b;
	memset(b, 0, sizeof(*b));
	for (size_t i = 0; i < kept->nentries; i++) {
		struct found_image *f = ol_grow(c->imgs, c->nimgs, &c->capimgs, sizeof(*f), 16);

		if (!f)
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		c->imgs = f;
		f = &c->imgs[c->nimgs++];
		f->entry = &kept->entries[i];
		f->bin = c->nbins - 1;
		f->input = c->input;
		f->map = &c->maps[c->nmaps - 1];
		f->origin = *o;
		f->origin.file = ol_arena_strdup(&c->arena, o->file);
		f->origin.member = ol_arena_strdup(&c->arena, o->member);
		f->origin.section = ol_arena_strdup(&c->arena, o->section);
	}
	return OL_OK;
}

static enum ol_err note_order(struct collection *c, bool contained, size_t index,
			      struct ol_diag *d)
{
	struct row_ref *o = ol_grow(c->order, c->norder, &c->caporder, sizeof(*o), 32);

	if (!o)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	c->order = o;
	c->order[c->norder++] = (struct row_ref){ contained, index };
	return OL_OK;
}

static enum ol_err extract_contained(struct collection *c, const struct ol_contained *x,
				     struct ol_diag *d);

static enum ol_err on_contained(void *ctx, const struct ol_contained *x, struct ol_diag *d)
{
	struct collection *c = ctx;
	struct contained_row *r = ol_grow(c->rows, c->nrows, &c->caprows, sizeof(*r), 16);

	if (!r)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	c->rows = r;
	r = &c->rows[c->nrows];
	*r = (struct contained_row){
		ol_arena_strdup(&c->arena, x->format), ol_arena_strdup(&c->arena, x->producer),
		ol_arena_strdup(&c->arena, x->triple), ol_arena_strdup(&c->arena, x->arch),
		ol_arena_strdup(&c->arena, x->file), ol_arena_strdup(&c->arena, x->member),
		ol_arena_strdup(&c->arena, x->path), ol_arena_strdup(&c->arena, x->compression),
		x->member ? ol_arena_printf(&c->arena, "%s(%s)", x->file, x->member)
			  : ol_arena_strdup(&c->arena, x->file),
		x->size, x->stored, x->linked,
	};
	if (!r->format || !r->path || !r->origin || (x->member && !r->member))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if (note_order(c, true, c->nrows++, d))
		return d->code;
	return c->extract_dir ? extract_contained(c, x, d) : OL_OK;
}

/* The images inside an offload binary's images (a fatbinary, a SPIR-V
 * container), after its own rows.  One binary's images take at most its
 * bytes (images may share theirs: each would be read, listed and written
 * again). */
static enum ol_err nested_in_binaries(struct collection *c, size_t from, struct ol_diag *d)
{
	uint64_t room = 0;

	for (size_t i = from; i < c->nimgs; i++) {
		const struct found_image *f = &c->imgs[i];
		const char *path = ol_arena_printf(&c->arena, "%s > offload binary image %zu",
						   f->origin.section ? f->origin.section : "file", i - from);
		bool found;

		if (i == from || f->bin != c->imgs[i - 1].bin)
			room = c->bins[f->bin].nbytes;
		if (!path || ol_scan_nested(f->origin.file, f->origin.member, path, f->origin.final,
					    f->entry->image, (size_t)f->entry->image_size, &c->budget,
					    &room, on_contained, c, &found, d)) {
			ol_diag_locate(d, f->origin.file, f->origin.member, 0);
			return d->code ? d->code : OL_E_NOMEM;
		}
	}
	return OL_OK;
}

static enum ol_err collect(struct collection *c, const struct ol_strvec *inputs,
			   struct ol_diag *d)
{
	c->maps = calloc(inputs->n ? inputs->n : 1, sizeof(*c->maps));
	if (!c->maps)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	for (size_t i = 0; i < inputs->n; i++) {
		struct ol_map *m = &c->maps[c->nmaps++];

		c->input = inputs->v[i];
		if (ol_map_file_fd(inputs->v[i], m, d))
			return d->code;
		ol_scan_budget_init(&c->budget, m->len);
		if (m->len == 0) {
			ol_diag_set(d, OL_E_UNRECOGNIZED, NULL, "the file is empty");
			ol_diag_locate(d, inputs->v[i], NULL, 0);
			return d->code;
		}
		size_t first = c->nimgs;

		/* (a raw bundle or fat binary, the file or an archive member, is
		 * no offload binary: only the listing and --extract read it) */
		if (ol_scan_offload(inputs->v[i], NULL, m->data, m->len,
				    OL_SCAN_STRICT | (c->containers ? OL_SCAN_CONTAINERS : 0),
				    on_binary, c, &c->thin, d))
			return d->code;
		if (!c->containers)
			continue;
		for (size_t k = first; k < c->nimgs; k++)
			if (note_order(c, false, k, d))
				return d->code;
		if (nested_in_binaries(c, first, d) ||
		    (!ob_is_offload_binary(m->data, m->len) &&
		     ol_scan_containers(inputs->v[i], NULL, m->data, m->len, &c->budget, on_contained,
					c, d)))
			return d->code;
	}
	return OL_OK;
}

static void collection_free(struct collection *c)
{
	for (size_t i = 0; i < c->nbins; i++)
		ob_binary_free(&c->bins[i]);
	for (size_t i = 0; i < c->nmaps; i++)
		ol_unmap(&c->maps[i]);
	ol_ar_keep_free(&c->thin);
	ol_strvec_free(&c->written);
	free(c->bins);
	free(c->imgs);
	free(c->maps);
	free(c->order);
	free(c->rows);
	ol_arena_free(&c->arena);
}

/* ---- --list ---- */

static const char *origin_text(struct ol_arena *a, const struct ol_origin *o)
{
	return o->member ? ol_arena_printf(a, "%s(%s)", o->file, o->member)
			 : o->file;
}

/* What the image's bytes are, where offlink knows more than the image
 * kind says: a SPIR-V module ("elf" to LLVM), or the ELF container LLVM
 * 22 registers one in; NULL otherwise.  *spv is filled for both. */
static const char *spirv_content(const struct ob_entry *e, struct ol_spirv_container *spv,
				 const char **damage)
{
	const uint8_t *p = e->image;
	size_t n = (size_t)e->image_size;
	const char *field;

	*damage = NULL;
	memset(spv, 0, sizeof(*spv));
	if (ol_is_spirv(p, n)) {
		spv->nmodules = 1;
		spv->module_size = n;
		ol_spirv_version(p, &spv->spirv_major, &spv->spirv_minor);
		return "spirv";
	}
	if (!ol_is_spirv_container(p, n))
		return NULL;
	*damage = ol_spirv_container_read(p, n, spv, &field);
	return "spirv-container";
}

/* " [SPIR-V 1.4 module in an Intel container]", or "". */
static const char *content_text(struct ol_arena *a, const struct ob_entry *e)
{
	struct ol_spirv_container spv;
	const char *damage, *what = spirv_content(e, &spv, &damage);

	if (!what)
		return "";
	if (damage)
		return ol_arena_printf(a, " [damaged SPIR-V container: %s]", damage);
	return ol_arena_printf(a, " [SPIR-V %u.%u module%s]", spv.spirv_major, spv.spirv_minor,
			       strcmp(what, "spirv") ? " in an Intel container" : "");
}

/* s as the table shows it: "-" when empty, and names read from the
 * files (triples, archs, bundle IDs, member names) with control bytes
 * escaped (common/escape.h), so that no input can drive the terminal. */
static const char *shown(struct ol_arena *a, const char *s)
{
	struct ol_buf b = { 0 };
	const char *r = NULL;

	if (!s || !*s)
		return "-";
	if (!ol_escape_terminal(&b, s, strlen(s)))
		r = ol_arena_strdup(a, (char *)b.data);
	ol_buf_free(&b);
	return r ? r : "?";
}

/* "x.o(m.o) [section .nv_fatbin > fat binary 0 > entry 1, zstd: 1280 bytes stored]" */
static const char *row_origin(struct ol_arena *a, const struct contained_row *r)
{
	const char *where = r->origin;

	return r->compression
		? ol_arena_printf(a, "%s [%s, %s: %llu bytes stored]", where, r->path, r->compression,
				  (unsigned long long)r->stored)
		: ol_arena_printf(a, "%s [%s]", where, r->path);
}

static void list_table(struct collection *c)
{
	struct ol_arena *a = &c->arena;

	printf("%-10s %-9s %-28s %-16s %10s  %s\n", "KIND", "PRODUCER",
	       "TRIPLE", "ARCH", "SIZE", "ORIGIN");
	for (size_t k = 0; k < c->norder; k++) {
		const struct contained_row *r = c->order[k].contained ? &c->rows[c->order[k].index]
									: NULL;
		const struct found_image *f = r ? NULL : &c->imgs[c->order[k].index];
		const char *triple = f ? ob_entry_get(f->entry, "triple") : NULL;

		if (r) {
			printf("%-10s %-9s %-28s %-16s %10llu  %s%s\n", shown(a, r->format),
			       shown(a, r->producer), shown(a, r->triple), shown(a, r->arch),
			       (unsigned long long)r->size, shown(a, row_origin(a, r)),
			       r->linked ? " [linked]" : "");
			continue;
		}
		printf("%-10s %-9s %-28s %-16s %10llu  %s%s%s\n",
		       ob_image_kind_name(f->entry->image_kind),
		       ob_offload_kind_name(f->entry->offload_kind),
		       shown(a, triple), shown(a, ob_entry_get(f->entry, "arch")),
		       (unsigned long long)f->entry->image_size,
		       shown(a, origin_text(a, &f->origin)),
		       f->origin.final ? " [linked]" : "", content_text(&c->arena, f->entry));
	}
}

static void json_field(const char *key, const char *value, int comma)
{
	printf("%s", comma ? ", " : "");
	ol_json_string(stdout, key);
	printf(": ");
	ol_json_string(stdout, value ? value : "");
}

/* , "content": {...} or null (spirv_content). */
static void json_content(const struct ob_entry *e)
{
	struct ol_spirv_container spv;
	const char *damage, *what = spirv_content(e, &spv, &damage);

	printf(", \"content\": ");
	if (!what) {
		printf("null");
		return;
	}
	printf("{");
	json_field("format", what, 0);
	if (damage) {
		json_field("damage", damage, 1);
	} else {
		printf(", \"spirv_version\": \"%u.%u\", \"module_size\": %llu, \"modules\": %zu",
		       spv.spirv_major, spv.spirv_minor, (unsigned long long)spv.module_size,
		       spv.nmodules);
		if (strcmp(what, "spirv"))
			json_field("notes_version", spv.version, 1);
	}
	printf("}");
}

static void json_image(struct collection *c, const struct found_image *f)
{
	const struct ob_entry *e = f->entry;

	printf("  {");
	json_field("kind", ob_image_kind_name(e->image_kind), 0);
	json_field("producer", ob_offload_kind_name(e->offload_kind), 1);
	json_field("triple", ob_entry_get(e, "triple"), 1);
	json_field("arch", ob_entry_get(e, "arch"), 1);
	printf(", \"size\": %llu", (unsigned long long)e->image_size);
	json_field("origin", origin_text(&c->arena, &f->origin), 1);
	json_field("file", f->origin.file, 1);
	printf(", \"member\": ");
	if (f->origin.member)
		ol_json_string(stdout, f->origin.member);
	else
		printf("null");
	printf(", \"section\": ");
	if (f->origin.section)
		ol_json_string(stdout, f->origin.section);
	else
		printf("null");
	printf(", \"offset\": %llu, \"image_kind\": %u, \"offload_kind\": %u, "
	       "\"flags\": %u, \"linked\": %s, \"strings\": {",
	       (unsigned long long)f->origin.offset, e->image_kind,
	       e->offload_kind_raw, e->flags, f->origin.final ? "true" : "false");
	for (size_t k = 0; k < e->nstrings; k++)
		json_field(e->strings[k].key, e->strings[k].value, k > 0);
	printf("}");
	json_content(e);
	printf("}");
}

/* An image of another container: the same fields, with "containers",
 * the path of containers it sits in (outermost first), its compression
 * and stored size. */
static void json_row(const struct contained_row *r)
{
	const char *p = r->path;

	printf("  {");
	json_field("kind", r->format, 0);
	json_field("producer", r->producer, 1);
	json_field("triple", r->triple, 1);
	json_field("arch", r->arch, 1);
	printf(", \"size\": %llu", (unsigned long long)r->size);
	json_field("origin", r->origin, 1);
	json_field("file", r->file, 1);
	printf(", \"member\": ");
	if (r->member)
		ol_json_string(stdout, r->member);
	else
		printf("null");
	printf(", \"linked\": %s, \"containers\": [", r->linked ? "true" : "false");
	/* (an element may hold a bundle ID from the file: escaped) */
	for (int first = 1; *p; first = 0) {
		size_t n = strcspn(p, ">");
		char *el;

		while (n && p[n - 1] == ' ')
			n--;
		printf("%s", first ? "" : ", ");
		if ((el = strndup(p, n))) {
			ol_json_string(stdout, el);
			free(el);
		}
		p += strcspn(p, ">");
		p += strspn(p, "> ");
	}
	printf("], \"compression\": ");
	if (r->compression)
		ol_json_string(stdout, r->compression);
	else
		printf("null");
	printf(", \"stored\": %llu}", (unsigned long long)r->stored);
}

static void list_json(struct collection *c)
{
	printf("[\n");
	for (size_t k = 0; k < c->norder; k++) {
		if (c->order[k].contained)
			json_row(&c->rows[c->order[k].index]);
		else
			json_image(c, &c->imgs[c->order[k].index]);
		printf("%s\n", k + 1 < c->norder ? "," : "");
	}
	printf("]\n");
}

static int run_list(const struct options *o)
{
	struct collection c = { .containers = true };
	struct ol_diag d;
	int rc = EXIT_OK;

	ol_diag_clear(&d);
	if (collect(&c, &o->inputs, &d))
		rc = report(&d);
	else if (o->json)
		list_json(&c);
	else
		list_table(&c);
	if (fflush(stdout) != 0 && rc == EXIT_OK) {
		fprintf(stderr, "%s: error: cannot write the listing: %s\n",
			tool, strerror(errno));
		rc = EXIT_ERROR;
	}
	collection_free(&c);
	return rc;
}

/* ---- extraction ---- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* LLVM 19's name: <stem of input>-<triple>-<arch>.<index>.<ext>.  The
 * triple and arch come from the file: made safe for a file name, so a
 * triple like "x86_64/../../x" cannot put the output anywhere but the
 * working directory (common/escape.h). */
static char *generated_name(struct ol_arena *a, const struct found_image *f,
			    size_t index)
{
	const char *base = base_name(f->input), *dot = strrchr(base, '.');
	int stem = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
	const char *triple = ob_entry_get(f->entry, "triple");
	const char *arch = ob_entry_get(f->entry, "arch");
	struct ol_buf b = { 0 };
	char *name = NULL;

	if (!ol_buf_printf(&b, "%.*s-", stem, base) &&
	    !ol_file_name_part(&b, triple ? triple : "", OL_NAME_PART_MAX) &&
	    !ol_buf_puts(&b, "-") &&
	    !ol_file_name_part(&b, arch ? arch : "", OL_NAME_PART_MAX) &&
	    !ol_buf_printf(&b, ".%zu.%s", index, ob_image_kind_ext(f->entry->image_kind)))
		name = ol_arena_strdup(a, (char *)b.data);
	ol_buf_free(&b);
	return name;
}

/* path, just written, is removed if the run fails after all. */
static enum ol_err keep_until_done(struct collection *c, const char *path, struct ol_diag *d)
{
	if (!ol_strvec_push(&c->written, path) && !ol_cleanup_add_file(path))
		return OL_OK;
	unlink(path);
	return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
}

/* Every file written is the run's: no longer removed at exit; their
 * names printed when print. */
static void done_writing(struct collection *c, bool print)
{
	for (size_t i = 0; i < c->written.n; i++) {
		ol_cleanup_forget(c->written.v[i]);
		if (print)
			printf("%s\n", c->written.v[i]);
	}
}

/* The image straight from the input file (os/outfile.c), or from memory
 * when it was decompressed or lies in another file. */
static enum ol_err write_image(struct collection *c, const char *path,
			       const struct found_image *f, struct ol_diag *d)
{
	if (ol_write_from_map(path, f->map, f->entry->image, (size_t)f->entry->image_size, d))
		return d->code;
	return keep_until_done(c, path, d);
}

static int extract_spec(struct collection *c, const struct image_spec *s)
{
	const struct found_image *last = NULL;
	size_t index = 0, matches = 0;
	struct ol_diag d;
	char *name;

	ol_diag_clear(&d);
	for (size_t i = 0; i < c->nimgs; i++) {
		const struct found_image *f = &c->imgs[i];

		if (!image_spec_matches(s, f->entry, &f->origin))
			continue;
		matches++;
		last = f;
		if (s->files.n)
			continue;
		name = generated_name(&c->arena, f, index++);
		if (!name) {
			ol_diag_set(&d, OL_E_NOMEM, NULL, NULL);
			return report(&d);
		}
		if (write_image(c, name, f, &d))
			return report(&d);
	}
	if (!s->files.n || !last)
		return EXIT_OK;
	if (matches > 1)
		ol_message(tool, "warning", "Multiple inputs match to a single file, '%s'",
			   s->files.v[0]);
	if (write_image(c, s->files.v[0], last, &d))
		return report(&d);
	return EXIT_OK;
}

static const char *member_name(const struct found_image *f)
{
	return base_name(f->origin.member ? f->origin.member : f->input);
}

/* Archive of the images matching spec (or of all images when spec is
 * NULL) written to dest. */
static int extract_archive(struct collection *c, const struct options *o,
			   const char *dest)
{
	struct ol_ar_out_member *m = calloc(c->nimgs ? c->nimgs : 1, sizeof(*m));
	size_t n = 0;
	struct ol_diag d;
	int rc = EXIT_OK;

	ol_diag_clear(&d);
	if (!m)
		return usage_error("out of memory");
	for (size_t i = 0; i < c->nimgs; i++) {
		const struct found_image *f = &c->imgs[i];
		bool wanted = o->nspecs == 0;

		for (size_t k = 0; k < o->nspecs && !wanted; k++)
			wanted = image_spec_matches(&o->specs[k], f->entry, &f->origin);
		if (!wanted)
			continue;
		m[n++] = (struct ol_ar_out_member){ member_name(f), f->entry->image,
						    (size_t)f->entry->image_size };
	}
	if (ol_archive_write(dest, m, n, true, &d))
		rc = report(&d);
	free(m);
	return rc;
}

/* ---- --extract: every image, whatever its container ---- */

static const char *format_ext(const char *format)
{
	static const char *const map[][2] = {
		{ "cubin", "cubin" }, { "ptx", "ptx" }, { "ltoir", "ltoir" }, { "bitcode", "bc" },
		{ "spirv", "spv" }, { "object", "o" }, { "elf", "elf" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(format, map[i][0]))
			return map[i][1];
	return "bin";
}

/* <dir>/<input stem>[-<member stem>].<n>.<triple>-<arch>.<ext>: every
 * part from the file made safe for a name (common/escape.h). */
static enum ol_err extract_one(struct collection *c, const char *file, const char *member,
			       const char *triple, const char *arch, const char *ext,
			       const uint8_t *data, size_t size, struct ol_diag *d)
{
	const char *base = base_name(file), *dot = strrchr(base, '.');
	int stem = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
	struct ol_buf b = { 0 };
	enum ol_err rc;

	rc = ol_buf_printf(&b, "%s/%.*s", c->extract_dir, stem, base);
	if (member) {
		rc |= ol_buf_puts(&b, "-");
		rc |= ol_file_name_part(&b, member, OL_NAME_PART_MAX);
	}
	rc |= ol_buf_printf(&b, ".%zu.", c->extracted++);
	rc |= ol_file_name_part(&b, triple && *triple ? triple : "none", OL_NAME_PART_MAX);
	rc |= ol_buf_puts(&b, "-");
	rc |= ol_file_name_part(&b, arch && *arch ? arch : "none", OL_NAME_PART_MAX);
	rc |= ol_buf_printf(&b, ".%s", ext);
	if (rc) {
		ol_buf_free(&b);
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	if (!(rc = ol_write_file_atomic((char *)b.data, data, size, d)))
		rc = keep_until_done(c, (char *)b.data, d);
	ol_buf_free(&b);
	return rc;
}

static enum ol_err extract_contained(struct collection *c, const struct ol_contained *x,
				     struct ol_diag *d)
{
	return extract_one(c, x->file, x->member, x->triple, x->arch, format_ext(x->format),
			   x->data, x->size, d);
}

/* Every image of every input, whatever the container: an offload binary's
 * images as they are (a container among them opened too), the others
 * decompressed; each file's name printed once all are written (a
 * failure removes every one). */
static int run_extract_all(const struct options *o)
{
	struct collection c = { .containers = true, .extract_dir = o->extract_dir };
	struct ol_diag d;
	int rc = EXIT_OK;

	ol_diag_clear(&d);
	if (collect(&c, &o->inputs, &d)) {
		rc = report(&d);
	} else {
		for (size_t k = 0; k < c.norder && rc == EXIT_OK; k++) {
			const struct found_image *f = &c.imgs[c.order[k].index];

			if (c.order[k].contained)
				continue;
			if (extract_one(&c, f->input, f->origin.member, ob_entry_get(f->entry, "triple"),
					ob_entry_get(f->entry, "arch"),
					ob_image_kind_ext(f->entry->image_kind), f->entry->image,
					(size_t)f->entry->image_size, &d))
				rc = report(&d);
		}
	}
	if (rc == EXIT_OK)
		done_writing(&c, true);
	if (fflush(stdout) != 0 && rc == EXIT_OK)
		rc = EXIT_ERROR;
	collection_free(&c);
	return rc;
}

static int run_extract(const struct options *o)
{
	struct collection c = { 0 };
	struct ol_diag d;
	int rc = EXIT_OK;

	ol_diag_clear(&d);
	if (collect(&c, &o->inputs, &d)) {
		rc = report(&d);
	} else if (o->archive) {
		const char *dest = o->output;

		if (!dest && o->nspecs && o->specs[0].files.n)
			dest = o->specs[0].files.v[0];
		rc = dest ? extract_archive(&c, o, dest)
			  : usage_error("--archive needs -o or an image with file=");
	} else if (o->nspecs == 0) {
		/* As llvm-offload-binary: no filter extracts everything. */
		struct image_spec all = { 0 };

		rc = extract_spec(&c, &all);
	} else {
		for (size_t k = 0; k < o->nspecs && rc == EXIT_OK; k++)
			rc = extract_spec(&c, &o->specs[k]);
	}
	if (rc == EXIT_OK)
		done_writing(&c, false);
	collection_free(&c);
	return rc;
}

/* ---- packaging ---- */

struct packaged {
	struct ol_map map;
	struct ol_buf stdin_data;
	struct ob_kv *kv;
};

static bool is_data_key(const char *k)
{
	return strcmp(k, "file") != 0 && strcmp(k, "kind") != 0;
}

/* keys[0..n) in the iteration order of a DenseMap or (stringmap) a
 * StringMap they were put in (format/llvm_maps.h), the file and kind keys
 * dropped; into out, *nout. */
static enum ol_err table_order(const char **keys, size_t n, bool stringmap,
			       unsigned release, const char **out, size_t *nout)
{
	size_t *order = calloc(n ? n : 1, sizeof(*order));
	enum ol_err rc = order ? OL_OK : OL_E_NOMEM;

	if (!rc)
		rc = stringmap ? ol_llvm_stringmap_order(keys, n, order)
			       : ol_llvm_densemap_order(keys, n, release, order);
	*nout = 0;
	for (size_t i = 0; i < n && !rc; i++)
		if (is_data_key(keys[order[i]]))
			out[(*nout)++] = keys[order[i]];
	free(order);
	return rc;
}

/* The string entries in the order release writes them.  Every release
 * puts all --image keys, in command-line order, into a map and walks it
 * (15: a StringMap; 16 and later: a DenseMap, hashed as the release
 * hashes strings: format/llvm_maps.h); 17+ keep the order met (a
 * MapVector), 15 and 16 put the keys into the image's StringMap and write
 * that one's order.  A repeated key's values are joined with ','. */
static enum ol_err order_strings(const struct image_spec *s, unsigned release,
				 struct ob_kv *kv, size_t *n)
{
	size_t nk = s->order.n, nwalk = 0, ndata = 0;
	const char **walk = calloc(nk ? nk : 1, sizeof(*walk));
	const char **data = calloc(nk ? nk : 1, sizeof(*data));
	enum ol_err rc = walk && data ? OL_OK : OL_E_NOMEM;

	if (!rc)
		rc = table_order((const char **)s->order.v, nk, release <= 15, release, walk, &nwalk);
	if (!rc && release <= 16)
		rc = table_order(walk, nwalk, true, release, data, &ndata);
	else if (!rc)
		memcpy(data, walk, (ndata = nwalk) * sizeof(*data));
	*n = 0;
	for (size_t i = 0; i < ndata && !rc; i++)
		kv[(*n)++] = (struct ob_kv){ data[i], image_spec_get(s, data[i]) };
	free(walk);
	free(data);
	return rc;
}

static enum ol_err read_stdin(struct ol_buf *b, struct ol_diag *d)
{
	char chunk[65536];
	ssize_t n;

	while ((n = read(STDIN_FILENO, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return ol_diag_errno(d, errno, "cannot read", "<stdin>");
		if (ol_buf_append(b, chunk, (size_t)n))
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	return OL_OK;
}

/* Fill desc for one file of spec s: its bytes, kinds and strings (every
 * key but kind; file is never stored), as release writes them. */
static enum ol_err describe(const struct image_spec *s, const char *file,
			    unsigned release, struct packaged *p,
			    struct ob_image_desc *desc, struct ol_diag *d)
{
	const char *kind = image_spec_get(s, "kind");
	size_t n = 0;

	if (strcmp(file, "-") == 0) {
		if (read_stdin(&p->stdin_data, d))
			return d->code;
		desc->image = p->stdin_data.data;
		desc->image_size = p->stdin_data.len;
		desc->image_kind = OB_IMG_NONE;
	} else {
		if (ol_map_file_fd(file, &p->map, d))
			return d->code;
		desc->image = p->map.data;
		desc->image_size = p->map.len;
		desc->image_kind = (uint16_t)ob_image_kind_for_file(file, p->map.data,
								    p->map.len, release);
	}
	desc->offload_kind_raw = ob_offload_kind_to_raw(
		kind ? ob_offload_kind_parse(kind) : OB_OFK_NONE, release);
	p->kv = calloc(s->keys.n ? s->keys.n : 1, sizeof(*p->kv));
	if (!p->kv || order_strings(s, release, p->kv, &n))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	desc->strings = p->kv;
	desc->nstrings = n;
	return OL_OK;
}

static size_t count_files(const struct options *o)
{
	size_t n = 0;

	for (size_t k = 0; k < o->nspecs; k++)
		n += o->specs[k].files.n;
	return n;
}

static int run_package(const struct options *o)
{
	size_t n = count_files(o), at = 0;
	struct packaged *p = calloc(n ? n : 1, sizeof(*p));
	struct ob_image_desc *desc = calloc(n ? n : 1, sizeof(*desc));
	struct ol_pieces out = { 0 };
	struct ol_diag d;
	int rc = EXIT_OK;

	ol_diag_clear(&d);
	if (!p || !desc) {
		rc = usage_error("out of memory");
		goto out;
	}
	for (size_t k = 0; k < o->nspecs; k++) {
		const struct image_spec *s = &o->specs[k];

		if (!s->files.n || !image_spec_get(s, "triple")) {
			rc = usage_error("'file' and 'triple' are required image arguments");
			goto out;
		}
		for (size_t f = 0; f < s->files.n; f++, at++) {
			if (describe(s, s->files.v[f], o->release, &p[at], &desc[at], &d)) {
				rc = report(&d);
				goto out;
			}
		}
	}
	if (ob_encode_pieces(desc, n, &o->enc, &out, &d)) {
		rc = report(&d);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		ol_pieces_attach_file(&out, p[i].map.data, p[i].map.len, ol_map_fd(&p[i].map));
	if (ol_write_pieces_atomic(o->output, &out, &d))
		rc = report(&d);
out:
	for (size_t i = 0; p && i < n; i++) {
		ol_unmap(&p[i].map);
		ol_buf_free(&p[i].stdin_data);
		free(p[i].kv);
	}
	free(p);
	free(desc);
	ol_pieces_free(&out);
	return rc;
}

static void free_options(struct options *o)
{
	for (size_t k = 0; k < o->nspecs; k++)
		image_spec_free(&o->specs[k]);
	free(o->specs);
	ol_strvec_free(&o->inputs);
}

int main(int argc, char **argv)
{
	struct ol_strvec args = { 0 };
	struct options o = { 0 };
	struct ol_diag d;
	int rc;

	ol_diag_clear(&d);
	ol_cleanup_init();
	if (ol_expand_args(argc, argv, 1, &args, &d))
		return report(&d);
	rc = parse_options(&args, &o);
	if (rc == 0 && o.help)
		fputs(usage_text, stdout);
	else if (rc == 0 && o.version)
		printf("offlink-binary (offlink) %s\ncompatible with clang-offload-packager %s and llvm-offload-binary\n",
		       OFFLINK_VERSION, OFFLINK_LLVM_COMPAT);
	else if (rc == 0 && o.list)
		rc = run_list(&o);
	else if (rc == 0 && o.extract_dir)
		rc = run_extract_all(&o);
	else if (rc == 0 && o.inputs.n)
		rc = run_extract(&o);
	else if (rc == 0)
		rc = run_package(&o);
	ol_cleanup_run();
	free_options(&o);
	ol_strvec_free(&args);
	return rc;
}
