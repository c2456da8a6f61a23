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
 *   llvm-offload-wrapper --kind=openmp|cuda|hip|sycl [--triple=<host>]
 *                        [--relocatable] -o <out> <file>...
 *     LLVM 22's to 24's tool: OpenMP images in .llvm.offloading (with
 *     --relocatable .llvm.offloading.relocatable) as given -- a raw image,
 *     or an offload binary (of any version: 23 writes 2, 24 writes 3)
 *     whose first image is registered --, a CUDA fatbinary or HIP bundle
 *     with its wrapper, SYCL images (clang-sycl-linker's offload
 *     binaries) as they are; entries llvm_offload_entries (56 bytes), or
 *     those of the release --llvm= names; a priority-101 constructor (23's
 *     SYCL registration: constructor and destructor at priority 1).
 *
 * The output is LLVM IR text made of `module asm` lines: the same
 * assembly offlink assembles for a link (wrap/registration_asm.c), which
 * clang reads whatever release it is (IR text of no types at all is the
 * same in every dialect) and whatever the file is named.
 *
 * The output holds the images' bytes, as LLVM's tools' outputs do: a
 * module that named its images (.incbin "path") would embed whatever the
 * path holds when clang compiles it -- an image changed or deleted since,
 * or, for `-o X X`, the module's own text.  The bytes are read from each
 * input through one descriptor opened once (the size registered is the
 * size read) and written out as they are read, 1 MiB at a time, never
 * held whole in memory.  An output that is one of the inputs is refused. */
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
enum kind { KIND_UNSET, KIND_OPENMP, KIND_CUDA, KIND_HIP, KIND_SYCL };

struct options {
	enum mode mode;
	enum kind kind;
	const char *triple, *output, *llvm;
	struct ol_strvec images;
	int help, version, relocatable;
};

static const char usage_text[] =
	"OVERVIEW: write the registration of device images as a module clang\n"
	"compiles: a drop-in for LLVM 14's clang-offload-wrapper and LLVM 22's\n"
	"llvm-offload-wrapper (the name it runs under picks; offlink-wrapper\n"
	"takes either's options).\n"
	"\n"
	"USAGE: clang-offload-wrapper -target <host triple> -o <out> <image>...\n"
	"       llvm-offload-wrapper --kind=openmp|cuda|hip|sycl [--triple=<host triple>]\n"
	"                            [--relocatable] -o <out> <file>...\n"
	"\n"
	"OPTIONS:\n"
	"  -o <file>                the module (LLVM IR text; compile with clang -c)\n"
	"  -target <triple>, --target=<triple>\n"
	"                           LLVM 14: the host triple; OpenMP images registered\n"
	"                           as clang-offload-wrapper-14 does\n"
	"  --kind=<kind>            LLVM 22 on: openmp, cuda (a fatbinary), hip (a bundle)\n"
	"                           or sycl (offload binaries, registered as they are)\n"
	"  --triple=<triple>        LLVM 22 on: the host triple (default " OFFLINK_DEFAULT_HOST_TRIPLE ")\n"
	"  --relocatable            OpenMP: the images in .llvm.offloading.relocatable,\n"
	"                           for a -r link (device code no later link takes again)\n"
	"  --llvm=<release>         whose registration to write: from 20 the entries\n"
	"                           llvm_offload_entries, older releases their own; 24's\n"
	"                           SYCL constructor (default: 14 as clang-offload-wrapper,\n"
	"                           else $OFFLINK_LLVM, the clang that runs it, the newest\n"
	"                           LLVM installed)\n"
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
		} else if (!strcmp(a, "--relocatable") || !strcmp(a, "-relocatable")) {
			o->relocatable = 1;
		} else if ((v = value_of(argv, argc, &i, "kind"))) {
			o->kind = !strcmp(v, "openmp") ? KIND_OPENMP : !strcmp(v, "cuda") ? KIND_CUDA
				  : !strcmp(v, "hip") ? KIND_HIP : !strcmp(v, "sycl") ? KIND_SYCL
				  : KIND_UNSET;
			if (o->kind == KIND_UNSET)
				return usage_error("--kind=%s: expected openmp, cuda, hip or sycl", v);
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

/* An input: the file, opened once; its bytes go into the output from this
 * descriptor, so what is registered is what was measured. */
struct input {
	int fd;
	uint64_t size;
	dev_t dev;
	ino_t ino;
	char token[48];   /* the path the generator's .incbin names it by */
};

static enum ol_err open_input(const char *path, struct input *in, struct ol_diag *d)
{
	struct stat st;

	in->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0)
		return ol_diag_errno(d, errno, "cannot open", path);
	if (fstat(in->fd, &st) < 0)
		return ol_diag_errno(d, errno, "cannot read", path);
	if (!S_ISREG(st.st_mode))
		return ol_diag_set(d, OL_E_IO, NULL, "%s: not a regular file", path);
	in->size = (uint64_t)st.st_size;
	in->dev = st.st_dev;
	in->ino = st.st_ino;
	return OL_OK;
}

