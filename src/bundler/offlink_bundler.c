/* offlink-bundler: a drop-in for clang-offload-bundler (LLVM 19).
 *
 *   bundle:    -type=T -targets=A,B,... -input=a -input=b ... -output=o
 *   unbundle:  -unbundle -type=T -targets=... -input=i -output=a -output=b ...
 *   list:      -list -type=T -input=i
 *   archives:  -unbundle -type=a -targets=... -input=lib.a -output=... */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bundler/bundler.h"
#include "common/arena.h"
#include "common/message.h"
#include "common/pieces.h"
#include "common/response_file.h"
#include "common/strmap.h"
#include "common/version.h"
#include "format/target_id.h"
#include "os/cleanup.h"
#include "os/llvm_install.h"
#include "os/outfile.h"

enum { EXIT_OK = 0, EXIT_ERROR = 1, EXIT_USAGE = 2 };

static const char tool[] = "offlink-bundler";

static const char usage_text[] =
	"OVERVIEW: A tool to bundle several input files of the specified type <type>\n"
	"referring to the same source file but different targets into a single\n"
	"one, or to unbundle such a file (-unbundle); a drop-in for\n"
	"clang-offload-bundler.\n"
	"\n"
	"USAGE: offlink-bundler [options]\n"
	"\n"
	"OPTIONS:\n"
	"  -type=<t>                 i, ii, cui, hipi, d, ll, s (text); bc, o, gch, ast\n"
	"                            (binary); a (archive of bundles, -unbundle only)\n"
	"  -targets=<id>[,<id>...]   bundle entry IDs: <kind>-<triple>[-<target ID>]\n"
	"  -input=<f>, -inputs=<f,...>    input files\n"
	"  -output=<f>, -outputs=<f,...>  output files\n"
	"  -unbundle                 split a bundle into one file per target\n"
	"  -list                     print the IDs of a bundle's entries\n"
	"  -each-bundle              an input holding several bundles back to back (a\n"
	"                            library's .hip_fatbin): -unbundle writes each\n"
	"                            bundle's code object to <output>.<n>, -list prints\n"
	"                            '<n> <id>' per entry (without it: the first bundle\n"
	"                            holding each target; each ID once)\n"
	"  -allow-missing-bundles    write empty outputs for targets not in the input\n"
	"  -bundle-align=<n>         alignment of entries in binary bundles (default 1)\n"
	"  -check-input-archive      reject archive members with conflicting target IDs\n"
	"  -hip-openmp-compatible    treat hip and openmp entries as compatible\n"
	"  -compress                 compress the bundle (zstd; CCOB version 2, 3 for\n"
	"                            LLVM 22)\n"
	"  -llvm=<release>           write what that release's bundler writes (16, 19,\n"
	"                            22; default $OFFLINK_LLVM, the clang that ran it,\n"
	"                            else 22)\n"
	"  -compression-level=<n>    compression level (default 3)\n"
	"  -verbose                  print compression statistics\n"
	"  -###                      print the commands run (-type=o), run nothing\n"
	"  --help, --version\n"
	"\n"
	"Options take one or two dashes, and '=' or a separate value.\n"
	"Environment: OFFLOAD_BUNDLER_COMPRESS=1, OFFLOAD_BUNDLER_VERBOSE=1,\n"
	"OFFLOAD_BUNDLER_COMPRESSION_LEVEL=<n>, COMPRESSED_BUNDLE_FORMAT_VERSION=2|3,\n"
	"OFFLOAD_BUNDLER_IGNORE_ENV_VAR=1 (ignore the others).\n"
	"Exit status: 0 success, 1 error, 2 bad usage.\n";

