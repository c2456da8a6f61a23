/* run_host_linker: the original command line, in order, with the wrapper
 * objects right after "-o <output>" (as LLVM places them: before crt1.o,
 * inside a --start-group that holds -o) and the output written in a
 * private directory beside it, under its own base name (os/outfile.c),
 * the files that name the output redirected (host_files.c).  The linker's
 * exit status is passed through. */
#include "driver/phases.h"

#include "devlink/devlink.h"

#include "driver/host_files.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Raw offload binaries are device code only, consumed here: the host
 * linker could not read them (LLVM's tool passes them on and ld fails). */
static bool consumed(const struct ol_link *l, size_t arg)
{
	for (size_t i = 0; i < l->ninputs; i++)
		if (l->inputs[i].type == INPUT_OFFLOAD &&
		    l->inputs[i].item->host_arg == (long)arg)
			return true;
	return false;
}

/* CUDA's device runtime offlink added (cuda_devrt.c), when its module is
 * linked: after the registration objects, whose reference to the
 * module's __fatbinwrap<ID> takes its host object, as nvcc's link line
 * has -lcudadevrt. */
static void push_wrappers(struct ol_link *l, struct ol_cmd *c)
{
	bool devrt = false;

	for (size_t k = 0; k < l->nwrappers; k++)
		ol_strvec_push(&c->argv, l->wrappers[k].object_path);
	for (size_t i = 0; l->cuda_devrt && i < l->nimages && !devrt; i++)
		devrt = l->images[i].taken && l->images[i].input == l->cuda_devrt;
	if (devrt)
		ol_strvec_push(&c->argv, l->cuda_devrt->path);
}

static enum ol_err build_command(struct ol_link *l, struct ol_cmd *c,
				 const char *out_path)
{
	c->step = strdup("host link");
	c->response_file = true; /* GNU ld, gold, lld and mold all read @file */
	ol_strvec_push(&c->argv, l->opt.linker_path);
	for (size_t i = 0; i < l->host_args.n; i++) {
		const char *a = l->host_args.v[i];

		if (i == l->wrappers_at)
			push_wrappers(l, c);
		if (consumed(l, i))
			continue;
		if (ol_host_file_arg(l, i))
			ol_strvec_push(&c->argv, ol_host_file_arg(l, i));
		else if ((long)i == l->output_arg)
			ol_strvec_pushf(&c->argv, "%.*s%s", (int)l->output_prefix, a,
					out_path);
		else
			ol_strvec_push(&c->argv, a);
	}
	if (l->wrappers_at >= l->host_args.n)
		push_wrappers(l, c);
	return c->argv.err || !c->step ? OL_E_NOMEM : OL_OK;
}

enum ol_err ol_run_host_linker(struct ol_link *l)
{
	struct ol_cmd c = { 0 };
	struct ol_diag d;
	int status = 0;
	enum ol_err rc;

	ol_diag_clear(&d);
	if (ol_plan_host_files(l))
		return OL_E_NOMEM;
	if (!l->opt.dry_run) {
		if (ol_out_reserve(&l->out, l->output, &d)) {
			ol_link_error(l, &d);
			return d.code;
		}
		l->out_open = true;
	}
	rc = build_command(l, &c, l->opt.dry_run ? l->output : ol_out_path(&l->out));
	/* (the device-link cache stores what the links made meanwhile) */
	if (!rc && ol_run_while(&c, &l->run, &status, &d, ol_cache_store, l)) {
		rc = d.code;
		/* The linker said what was wrong; name the step, keep its status. */
		ol_link_error(l, &d);
		if (WIFEXITED(status))
			l->exit_status = WEXITSTATUS(status);
	}
	ol_cmd_free(&c);
	/* -M, -Map=-: the map goes where the linker would have printed it */
	if (ol_deliver_host_files(l, true) && !rc)
		rc = OL_E_IO;
	return rc;
}
