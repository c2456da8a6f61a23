/* offlink-bundler's pieces (src/bundler/): the options, reading bundles
 * from any input, host objects with bundle sections, archive unbundling. */
#ifndef OFFLINK_BUNDLER_BUNDLER_H
#define OFFLINK_BUNDLER_BUNDLER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/strvec.h"
#include "format/bundle.h"
#include "format/bundle_id.h"
#include "format/ccob.h"
#include "os/mapfile.h"

struct bundler {
	const char *argv0;
	char *type;
	struct ol_strvec targets, inputs, outputs;
	bool unbundle, list, allow_missing, check_archive, compress;
	bool verbose, hip_openmp, print_only, help, version;
	bool each_bundle;       /* -each-bundle: every bundle of an input, not the first */
	uint64_t align;
	int level;              /* below -5: not given (zstd's 3 then) */
	unsigned ccob_version;  /* written: 2 (LLVM 19) or 3 (22); 0 not chosen */
	char *llvm;             /* -llvm=<release> */
	unsigned release;       /* the LLVM release whose bundler is matched */
	struct ol_bundle_id *ids; /* parsed -targets, in order */
	size_t nids;
};

/* The bundles of one input: decompressed if it was a CCOB, read from the
 * sections of a host object for -type=o, or decoded as a binary or text
 * bundle.  An input without any bundle has n == 0 (not an error). */
struct loaded {
	struct ol_map map;          /* when read from a file (else unused) */
	struct ol_buf inflated;     /* the decompressed bundle, if any */
	const uint8_t *data;        /* the bundle bytes (map or inflated) */
	size_t len;
	bool object;                /* a host object with bundle sections */
	struct ol_bundle bundle;
	struct ol_bundle_id *ids;   /* parsed entry IDs */
	char **section_names;       /* -type=o: the section of each entry */
};

/* From path, or from p[0..len) when p is not NULL (an archive member). */
enum ol_err load_bundles(const struct bundler *b, const char *path,
			 const uint8_t *p, size_t len, struct loaded *out,
			 struct ol_diag *d);
void loaded_free(struct loaded *l);

/* Every bundle of the input file, in order (format/bundle_seq.h: a
 * library's .hip_fatbin holds one per translation unit, back to back);
 * a host object's sections, a text bundle, or a file with no bundle at
 * all are one.  The bundles are loaded one at a time (seq_load), each
 * freed before the next: a sequence of compressed bundles never holds
 * more than one of them inflated. */
struct bundle_seq {
	struct ol_map map;
	struct ol_span *spans;  /* where each bundle is; NULL: one, the whole file */
	size_t n;               /* bundles */
};
enum ol_err load_sequence(const struct bundler *b, const char *path, struct bundle_seq *s,
			  struct ol_diag *d);
/* Bundle k of s into *l (loaded_free it); an error names the bundle and
 * its offset when the file holds several. */
enum ol_err seq_load(const struct bundler *b, const char *path, const struct bundle_seq *s,
		     size_t k, struct loaded *l, struct ol_diag *d);
void bundle_seq_free(struct bundle_seq *s);

/* Target i's entry ID as the release writes it: LLVM 16 as given, later
 * releases in the standard form (host-x86_64-unknown-linux-gnu-). */
static inline const char *bundle_id_text(const struct bundler *b, size_t i)
{
	return b->release <= 16 ? b->targets.v[i] : b->ids[i].text;
}

/* True if p is an ELF relocatable object (the host of -type=o). */
bool is_host_object(const uint8_t *p, size_t len);

/* -type=o: add one section per target to the host object (through
 * objcopy, as LLVM does); host's section holds one zero byte. */
enum ol_err bundle_object(const struct bundler *b, const char *host_input,
			  const char *const *files, const char *output,
			  struct ol_diag *d);
/* -type=o: the host object without its bundle sections. */
enum ol_err strip_object(const struct bundler *b, const char *input,
			 const struct loaded *l, const char *output,
			 struct ol_diag *d);

/* -unbundle -type=a. */
enum ol_err unbundle_archive(const struct bundler *b, struct ol_diag *d);

/* Print compression statistics as LLVM's -verbose does. */
void print_compress_stats(const struct ol_ccob_info *i, int level, double secs);
void print_decompress_stats(const struct ol_ccob_info *i, double secs);

/* The objcopy offlink-bundler runs (LLVM runs llvm-objcopy). */
char *find_objcopy(const struct bundler *b);

#endif