static int fail(const struct ol_diag *d)
{
	ol_message_diag(tool, d);
	return EXIT_ERROR;
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ol_vmessage(tool, "error", fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

/* ---- options ---- */

/* "-name", "--name", "-name=v", "--name=v", "-name v": *value is set when
 * the option has one. */
static int match(char **argv, size_t n, size_t *i, const char *name,
		 bool takes_value, const char **value)
{
	const char *a = argv[*i];
	size_t len = strlen(name);

	if (a[0] != '-')
		return 0;
	a += a[1] == '-' ? 2 : 1;
	if (strncmp(a, name, len) != 0)
		return 0;
	if (a[len] == '\0') {
		if (!takes_value)
			return 1;
		if (*i + 1 >= n)
			return -1;
		*value = argv[++*i];
		return 1;
	}
	if (takes_value && a[len] == '=') {
		*value = a + len + 1;
		return 1;
	}
	return 0;
}

/* Append each comma-separated item of list to v. */
static int add_list(struct ol_strvec *v, const char *list)
{
	while (*list) {
		size_t n = strcspn(list, ",");

		if (n && ol_strvec_pushn(v, list, n))
			return -1;
		list += n + (list[n] == ',');
	}
	return 0;
}

static int parse_number(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

enum valued { V_TYPE, V_TARGETS, V_INPUTS, V_INPUT, V_OUTPUTS, V_OUTPUT,
	      V_ALIGN, V_LEVEL, V_LLVM };

static int apply_value(struct bundler *b, enum valued id, const char *v)
{
	long num;

	switch (id) {
	case V_TYPE:
		free(b->type);
		b->type = strdup(v);
		return b->type ? 0 : usage_error("out of memory");
	case V_TARGETS: return add_list(&b->targets, v) ? usage_error("out of memory") : 0;
	case V_INPUTS: return add_list(&b->inputs, v) ? usage_error("out of memory") : 0;
	case V_INPUT: return ol_strvec_push(&b->inputs, v) ? usage_error("out of memory") : 0;
	case V_OUTPUTS: return add_list(&b->outputs, v) ? usage_error("out of memory") : 0;
	case V_OUTPUT: return ol_strvec_push(&b->outputs, v) ? usage_error("out of memory") : 0;
	case V_ALIGN:
		if (parse_number(v, 1, 1L << 30, &num) || (num & (num - 1)))
			return usage_error("-bundle-align=%s: expected a power of two", v);
		b->align = (uint64_t)num;
		return 0;
	case V_LEVEL:
		if (parse_number(v, -5, 22, &num))
			return usage_error("-compression-level=%s: expected an integer from -5 to 22", v);
		b->level = (int)num;
		return 0;
	case V_LLVM:
		free(b->llvm);
		b->llvm = strdup(v);
		return b->llvm ? 0 : usage_error("out of memory");
	}
	return 0;
}

static int parse_option(struct bundler *b, char **argv, size_t n, size_t *i)
{
	static const struct { const char *name; size_t off; } flags[] = {
		{ "unbundle", offsetof(struct bundler, unbundle) },
		{ "list", offsetof(struct bundler, list) },
		{ "allow-missing-bundles", offsetof(struct bundler, allow_missing) },
		{ "check-input-archive", offsetof(struct bundler, check_archive) },
		{ "compress", offsetof(struct bundler, compress) },
		{ "verbose", offsetof(struct bundler, verbose) },
		{ "hip-openmp-compatible", offsetof(struct bundler, hip_openmp) },
		{ "each-bundle", offsetof(struct bundler, each_bundle) },
		{ "###", offsetof(struct bundler, print_only) },
		{ "help", offsetof(struct bundler, help) },
		{ "help-hidden", offsetof(struct bundler, help) },
		{ "version", offsetof(struct bundler, version) },
	};
	static const struct { const char *name; enum valued id; } valued[] = {
		{ "type", V_TYPE }, { "targets", V_TARGETS }, { "inputs", V_INPUTS },
		{ "input", V_INPUT }, { "outputs", V_OUTPUTS }, { "output", V_OUTPUT },
		{ "bundle-align", V_ALIGN }, { "compression-level", V_LEVEL },
		{ "llvm", V_LLVM },
	};
	const char *v = NULL;

	for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]); k++)
		if (match(argv, n, i, flags[k].name, false, &v) == 1) {
			*(bool *)((char *)b + flags[k].off) = true;
			return 0;
		}
	for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); k++) {
		int m = match(argv, n, i, valued[k].name, true, &v);

		if (m < 0)
			return usage_error("missing value after %s", argv[*i]);
		if (m > 0)
			return apply_value(b, valued[k].id, v);
	}
	return usage_error("unknown option '%s'", argv[*i]);
}

