/* offlink-wrapper: the registration of device images as a module clang
 * compiles, on its own.  Two drop-ins, chosen by the name it runs under
 * (or the options):
 *
 *   clang-offload-wrapper -target <host> -o <out.bc> <image>...
 *     LLVM 14's old offload driver: clang 14 runs it after linking the
 *     device images and compiles <out.bc> with `clang -cc1 -x ir`.  The
 *     images are registered as LLVM 14's tool registers them: each image
 *     as it is (no offload binary), in argument order, in .rodata; the
 *     entries omp_offloading_entries (32 bytes); constructor and
 *     destructor at priority 1.
 *
 *   llvm-offload-wrapper --kind=openmp|cuda|hip [--triple=<host>] -o <out> <file>...
 *     LLVM 22's tool: OpenMP images in .llvm.offloading as given (a raw
 *     image, or an offload binary whose image is registered), a CUDA
 *     fatbinary or HIP bundle with its wrapper; entries
 *     llvm_offload_entries (56 bytes), or those of the release --llvm=
 *     names; a priority-101 constructor.
 *
 * The output is LLVM IR text made of `module asm` lines: the same
 * assembly offlink assembles for a link (wrap/registration_asm.c), which
 * clang reads whatever release it is (IR text of no types at all is the
 * same in every dialect) and whatever the file is named. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/message.h"
#include "common/response_file.h"
#include "common/version.h"
#include "format/offload_binary.h"
#include "os/cleanup.h"
#include "os/llvm_install.h"
#include "os/mapfile.h"
#include "os/outfile.h"
#include "wrap/asm_code.h"
#include "wrap/wrapper.h"

enum { EXIT_OK = 0, EXIT_ERROR = 1, EXIT_USAGE = 2 };

static const char tool[] = "offlink-wrapper";

enum mode { MODE_UNSET, MODE_LLVM14, MODE_LLVM22 };
enum kind { KIND_UNSET, KIND_OPENMP, KIND_CUDA, KIND_HIP };

struct options {
	enum mode mode;
	enum kind kind;
	const char *triple, *output, *llvm;
	struct ol_strvec images;
	int help, version;
};

static const char usage_text[] =
	"OVERVIEW: write the registration of device images as a module clang\n"
	"compiles: a drop-in for LLVM 14's clang-offload-wrapper and LLVM 22's\n"
	"llvm-offload-wrapper (the name it runs under picks; offlink-wrapper\n"
	"takes either's options).\n"
	"\n"
	"USAGE: clang-offload-wrapper -target <host triple> -o <out> <image>...\n"
	"       llvm-offload-wrapper --kind=openmp|cuda|hip [--triple=<host triple>]\n"
	"                            -o <out> <file>...\n"
	"\n"
	"OPTIONS:\n"
	"  -o <file>                the module (LLVM IR text; compile with clang -c)\n"
	"  -target <triple>, --target=<triple>\n"
	"                           LLVM 14: the host triple; OpenMP images registered\n"
	"                           as clang-offload-wrapper-14 does\n"
	"  --kind=<kind>            LLVM 22: openmp, cuda (a fatbinary) or hip (a bundle)\n"
	"  --triple=<triple>        LLVM 22: the host triple (default " OFFLINK_DEFAULT_HOST_TRIPLE ")\n"
	"  --llvm=<release>         whose entry tables the registration walks: 20 and\n"
	"                           later llvm_offload_entries, older releases their own\n"
	"                           (default: 14 as clang-offload-wrapper, else 22)\n"
	"  --help, --version\n"
	"\n"
	"Only x86_64 and aarch64 hosts.  See offlink-wrapper(1).\n";

static int usage_error(const char *fmt, const char *arg)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, arg);
	ol_message(tool, "error", "%s", msg);
	fprintf(stderr, "Try '%s --help' for more information.\n", tool);
	return EXIT_USAGE;
}

/* "-name value", "-name=value", "--name=value", "--name value" */
static const char *value_of(char **argv, size_t argc, size_t *i, const char *name)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	a += a[1] == '-' ? 2 : 1;
	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] == '\0' && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

