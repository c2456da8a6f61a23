/* finish_relocatable: after `ld -r`, make the output a self-contained
 * piece of a program, as LLVM 19 does:
 *   - remove the .llvm.offloading sections of the inputs: their device
 *     code is linked and registered now (in .llvm.offloading.relocatable),
 *     and must not be linked again;
 *   - rename each entries section and its __start_/__stop_ symbols with a
 *     suffix made from the output's MD5, so several pre-linked objects in
 *     one program each register exactly their own entries.
 *
 * The edit is done by objcopy: llvm-objcopy when one is found (what LLVM
 * runs), else GNU objcopy, which every GNU toolchain has; $OFFLINK_OBJCOPY
 * picks one.  Both keep SHT_LLVM_OFFLOADING sections and the
 * relocations of renamed sections intact (docs/design.md). */
#include "driver/phases.h"

#include <errno.h>
#include <inttypes.h>
#include <md5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link/llvm_release.h"
#include "os/findprog.h"
#include "os/mapfile.h"
#include "os/outfile.h"

static const char *const entry_sections[] = {
	"omp_offloading_entries", "cuda_offloading_entries",
	"hip_offloading_entries", "llvm_offload_entries",
};

/* "_" + the first 8 bytes of MD5(file) read as a little-endian number, in
 * hex: LLVM's suffix (MD5Result::low()). */
static enum ol_err suffix_of(struct ol_link *l, const char *path, char *out,
			     size_t len)
{
	uint8_t digest[MD5_DIGEST_LENGTH];
	struct ol_map m;
	struct ol_diag d;
	uint64_t low = 0;
	MD5_CTX ctx;

	ol_diag_clear(&d);
	if (ol_map_file(path, &m, &d)) {
		ol_link_error(l, &d);
		return d.code;
	}
	MD5Init(&ctx);
	MD5Update(&ctx, m.data, m.len);
	MD5Final(digest, &ctx);
	ol_unmap(&m);
	for (int i = 7; i >= 0; i--)
		low = low << 8 | digest[i];
	snprintf(out, len, "_%" PRIx64, low);
	return OL_OK;
}

/* The release's llvm-objcopy (what LLVM runs), else GNU objcopy. */
static char *find_objcopy(struct ol_link *l)
{
	char *tool = ol_llvm_tool(l, "llvm-objcopy", "OFFLINK_OBJCOPY");

	return tool ? tool : ol_find_in_path("objcopy");
}

static enum ol_err objcopy_command(struct ol_cmd *c, const char *tool, const char *suffix,
				   const char *in, const char *out)
{
	c->step = strdup("relocatable output");
	c->response_file = true;
	ol_strvec_push(&c->argv, tool);
	ol_strvec_push(&c->argv, "--remove-section=.llvm.offloading");
	for (size_t i = 0; i < sizeof(entry_sections) / sizeof(entry_sections[0]); i++) {
		const char *s = entry_sections[i];

		ol_strvec_pushf(&c->argv, "--rename-section=%s=%s%s", s, s, suffix);
		ol_strvec_pushf(&c->argv, "--redefine-sym=__start_%s=__start_%s%s", s, s, suffix);
		ol_strvec_pushf(&c->argv, "--redefine-sym=__stop_%s=__stop_%s%s", s, s, suffix);
	}
	ol_strvec_push(&c->argv, in);
	ol_strvec_push(&c->argv, out);
	return c->argv.err || !c->step ? OL_E_NOMEM : OL_OK;
}

enum ol_err ol_finish_relocatable(struct ol_link *l)
{
	struct ol_outfile edited = { 0 };
	char suffix[32] = "_<md5 of the output>";
	struct ol_cmd c = { 0 };
	struct ol_diag d;
	char *tool;
	int status;
	enum ol_err rc;

	if (!l->opt.relocatable)
		return OL_OK;
	tool = find_objcopy(l);
	if (!tool && !l->opt.dry_run) {
		ol_link_errorf(l, "-r needs objcopy (GNU binutils) or llvm-objcopy; "
				  "neither was found (set OFFLINK_OBJCOPY to choose one)");
		return OL_E_NOT_FOUND;
	}
	ol_diag_clear(&d);
	if (!l->opt.dry_run && (suffix_of(l, ol_out_path(&l->out), suffix, sizeof(suffix)) ||
				ol_out_reserve(&edited, l->output, &d))) {
		free(tool);
		return d.code ? d.code : OL_E_IO;
	}
	rc = objcopy_command(&c, tool ? tool : "objcopy", suffix,
			     l->opt.dry_run ? l->output : ol_out_path(&l->out),
			     l->opt.dry_run ? l->output : ol_out_path(&edited));
	if (!rc && ol_run(&c, &l->run, &status, &d)) {
		ol_link_error(l, &d);
		rc = d.code;
	}
	/* The edited copy takes the place of the linker's output. */
	if (!rc && !l->opt.dry_run &&
	    rename(ol_out_path(&edited), ol_out_path(&l->out)) != 0) {
		ol_diag_errno(&d, errno, "cannot replace", ol_out_path(&l->out));
		ol_link_error(l, &d);
		rc = OL_E_IO;
	}
	if (!l->opt.dry_run)
		ol_out_abort(&edited);
	ol_cmd_free(&c);
	free(tool);
	return rc;
}
