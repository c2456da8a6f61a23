/* -type=o with a host object: the bundle lives in sections named
 * __CLANG_OFFLOAD_BUNDLE__<id>, added (readonly, exclude) to a copy of
 * the host object and stripped from it again, with objcopy as LLVM does
 * (llvm-objcopy, else GNU objcopy; both take these options). */
#include "bundler/bundler.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/cleanup.h"
#include "os/findprog.h"
#include "os/llvm_install.h"
#include "os/outfile.h"
#include "os/spawn.h"

/* The release's llvm-objcopy (what its bundler runs), else one on PATH,
 * else GNU objcopy; $OFFLINK_OBJCOPY wins. */
char *find_objcopy(const struct bundler *b)
{
	static const char *const names[] = { "llvm-objcopy", "objcopy", NULL };
	const char *env = getenv("OFFLINK_OBJCOPY");
	char *bin, *found = NULL;

	if (env && *env)
		return ol_find_in_path(env);
	if ((bin = ol_llvm_find_release(b->release, NULL, 0))) {
		found = ol_find_in_dir(bin, "llvm-objcopy");
		free(bin);
	}
	return found ? found : ol_find_tool(b->argv0, NULL, names);
}

static enum ol_err run_objcopy(const struct bundler *b, struct ol_cmd *c,
			       const char *output, struct ol_diag *d)
{
	struct ol_run_opts o = { .verbose = b->verbose, .dry_run = b->print_only };
	struct ol_outfile out;
	int status;

	if (b->print_only) {
		ol_strvec_push(&c->argv, output);
		return ol_run(c, &o, &status, d);
	}
	if (ol_out_reserve(&out, output, d))
		return d->code;
	ol_strvec_push(&c->argv, ol_out_path(&out));
	if (c->argv.err) {
		ol_out_abort(&out);
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	if (ol_run(c, &o, &status, d)) {
		ol_out_abort(&out);
		return d->code;
	}
	return ol_out_commit(&out, false, d);
}

/* A file holding one zero byte: the host's section content. */
static enum ol_err host_marker(char *path, size_t len, struct ol_diag *d)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(path, len, "%s/offlink-bundler-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return ol_diag_errno(d, errno, "cannot create a temporary file", path);
	ol_cleanup_add_file(path);
	if (write(fd, "", 1) != 1) {
		close(fd);
		return ol_diag_errno(d, errno, "cannot write", path);
	}
	close(fd);
	return OL_OK;
}

enum ol_err bundle_object(const struct bundler *b, const char *host_input,
			  const char *const *files, const char *output,
			  struct ol_diag *d)
{
	struct ol_cmd c = { 0 };
	char marker[4096];
	char *tool = find_objcopy(b);
	enum ol_err rc;

	if (!tool)
		return ol_diag_set(d, OL_E_NOT_FOUND, NULL,
				   "-type=o needs llvm-objcopy or objcopy; neither was found");
	if (host_marker(marker, sizeof(marker), d)) {
		free(tool);
		return d->code;
	}
	c.step = strdup("bundle object");
	ol_strvec_push(&c.argv, tool);
	for (size_t i = 0; i < b->nids; i++) {
		const char *id = bundle_id_text(b, i);

		ol_strvec_pushf(&c.argv, "--add-section=%s%s=%s", OL_BUNDLE_MAGIC, id,
				ol_bundle_id_is_host(&b->ids[i]) ? marker : files[i]);
		ol_strvec_pushf(&c.argv, "--set-section-flags=%s%s=readonly,exclude",
				OL_BUNDLE_MAGIC, id);
	}
	ol_strvec_push(&c.argv, "--");
	ol_strvec_push(&c.argv, host_input);
	rc = run_objcopy(b, &c, output, d);
	unlink(marker);
	ol_cleanup_forget(marker);
	ol_cmd_free(&c);
	free(tool);
	return rc;
}

enum ol_err strip_object(const struct bundler *b, const char *input,
			 const struct loaded *l, const char *output,
			 struct ol_diag *d)
{
	struct ol_cmd c = { 0 };
	char *tool = find_objcopy(b);
	enum ol_err rc;

	if (!tool)
		return ol_diag_set(d, OL_E_NOT_FOUND, NULL,
				   "-type=o needs llvm-objcopy or objcopy; neither was found");
	c.step = strdup("unbundle host object");
	ol_strvec_push(&c.argv, tool);
	for (size_t i = 0; i < l->bundle.n; i++)
		ol_strvec_pushf(&c.argv, "--remove-section=%s", l->section_names[i]);
	ol_strvec_push(&c.argv, "--");
	ol_strvec_push(&c.argv, input);
	rc = run_objcopy(b, &c, output, d);
	ol_cmd_free(&c);
	free(tool);
	return rc;
}