static int parse_options(char **argv, size_t argc, struct options *o)
{
	for (size_t i = 0; i < argc; i++) {
		const char *a = argv[i], *v;

		if (a[0] != '-' || a[1] == '\0') {
			if (ol_strvec_push(&o->images, a))
				return EXIT_ERROR;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-help") || !strcmp(a, "-h")) {
			o->help = 1;
		} else if (!strcmp(a, "--version") || !strcmp(a, "-version")) {
			o->version = 1;
		} else if ((v = value_of(argv, argc, &i, "o"))) {
			o->output = v;
		} else if ((v = value_of(argv, argc, &i, "target"))) {
			o->triple = v;
			if (o->mode == MODE_UNSET)
				o->mode = MODE_LLVM14;
		} else if ((v = value_of(argv, argc, &i, "triple"))) {
			o->triple = v;
		} else if ((v = value_of(argv, argc, &i, "llvm"))) {
			o->llvm = v;
		} else if ((v = value_of(argv, argc, &i, "kind"))) {
			o->kind = !strcmp(v, "openmp") ? KIND_OPENMP : !strcmp(v, "cuda") ? KIND_CUDA
				  : !strcmp(v, "hip") ? KIND_HIP : KIND_UNSET;
			if (o->kind == KIND_UNSET)
				return usage_error("--kind=%s: expected openmp, cuda or hip", v);
			if (o->mode == MODE_UNSET)
				o->mode = MODE_LLVM22;
		} else {
			return usage_error("unknown option '%s'", a);
		}
	}
	return EXIT_OK;
}

/* The mode of the name the tool runs under; options may still set it. */
static enum mode mode_of(const char *argv0)
{
	const char *base = strrchr(argv0, '/');

	base = base ? base + 1 : argv0;
	if (!strncmp(base, "clang-offload-wrapper", 21))
		return MODE_LLVM14;
	if (!strncmp(base, "llvm-offload-wrapper", 20))
		return MODE_LLVM22;
	return MODE_UNSET;
}

/* The assembly as LLVM IR: a triple and one `module asm` per line, each
 * byte that is not plain printable ASCII (and '"', '\') as \XX. */
static enum ol_err to_ir(const struct options *o, const struct ol_buf *s, struct ol_buf *ir)
{
	enum ol_err rc = ol_buf_printf(ir, "; the registration of %zu device image%s, written by "
					   "offlink-wrapper %s\ntarget triple = \"",
				       o->images.n, o->images.n == 1 ? "" : "s", OFFLINK_VERSION);
	const char *p = (const char *)s->data, *end = p + s->len;

	for (const char *t = o->triple; *t && !rc; t++)
		rc = *t >= 0x20 && *t < 0x7f && *t != '"' && *t != '\\' ? ol_buf_append(ir, t, 1)
			: ol_buf_printf(ir, "\\%02X", (unsigned char)*t);
	rc = rc ? rc : ol_buf_puts(ir, "\"\n\n");
	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		rc = ol_buf_puts(ir, "module asm \"");
		for (; p < eol && !rc; p++)
			rc = *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\'
				? ol_buf_append(ir, p, 1)
				: ol_buf_printf(ir, "\\%02X", (unsigned char)*p);
		rc = rc ? rc : ol_buf_puts(ir, "\"\n");
		p = nl ? nl + 1 : end;
	}
	return rc;
}

/* An input file's size, and (LLVM 22, OpenMP) where its image lies when
 * it is an offload binary: its first image, as LLVM's tool registers it. */
static enum ol_err describe(const struct options *o, const char *path, struct wrap_image *img,
			    struct ol_diag *d)
{
	struct ol_map m = { 0 };
	struct ob_binary b;
	enum ol_err rc = ol_map_file(path, &m, d);

	if (rc)
		return rc;
	img->path = path;
	img->size = m.len;
	img->image_kind = OB_IMG_OBJECT;
	img->origins = path;
	img->triple = o->triple;
	img->arch = "";
	if (o->mode == MODE_LLVM22 && o->kind == KIND_OPENMP && m.len >= 4 &&
	    !memcmp(m.data, "\x10\xff\x10\xad", 4)) {
		ol_diag_clear(d);
		if ((rc = ob_decode(m.data, m.len, &b, d)) == OL_OK) {
			if (b.nentries && b.version == 1) {
				img->inner_offset = b.entries[0].image_offset;
				img->size = b.entries[0].image_size;
			} else {
				rc = ol_diag_set(d, OL_E_UNSUPPORTED, NULL, "%s: an offload binary of "
						 "version %u with %zu images", path, b.version, b.nentries);
			}
			ob_binary_free(&b);
		} else {
			ol_diag_locate(d, path, NULL, 0);
		}
	}
	ol_unmap(&m);
	return rc;
}