/* OFFLOAD_BUNDLER_* as LLVM 19 reads them, unless told to ignore them. */
static int read_environment(struct bundler *b)
{
	const char *ignore = getenv("OFFLOAD_BUNDLER_IGNORE_ENV_VAR");
	const char *v;
	long num;

	if (ignore && strcmp(ignore, "1") == 0)
		return 0;
	if ((v = getenv("OFFLOAD_BUNDLER_COMPRESS")) && strcmp(v, "1") == 0)
		b->compress = true;
	if ((v = getenv("OFFLOAD_BUNDLER_VERBOSE")) && strcmp(v, "1") == 0)
		b->verbose = true;
	if ((v = getenv("OFFLOAD_BUNDLER_COMPRESSION_LEVEL")) && *v) {
		if (parse_number(v, -5, 22, &num))
			return usage_error("OFFLOAD_BUNDLER_COMPRESSION_LEVEL=%s: expected an integer", v);
		if (b->level < -5)
			b->level = (int)num;
	}
	/* LLVM 22 writes version 3 unless this says 2 (anything else: a
	 * warning, and 3); LLVM 19 writes version 2 and does not read it. */
	if (b->release >= 22 && (v = getenv("COMPRESSED_BUNDLE_FORMAT_VERSION")) && *v) {
		if (strcmp(v, "2") && strcmp(v, "3"))
			ol_message(tool, "warning", "COMPRESSED_BUNDLE_FORMAT_VERSION=%s: "
				   "expected 2 or 3; using 3", v);
		else
			b->ccob_version = (unsigned)(v[0] - '0');
	}
	return 0;
}

/* The release followed: -llvm=, $OFFLINK_LLVM, the clang running the
 * tool, else the newest offlink knows; and what follows from it. */
static int choose_release(struct bundler *b)
{
	const char *bad;

	b->release = ol_llvm_tool_release(b->llvm, &bad);
	if (!b->release)
		return usage_error("-llvm=%s: %s", b->llvm ? b->llvm : getenv("OFFLINK_LLVM"), bad);
	b->ccob_version = b->release >= 22 ? 3 : 2;
	return 0;
}

/* ---- checks shared by the modes (LLVM's messages) ---- */

/* Two targets conflict only when they have the same kind and processor:
 * each target is compared with the earlier ones of its (kind, processor)
 * bucket, in order, so the pair reported is the one a comparison of all
 * pairs finds first, without comparing all pairs. */
#define KEY_MAX (sizeof(((struct ol_bundle_id *)0)->kind) + \
		 sizeof(((struct ol_target_id *)0)->processor) + 1)

struct buckets {
	struct ol_strmap index;     /* "<kind>\0<processor>" -> bucket + 1 */
	char (*keys)[KEY_MAX];      /* each target's key (the map points here) */
	size_t *head, *tail, *next; /* target lists per bucket, SIZE_MAX ends */
	size_t n;
};

static int check_conflicts(struct bundler *b, const struct ol_target_id *tid,
			   const bool *parsed, struct buckets *k, size_t i)
{
	char *key = k->keys[i];
	int klen = snprintf(key, KEY_MAX, "%s%c%s", b->ids[i].kind, 0,
			    parsed[i] ? tid[i].processor : "");
	uintptr_t *v = ol_strmap_put(&k->index, key, (size_t)klen);
	size_t bucket;

	if (!v)
		return usage_error("out of memory");
	if (*v) {
		bucket = *v - 1;
		for (size_t j = k->head[bucket]; parsed[i] && j != SIZE_MAX; j = k->next[j])
			if (parsed[j] && ol_target_id_conflict(&tid[i], &tid[j])) {
				ol_message(tool, "error", "Cannot bundle inputs with conflicting targets: '%s' and '%s'",
					   b->ids[j].text, b->ids[i].text);
				return EXIT_ERROR;
			}
		k->next[k->tail[bucket]] = i;
	} else {
		bucket = k->n++;
		*v = bucket + 1;
		k->head[bucket] = i;
	}
	k->tail[bucket] = i;
	k->next[i] = SIZE_MAX;
	return 0;
}