/* An input file's size, and (LLVM 22 on, OpenMP) where its image lies
 * when it is an offload binary: its first image, as LLVM's tool registers
 * it, whatever the version (a compressed one holds no image in its bytes).
 * The generator names the file by in->token, which the writer replaces
 * with the file's bytes. */
static enum ol_err describe(const struct options *o, size_t i, struct input *in,
			    struct wrap_image *img, struct ol_diag *d)
{
	const char *path = o->images.v[i];
	struct ol_map m = { 0 };
	struct ob_binary b;
	enum ol_err rc = open_input(path, in, d);

	if (rc)
		return rc;
	snprintf(in->token, sizeof(in->token), "offlink-wrapper-input-%zu", i);
	img->path = in->token;
	img->size = in->size;
	img->image_kind = OB_IMG_OBJECT;
	img->origins = path;
	img->triple = o->triple;
	img->arch = "";
	if (!(o->mode == MODE_LLVM22 && o->kind == KIND_OPENMP))
		return OL_OK;
	if ((rc = ol_map_file(path, &m, d)))
		return rc;
	if (m.len != in->size)
		rc = ol_diag_set(d, OL_E_IO, NULL, "%s: changed while offlink-wrapper read it", path);
	else if (m.len >= 4 && !memcmp(m.data, "\x10\xff\x10\xad", 4)) {
		ol_diag_clear(d);
		if ((rc = ob_decode(m.data, m.len, &b, d)) == OL_OK) {
			if (b.nentries && !b.inflated_size) {
				img->inner_offset = b.entries[0].image_offset;
				img->size = b.entries[0].image_size;
			} else {
				rc = ol_diag_set(d, OL_E_UNSUPPORTED, NULL, "%s: an offload binary of "
						 "version %u with %zu images%s: no image to register "
						 "in its bytes", path, b.version, b.nentries,
						 b.inflated_size ? ", compressed" : "");
			}
			ob_binary_free(&b);
		} else {
			ol_diag_locate(d, path, NULL, 0);
		}
	}
	ol_unmap(&m);
	return rc;
}

/* -o X X: the module would replace the image it registers.  Compared by
 * file (device and inode), so ./X, a link or another name of X count. */
static enum ol_err output_is_input(const struct options *o, const struct input *in,
				   struct ol_diag *d)
{
	struct stat st;

	if (stat(o->output, &st) != 0)
		return OL_OK;
	for (size_t i = 0; i < o->images.n; i++)
		if (in[i].fd >= 0 && in[i].dev == st.st_dev && in[i].ino == st.st_ino)
			return ol_diag_set(d, OL_E_USAGE, NULL, "the output %s is the input %s: "
					   "write the module to another file", o->output,
					   o->images.v[i]);
	return OL_OK;
}

static enum ol_err generate(const struct options *o, unsigned release, const struct asm_arch *a,
			    struct input *in, struct ol_buf *s, struct ol_diag *d)
{
	struct wrap_image *imgs = calloc(o->images.n ? o->images.n : 1, sizeof(*imgs));
	bool new_entries = release >= 20;
	enum ol_err rc = imgs ? OL_OK : ol_diag_set(d, OL_E_NOMEM, NULL, NULL);