static enum ol_err generate(const struct options *o, unsigned release, const struct asm_arch *a,
			    struct ol_buf *s, struct ol_diag *d)
{
	struct wrap_image *imgs = calloc(o->images.n ? o->images.n : 1, sizeof(*imgs));
	bool new_entries = release >= 20;
	enum ol_err rc = imgs ? OL_OK : ol_diag_set(d, OL_E_NOMEM, NULL, NULL);

	for (size_t i = 0; i < o->images.n && !rc; i++)
		rc = describe(o, o->images.v[i], &imgs[i], d);
	if (!rc && o->kind == KIND_OPENMP) {
		struct wrap_openmp w = { o->output, imgs, o->images.n,
					 new_entries ? "llvm_offload_entries" : "omp_offloading_entries",
					 false, o->mode == MODE_LLVM14 ? WRAP_OMP_LLVM14 : WRAP_OMP_AS_GIVEN };

		rc = wrap_openmp_asm(&w, a, s, d);
	} else if (!rc) {
		struct wrap_cuda_hip w = { o->kind == KIND_HIP, o->output, o->images.v[0],
					   o->images.v[0], new_entries, NULL, 0 };

		if (o->images.n != 1)
			rc = ol_diag_set(d, OL_E_USAGE, NULL, "--kind=%s takes one container (a "
					 "fatbinary or an offload bundle), not %zu files",
					 o->kind == KIND_HIP ? "hip" : "cuda", o->images.n);
		else
			rc = wrap_cuda_hip_asm(&w, a, s, d);
	}
	free(imgs);
	return rc;
}

static int report(const struct ol_diag *d)
{
	ol_message_diag(tool, d);
	return d->code == OL_E_USAGE ? EXIT_USAGE : EXIT_ERROR;
}

static int run(struct options *o)
{
	struct ol_buf s = { 0 }, ir = { 0 };
	const struct asm_arch *a;
	struct ol_diag d;
	const char *bad;
	unsigned release;
	int status = EXIT_OK;

	ol_diag_clear(&d);
	if (o->mode == MODE_UNSET)
		return usage_error("%s", "name the registration: -target <triple> (as "
					 "clang-offload-wrapper) or --kind=<kind> (as llvm-offload-wrapper)");
	if (o->mode == MODE_LLVM22 && o->kind == KIND_UNSET)
		return usage_error("%s", "--kind=openmp|cuda|hip is required");
	if (o->mode == MODE_LLVM14)
		o->kind = KIND_OPENMP;
	if (!o->output)
		return usage_error("%s", "no output: -o <file> is required");
	if (!o->images.n)
		return usage_error("%s", "no input images");
	if (!o->triple)
		o->triple = OFFLINK_DEFAULT_HOST_TRIPLE;
	release = o->mode == MODE_LLVM14 ? 14 : 22;
	if (o->llvm && !(release = ol_llvm_tool_release(o->llvm, release, &bad)))
		return usage_error("--llvm: %s", bad);
	if (!(a = asm_arch_of(o->triple))) {
		ol_message(tool, "error", "host triple %s: offlink-wrapper writes the registration for "
					  "x86_64 and aarch64 hosts", o->triple);
		return EXIT_ERROR;
	}
	if (generate(o, release, a, &s, &d) || to_ir(o, &s, &ir) ||
	    ol_write_file_atomic(o->output, ir.data, ir.len, &d))
		status = report(&d);
	ol_buf_free(&s);
	ol_buf_free(&ir);
	return status;
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
	o.mode = mode_of(argv[0]);
	rc = parse_options(args.v, args.n, &o);
	if (rc == 0 && o.help)
		fputs(usage_text, stdout);
	else if (rc == 0 && o.version)
		printf("offlink-wrapper (offlink) %s\ncompatible with clang-offload-wrapper (LLVM 14) "
		       "and llvm-offload-wrapper (LLVM 22)\n", OFFLINK_VERSION);
	else if (rc == 0)
		rc = run(&o);
	ol_cleanup_run();
	ol_strvec_free(&o.images);
	ol_strvec_free(&args);
	return rc;
}