static int check_targets(struct bundler *b)
{
	size_t n = b->nids ? b->nids : 1;
	struct ol_target_id *tid = calloc(n, sizeof(*tid));
	bool *parsed = calloc(n, sizeof(*parsed));
	struct ol_strmap seen = { 0 };
	struct buckets k = { .keys = calloc(n, KEY_MAX), .head = calloc(n, sizeof(size_t)),
			     .tail = calloc(n, sizeof(size_t)), .next = calloc(n, sizeof(size_t)) };
	int rc = tid && parsed && k.keys && k.head && k.tail && k.next
		? 0 : usage_error("out of memory");

	for (size_t i = 0; i < b->nids && !rc; i++) {
		const char *text = b->ids[i].text;
		uintptr_t *v = ol_strmap_put(&seen, text, strlen(text));
		struct ol_diag d;

		if (!v) {
			rc = usage_error("out of memory");
		} else if (*v) {
			fprintf(stderr, "%s: error: Duplicate targets are not allowed\n", tool);
			rc = EXIT_ERROR;
		} else {
			*v = 1;
			ol_diag_clear(&d);
			parsed[i] = ol_target_id_parse(b->ids[i].target_id, &tid[i], &d) == OL_OK;
			rc = check_conflicts(b, tid, parsed, &k, i);
		}
	}
	ol_strmap_free(&k.index);
	free(k.keys);
	ol_strmap_free(&seen);
	free(k.head);
	free(k.tail);
	free(k.next);
	free(parsed);
	free(tid);
	return rc;
}

static size_t dashes(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '-';
	return n;
}

static int parse_targets(struct bundler *b)
{
	struct ol_diag d;

	b->ids = calloc(b->targets.n ? b->targets.n : 1, sizeof(*b->ids));
	if (!b->ids)
		return usage_error("out of memory");
	ol_diag_clear(&d);
	for (size_t i = 0; i < b->targets.n; i++, b->nids++) {
		if (ol_bundle_id_parse(b->targets.v[i], strlen(b->targets.v[i]),
				       &b->ids[i], &d))
			return fail(&d);
		if (b->release >= 22 && dashes(b->targets.v[i]) < 4) {
			/* LLVM 22 no longer completes a triple without its
			 * environment (19 wrote host-x86_64-unknown-linux--). */
			ol_message(tool, "error", "Targets need to follow the format "
				   "'<offload kind>-<target triple>', where '<target triple>' "
				   "follows the format '<kind>-<arch>-<vendor>-<os>-<env>"
				   "[-<target id>[:target features]]'.");
			return EXIT_ERROR;
		}
	}
	return check_targets(b);
}

static size_t count_hosts(const struct bundler *b)
{
	size_t n = 0;

	for (size_t i = 0; i < b->nids; i++)
		n += ol_bundle_id_is_host(&b->ids[i]);
	return n;
}

static bool all_hip(const struct bundler *b)
{
	for (size_t i = 0; i < b->nids; i++)
		if (strncmp(b->ids[i].kind, "hip", 3) != 0)
			return false;
	return true;
}