	for (size_t i = 0; i < o->images.n && !rc; i++)
		rc = describe(o, i, &in[i], &imgs[i], d);
	if (!rc)
		rc = output_is_input(o, in, d);
	if (!rc && o->kind == KIND_OPENMP) {
		struct wrap_openmp w = { o->output, imgs, o->images.n,
					 new_entries ? "llvm_offload_entries" : "omp_offloading_entries",
					 o->relocatable,
					 o->mode == MODE_LLVM14 ? WRAP_OMP_LLVM14 : WRAP_OMP_AS_GIVEN, 1 };

		rc = wrap_openmp_asm(&w, a, s, d);
	} else if (!rc && o->kind == KIND_SYCL) {
		struct wrap_sycl w = { o->output, imgs, o->images.n, false, release >= 24 };

		rc = wrap_sycl_asm(&w, a, s, d);
	} else if (!rc) {
		struct wrap_cuda_hip w = { o->kind == KIND_HIP, o->output, in[0].token,
					   o->images.v[0], new_entries, NULL, 0, NULL, 0 };

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

/* ---- writing the module, streamed ---- */

#define CHUNK (1u << 20)

struct writer {
	struct ol_outfile out;
	struct ol_buf text;   /* IR not yet written; flushed at CHUNK */
	struct ol_diag *d;
};

static enum ol_err flush(struct writer *w, bool all)
{
	if (!all && w->text.len < CHUNK)
		return OL_OK;
	if (ol_out_write(&w->out, w->text.data, w->text.len, w->d))
		return w->d->code;
	w->text.len = 0;
	return OL_OK;
}

/* One line of assembly as `module asm "..."`: each byte that is not
 * plain printable ASCII (and '"', '\') as \XX. */
static enum ol_err asm_line(struct ol_buf *ir, const char *p, size_t n)
{
	enum ol_err rc = ol_buf_puts(ir, "module asm \"");

	for (const char *end = p + n; p < end && !rc; p++)
		rc = *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\' ? ol_buf_append(ir, p, 1)
			: ol_buf_printf(ir, "\\%02X", (unsigned char)*p);
	return rc ? rc : ol_buf_puts(ir, "\"\n");
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int k = 7; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

/* n bytes (a multiple of 64 but at the end) as assembly the module asm
 * can hold without escapes: 64 bytes a line as eight little-endian .quad
 * words (both hosts are little-endian), a zero word as "0", lines of
 * zeros as one .zero, the tail as .byte. */
static enum ol_err bytes_as_asm(struct ol_buf *ir, const uint8_t *p, size_t n, uint64_t *zeros)
{
	char line[256];
	enum ol_err rc = OL_OK;

	for (size_t i = 0; i < n && !rc; i += 64) {
		size_t len = n - i < 64 ? n - i : 64, at = 0;
		bool zero = true;

		for (size_t k = 0; k < len && zero; k++)
			zero = p[i + k] == 0;
		if (zero) {
			*zeros += len;
			continue;
		}
		if (*zeros) {
			snprintf(line, sizeof(line), "\t.zero %llu", (unsigned long long)*zeros);
			rc = asm_line(ir, line, strlen(line));
			*zeros = 0;
		}
		at += (size_t)snprintf(line, sizeof(line), len >= 8 ? "\t.quad " : "\t.byte ");
		for (size_t k = 0; k + 8 <= len; k += 8) {
			uint64_t v = le64(p + i + k);

			at += (size_t)snprintf(line + at, sizeof(line) - at, v ? "%s0x%llx" : "%s0",
					       k ? "," : "", (unsigned long long)v);
		}
		if (len % 8 && len >= 8) {
			rc = rc ? rc : asm_line(ir, line, at);
			at = (size_t)snprintf(line, sizeof(line), "\t.byte ");
		}
		for (size_t k = len - len % 8; k < len; k++)
			at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%u",
					       k > len - len % 8 ? "," : "", p[i + k]);
		rc = rc ? rc : asm_line(ir, line, at);
	}
	return rc;
}

/* The file of input in, whole, in place of its .incbin: read with pread
 * through one buffer, formatted, flushed. */
static enum ol_err embed(struct writer *w, const struct input *in, const char *path)
{
	uint8_t *buf = malloc(CHUNK);
	uint64_t done = 0, zeros = 0;
	char tail[64];
	enum ol_err rc = buf ? OL_OK : ol_diag_set(w->d, OL_E_NOMEM, NULL, NULL);

	while (!rc && done < in->size) {
		size_t want = in->size - done < CHUNK ? (size_t)(in->size - done) : CHUNK;
		ssize_t n = pread(in->fd, buf, want, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = ol_diag_errno(w->d, errno, "cannot read", path);
		else if (n == 0)
			rc = ol_diag_set(w->d, OL_E_IO, NULL, "%s: shrank while offlink-wrapper read it "
					 "(changed during the run?)", path);
		else if (bytes_as_asm(&w->text, buf, (size_t)n, &zeros) || flush(w, false))
			rc = w->d->code ? w->d->code : ol_diag_set(w->d, OL_E_NOMEM, NULL, NULL);
		done += n > 0 ? (uint64_t)n : 0;
	}
	if (!rc && zeros) {
		snprintf(tail, sizeof(tail), "\t.zero %llu", (unsigned long long)zeros);
		if (asm_line(&w->text, tail, strlen(tail)))
			rc = ol_diag_set(w->d, OL_E_NOMEM, NULL, NULL);
	}
	free(buf);
	return rc;
}

/* The input whose token the line ".incbin \"<token>\"" names, or NULL. */
static const struct input *incbin_of(const char *p, size_t n, const struct input *in, size_t nin)
{
	static const char dir[] = "\t.incbin \"";

	if (n < sizeof(dir) || memcmp(p, dir, sizeof(dir) - 1) != 0 || p[n - 1] != '"')
		return NULL;
	for (size_t i = 0; i < nin; i++)
		if (n - sizeof(dir) == strlen(in[i].token) &&
		    !memcmp(p + sizeof(dir) - 1, in[i].token, n - sizeof(dir)))
			return &in[i];
	return NULL;
}

/* The module: a comment, the triple, the assembly line by line, each
 * .incbin replaced by the bytes it names. */
static enum ol_err write_module(const struct options *o, const struct ol_buf *s,
				const struct input *in, struct writer *w)
{
	const char *p = (const char *)s->data, *end = p + s->len;
	enum ol_err rc = ol_buf_printf(&w->text, "; the registration of %zu device image%s, "
				       "written by offlink-wrapper %s\ntarget triple = \"",
				       o->images.n, o->images.n == 1 ? "" : "s", OFFLINK_VERSION);

	for (const char *t = o->triple; *t && !rc; t++)
		rc = *t >= 0x20 && *t < 0x7f && *t != '"' && *t != '\\' ? ol_buf_append(&w->text, t, 1)
			: ol_buf_printf(&w->text, "\\%02X", (unsigned char)*t);
	rc = rc ? ol_diag_set(w->d, rc, NULL, NULL) : ol_buf_puts(&w->text, "\"\n\n");
	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		const struct input *img = incbin_of(p, n, in, o->images.n);

		if (img)
			rc = embed(w, img, o->images.v[img - in]);
		else if (asm_line(&w->text, p, n) || flush(w, false))
			rc = w->d->code ? w->d->code : ol_diag_set(w->d, OL_E_NOMEM, NULL, NULL);
		p = nl ? nl + 1 : end;
	}
	return rc ? rc : flush(w, true);
}

static enum ol_err write_output(const struct options *o, const struct ol_buf *s,
				const struct input *in, struct ol_diag *d)
{
	struct writer w = { .d = d };

	if (ol_out_open(&w.out, o->output, d))
		return d->code;
	if (write_module(o, s, in, &w)) {
		ol_out_abort(&w.out);
		ol_buf_free(&w.text);
		return d->code;
	}
	ol_buf_free(&w.text);
	return ol_out_commit(&w.out, false, d);
}

static int report(const struct ol_diag *d)
{
	ol_message_diag(tool, d);
	return d->code == OL_E_USAGE ? EXIT_USAGE : EXIT_ERROR;
}

static int run(struct options *o)
{
	struct ol_buf s = { 0 };
	struct input *in;
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
		return usage_error("%s", "--kind=openmp|cuda|hip|sycl is required");
	if (o->relocatable && o->kind != KIND_OPENMP)
		return usage_error("%s", "--relocatable is for OpenMP images (--kind=openmp)");
	if (o->mode == MODE_LLVM14)
		o->kind = KIND_OPENMP;
	if (!o->output)
		return usage_error("%s", "no output: -o <file> is required");
	if (!o->images.n)
		return usage_error("%s", "no input images");
	if (!o->triple)
		o->triple = OFFLINK_DEFAULT_HOST_TRIPLE;
	if (o->mode == MODE_LLVM14)
		release = 14;
	else if (!(release = ol_llvm_tool_release(o->llvm, &bad)))
		return usage_error("--llvm: %s", bad);
	if (!(a = asm_arch_of(o->triple))) {
		ol_message(tool, "error", "host triple %s: offlink-wrapper writes the registration for "
					  "x86_64 and aarch64 hosts", o->triple);
		return EXIT_ERROR;
	}
	if (!(in = calloc(o->images.n, sizeof(*in)))) {
		ol_diag_set(&d, OL_E_NOMEM, NULL, NULL);
		return report(&d);
	}
	for (size_t i = 0; i < o->images.n; i++)
		in[i].fd = -1;
	if (generate(o, release, a, in, &s, &d) || write_output(o, &s, in, &d))
		status = report(&d);
	for (size_t i = 0; i < o->images.n; i++)
		if (in[i].fd >= 0)
			close(in[i].fd);
	free(in);
	ol_buf_free(&s);
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
		       "and llvm-offload-wrapper (LLVM 22 to 24)\n", OFFLINK_VERSION);
	else if (rc == 0)
		rc = run(&o);
	ol_cleanup_run();
	ol_strvec_free(&o.images);
	ol_strvec_free(&args);
	return rc;
}