static int check_options(struct bundler *b)
{
	if (!b->type)
		return usage_error("for the --type option: must be specified at least once!");
	if (!ol_bundle_type_known(b->type))
		return usage_error("'%s': invalid file type specified", b->type);
	if (b->list && b->unbundle)
		return usage_error("-unbundle and -list cannot be used together");
	if (b->list) {
		if (b->targets.n)
			return usage_error("-targets option is invalid for -list");
		if (b->outputs.n)
			return usage_error("-outputs option is invalid for -list");
		if (b->inputs.n != 1)
			return usage_error("only one input file supported for -list");
		return 0;
	}
	if (b->check_archive && !b->unbundle)
		return usage_error("-check-input-archive cannot be used while bundling");
	if (b->check_archive && strcmp(b->type, "a") != 0)
		return usage_error("-check-input-archive can only be used for unbundling archives (-type=a)");
	if (!b->targets.n)
		return usage_error("for the --targets option: must be specified at least once!");
	if (!b->outputs.n)
		return usage_error("no output file specified!");
	if (!b->inputs.n)
		return usage_error("no input file specified!");
	if (!b->unbundle && strcmp(b->type, "a") == 0)
		return usage_error("Archive files are only supported for unbundling");
	if (b->unbundle && b->inputs.n != 1)
		return usage_error("only one input file supported in unbundling mode");
	if (b->unbundle && b->outputs.n != b->targets.n)
		return usage_error("number of output files and targets should match in unbundling mode");
	if (!b->unbundle && b->outputs.n != 1)
		return usage_error("only one output file supported in bundling mode");
	if (!b->unbundle && b->inputs.n != b->targets.n)
		return usage_error("number of input files and targets should match in bundling mode");
	return 0;
}

/* ---- bundling ---- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static enum ol_err maybe_compress(const struct bundler *b, struct ol_buf *bundle,
				  struct ol_diag *d)
{
	struct ol_buf z = { 0 };
	struct ol_ccob_info info;
	int level = b->level >= -5 ? b->level : 3;
	double t0 = now();

	if (!b->compress)
		return OL_OK;
	if (ol_ccob_encode(bundle->data, bundle->len, b->ccob_version, OL_COMP_ZSTD,
			   level, &z, &info, d)) {
		ol_buf_free(&z);
		return d->code;
	}
	if (b->verbose)
		print_compress_stats(&info, level, now() - t0);
	ol_buf_free(bundle);
	*bundle = z;
	return OL_OK;
}

static int bundle_files(struct bundler *b)
{
	struct ol_map *maps = calloc(b->inputs.n, sizeof(*maps));
	struct ol_bundle_entry *e = calloc(b->inputs.n, sizeof(*e));
	const char *comment = ol_bundle_text_comment(b->type);
	struct ol_pieces pieces = { 0 };
	struct ol_buf out = { 0 };
	struct ol_diag d;
	size_t host = 0, hosts = count_hosts(b);
	int rc = EXIT_OK;

	ol_diag_clear(&d);
	if (!maps || !e) {
		rc = usage_error("out of memory");
		goto done;
	}
	if (hosts != 1 && !(hosts == 0 && all_hip(b))) {
		fprintf(stderr, "%s: error: expecting exactly one host target but got %zu\n",
			tool, hosts);
		rc = EXIT_ERROR;
		goto done;
	}
	for (size_t i = 0; i < b->inputs.n; i++) {
		if (ol_map_file_fd(b->inputs.v[i], &maps[i], &d)) {
			rc = fail(&d);
			goto done;
		}
		e[i] = (struct ol_bundle_entry){ bundle_id_text(b, i), strlen(bundle_id_text(b, i)),
						 maps[i].data, maps[i].len };
		if (ol_bundle_id_is_host(&b->ids[i]))
			host = i;
	}
	if (strcmp(b->type, "o") == 0 && is_host_object(maps[host].data, maps[host].len)) {
		/* The host object carries the bundle in sections; LLVM's
		 * -compress has no effect on this form, nor here. */
		if (bundle_object(b, b->inputs.v[host], (const char *const *)b->inputs.v,
				  b->outputs.v[0], &d))
			rc = fail(&d);
		goto done;
	}
	if (comment && ol_bundle_encode_text(e, b->inputs.n, comment, &pieces))
		ol_diag_set(&d, OL_E_NOMEM, NULL, NULL);
	else if (!comment)
		ol_bundle_encode_binary(e, b->inputs.n, b->align, &pieces, &d);
	if (d.code) {
		rc = fail(&d);
		goto done;
	}
	if (!b->compress) {
		/* the inputs go to the output straight from their files */
		for (size_t i = 0; i < b->inputs.n; i++)
			ol_pieces_attach_file(&pieces, maps[i].data, maps[i].len, ol_map_fd(&maps[i]));
		if (ol_write_pieces_atomic(b->outputs.v[0], &pieces, &d))
			rc = fail(&d);
		goto done;
	}
	if (ol_pieces_flatten(&pieces, &out))
		ol_diag_set(&d, OL_E_NOMEM, NULL, NULL);
	if (d.code || maybe_compress(b, &out, &d) ||
	    ol_write_file_atomic(b->outputs.v[0], out.data, out.len, &d))
		rc = fail(&d);
done:
	for (size_t i = 0; maps && i < b->inputs.n; i++)
		ol_unmap(&maps[i]);
	free(maps);
	free(e);
	ol_pieces_free(&pieces);
	ol_buf_free(&out);
	return rc;
}

/* ---- unbundling and listing ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "Can't find bundles for A, B and C", the IDs sorted, as LLVM says it. */
static int missing_bundles(const struct bundler *b, const bool *matched)
{
	const char *names[256];
	size_t n = 0;

	for (size_t i = 0; i < b->nids && n < 256; i++)
		if (!matched[i])
			names[n++] = b->ids[i].text;
	qsort(names, n, sizeof(names[0]), cmp_str);
	fprintf(stderr, "%s: error: Can't find bundles for ", tool);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", names[i]);
	fputc('\n', stderr);
	return EXIT_ERROR;
}

/* Entry `entry` of l to target's output (with -each-bundle, to
 * <output>.<seq>: seq is the bundle's place in the input). */
static enum ol_err write_entry(const struct bundler *b, const struct loaded *l,
			       const struct ol_map *m, size_t entry, size_t target, size_t seq,
			       struct ol_diag *d)
{
	const struct ol_bundle_entry *e = &l->bundle.entries[entry];
	char *out = b->each_bundle ? NULL : b->outputs.v[target];
	enum ol_err rc;

	if (!out && asprintf(&out, "%s.%zu", b->outputs.v[target], seq) < 0)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	/* A host object's own entry (one zero byte) is the object itself. */
	if (l->object && e->size == 1 && e->data[0] == 0)
		rc = strip_object(b, b->inputs.v[0], l, out, d);
	else
		rc = ol_write_from_map(out, m, e->data, (size_t)e->size, d);
	if (b->each_bundle)
		free(out);
	return rc;
}

static int fill_missing(const struct bundler *b, const struct ol_map *m, const bool *matched,
			bool none_matched)
{
	struct ol_diag d;

	ol_diag_clear(&d);
	for (size_t t = 0; t < b->nids; t++) {
		if (matched[t])
			continue;
		/* A bundled file without this device's code: said, not silent
		 * (clang 14 passes -allow-missing-bundles to every unbundle). */
		if (!none_matched && !ol_bundle_id_is_host(&b->ids[t]))
			ol_message(tool, "warning", "%s holds no bundle for %s: its output is empty",
				   b->inputs.v[0], b->ids[t].text);
		/* Nothing matched at all: the input is taken as host-only. */
		if (none_matched && ol_bundle_id_is_host(&b->ids[t])) {
			if (ol_write_file_atomic(b->outputs.v[t], m->data ? m->data : (const void *)"",
						 m->len, &d))
				return fail(&d);
		} else if (ol_write_file_atomic(b->outputs.v[t], "", 0, &d)) {
			return fail(&d);
		}
	}
	return EXIT_OK;
}

/* Where target t's output comes from: entry `entry` of bundle `bundle`;
 * entry SIZE_MAX: nowhere. */
struct pick {
	size_t bundle, entry;
};

/* In each bundle, in order, each entry goes to the first compatible
 * target still waiting: a target comes from the first bundle holding it,
 * or with -each-bundle from every one (picks[k * nids + t]).  Every
 * bundle is read here, one at a time, before anything is written: a
 * damaged bundle anywhere in the input writes nothing. */
static enum ol_err pick_entries(const struct bundler *b, const struct bundle_seq *seq,
				struct pick *picks, bool *matched, bool *any, struct ol_diag *d)
{
	for (size_t k = 0; k < seq->n; k++) {
		struct pick *here = b->each_bundle ? picks + k * b->nids : picks;
		struct loaded l;

		if (seq_load(b, b->inputs.v[0], seq, k, &l, d)) {
			loaded_free(&l);
			return d->code;
		}
		for (size_t i = 0; i < l.bundle.n; i++)
			for (size_t t = 0; t < b->nids; t++)
				if (here[t].entry == SIZE_MAX &&
				    ol_bundle_id_compatible(&l.ids[i], &b->ids[t], b->hip_openmp)) {
					here[t] = (struct pick){ k, i };
					matched[t] = *any = true;
					break;
				}
		loaded_free(&l);
	}
	return OL_OK;
}

/* The picked entries written, each bundle loaded again, one at a time. */
static enum ol_err write_picks(const struct bundler *b, const struct bundle_seq *seq,
			       const struct pick *picks, size_t npicks, struct ol_diag *d)
{
	for (size_t k = 0; k < seq->n; k++) {
		struct loaded l;
		bool wanted = false;

		for (size_t p = 0; p < npicks && !wanted; p++)
			wanted = picks[p].entry != SIZE_MAX && picks[p].bundle == k;
		if (!wanted)
			continue;
		if (seq_load(b, b->inputs.v[0], seq, k, &l, d)) {
			loaded_free(&l);
			return d->code;
		}
		for (size_t p = 0; p < npicks; p++)
			if (picks[p].entry != SIZE_MAX && picks[p].bundle == k &&
			    write_entry(b, &l, &seq->map, picks[p].entry, p % b->nids, k, d)) {
				loaded_free(&l);
				return d->code;
			}
		loaded_free(&l);
	}
	return OL_OK;
}

static int unbundle_file(struct bundler *b)
{
	bool *matched = calloc(b->nids, sizeof(*matched)), any = false, all = true;
	struct bundle_seq seq = { 0 };
	struct pick *picks = NULL;
	size_t npicks = 0;
	struct ol_diag d;
	int rc = EXIT_OK;

	ol_diag_clear(&d);
	if (!matched)
		return usage_error("out of memory");
	if (count_hosts(b) > 1) {
		free(matched);
		fprintf(stderr, "%s: error: expecting at most one host target but got %zu\n",
			tool, count_hosts(b));
		return EXIT_ERROR;
	}
	if (load_sequence(b, b->inputs.v[0], &seq, &d))
		goto failed;
	npicks = (b->each_bundle ? seq.n : 1) * b->nids;
	if (!(picks = malloc((npicks ? npicks : 1) * sizeof(*picks)))) {
		rc = usage_error("out of memory");
		goto done;
	}
	for (size_t p = 0; p < npicks; p++)
		picks[p] = (struct pick){ 0, SIZE_MAX };
	if (pick_entries(b, &seq, picks, matched, &any, &d) ||
	    write_picks(b, &seq, picks, npicks, &d))
		goto failed;
	for (size_t t = 0; t < b->nids; t++)
		all &= matched[t];
	if (!all)
		rc = b->allow_missing ? fill_missing(b, &seq.map, matched, !any)
				      : missing_bundles(b, matched);
	goto done;
failed:
	ol_diag_locate(&d, b->inputs.v[0], NULL, 0);
	rc = fail(&d);
done:
	bundle_seq_free(&seq);
	free(picks);
	free(matched);
	return rc;
}

/* The IDs of every bundle of the input: each once, in the order first
 * seen (one bundle: its entries' order, as LLVM lists it); with
 * -each-bundle, "<n> <id>" for every entry of bundle n.  Printed when
 * every bundle has been read (one at a time, each freed before the next;
 * the IDs copied): a damaged bundle anywhere lists nothing. */
static int list_file(struct bundler *b)
{
	struct bundle_seq seq;
	struct ol_strmap seen = { 0 };
	struct ol_arena ids = { 0 };
	struct ol_buf out = { 0 };
	struct ol_diag d;
	enum ol_err err = OL_OK;

	ol_diag_clear(&d);
	if (strcmp(b->type, "a") == 0)
		return EXIT_OK; /* as LLVM 19: archives list nothing */
	if (load_sequence(b, b->inputs.v[0], &seq, &d))
		err = d.code;
	for (size_t k = 0; k < seq.n && !err; k++) {
		struct loaded l;

		if ((err = seq_load(b, b->inputs.v[0], &seq, k, &l, &d))) {
			loaded_free(&l);
			break;
		}
		for (size_t i = 0; i < l.bundle.n && !err; i++) {
			const struct ol_bundle_entry *e = &l.bundle.entries[i];
			char *id = ol_arena_strndup(&ids, e->id, e->id_len);
			uintptr_t *v = id ? ol_strmap_put(&seen, id, e->id_len) : NULL;

			if (!v)
				err = ol_diag_set(&d, OL_E_NOMEM, NULL, NULL);
			else if (b->each_bundle)
				err = ol_buf_printf(&out, "%zu %s\n", k, id);
			else if (!*v)
				err = ol_buf_printf(&out, "%s\n", id);
			if (v)
				*v = 1;
			if (err && !d.code)
				ol_diag_set(&d, err, NULL, NULL);
		}
		loaded_free(&l);
	}
	if (!err && out.len)
		fwrite(out.data, 1, out.len, stdout);
	ol_buf_free(&out);
	ol_strmap_free(&seen);
	ol_arena_free(&ids);
	bundle_seq_free(&seq);
	if (err) {
		ol_diag_locate(&d, b->inputs.v[0], NULL, 0);
		return fail(&d);
	}
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_ERROR;
}

static int run(struct bundler *b, struct ol_strvec *args)
{
	int rc;

	for (size_t i = 0; i < args->n; i++)
		if ((rc = parse_option(b, args->v, args->n, &i)))
			return rc;
	if (b->help) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	if (b->version) {
		printf("offlink-bundler (offlink) %s\ncompatible with clang-offload-bundler %s\n",
		       OFFLINK_VERSION, OFFLINK_LLVM_COMPAT);
		return EXIT_OK;
	}
	if ((rc = choose_release(b)) || (rc = read_environment(b)) || (rc = check_options(b)))
		return rc;
	if (b->list)
		return list_file(b);
	if ((rc = parse_targets(b)))
		return rc;
	if (b->unbundle && strcmp(b->type, "a") == 0) {
		struct ol_diag d;

		ol_diag_clear(&d);
		return unbundle_archive(b, &d) ? fail(&d) : EXIT_OK;
	}
	return b->unbundle ? unbundle_file(b) : bundle_files(b);
}

int main(int argc, char **argv)
{
	struct bundler b = { .argv0 = argv[0], .align = 1, .level = -100 };
	struct ol_strvec args = { 0 };
	struct ol_diag d;
	int rc;

	ol_diag_clear(&d);
	ol_cleanup_init();
	if (ol_expand_args(argc, argv, 1, &args, &d))
		return fail(&d);
	rc = run(&b, &args);
	ol_cleanup_run();
	free(b.type);
	free(b.llvm);
	free(b.ids);
	ol_strvec_free(&b.targets);
	ol_strvec_free(&b.inputs);
	ol_strvec_free(&b.outputs);
	ol_strvec_free(&args);
	return rc;
}
