/* Running the device links: one chain of commands per group, in parallel
 * through the process pool (--wrapper-jobs, default: the number of CPUs,
 * or make's job slots), each group's inputs written just before its first
 * step, its backend's finishing touch after its last, the cache told when
 * a link starts and what it made. */
#include "devlink/backend.h"

#include <stdlib.h>
#include <string.h>

#include "common/message.h"
#include "devlink/cache.h"
#include "os/jobserver.h"
#include "os/pool.h"
#include "os/scratch.h"

/* A group's inputs, written by the pool just before its first step: one
 * archive of all its images, or each image to its own file, straight from
 * the inputs' mappings. */
struct group_inputs {
	struct ol_link *l;
	struct ol_group *g;
};

static enum ol_err write_inputs(struct ol_job *j, void *ctx, struct ol_diag *d)
{
	struct group_inputs *gi = ctx;
	struct ol_group *g = gi->g;
	struct ol_scratch_member *m;
	enum ol_err rc = OL_OK;

	if (g->cache == CACHE_HIT) {
		j->done = j->nsteps; /* the image is there: nothing to run */
		return OL_OK;
	}
	ol_cache_link_started(gi->l, g);
	if (!g->inputs_archive) {
		for (size_t i = 0; i < g->nimages && !rc; i++)
			rc = ol_scratch_write(ol_group_input_path(gi->l, g, i), g->images[i]->entry->image,
					      (size_t)g->images[i]->entry->image_size, d);
		return rc;
	}
	m = calloc(g->nimages ? g->nimages : 1, sizeof(*m));
	if (!m)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	for (size_t i = 0; i < g->nimages; i++)
		m[i] = (struct ol_scratch_member){ g->images[i]->entry->image,
						   (size_t)g->images[i]->entry->image_size };
	rc = ol_scratch_archive(g->inputs_archive, m, g->nimages, d);
	free(m);
	return rc;
}

/* After the last step: the image made from what the link wrote, then
 * stored in the cache. */
static enum ol_err finish_image(struct ol_job *j, void *ctx, struct ol_diag *d)
{
	struct group_inputs *gi = ctx;
	enum ol_err rc;

	if (gi->g->backend && gi->g->backend->finish && (rc = gi->g->backend->finish(gi->g, d))) {
		ol_diag_prefix(d, "%s (%s)", j->steps[j->nsteps - 1].step, gi->g->backend->finishing);
		return rc;
	}
	ol_cache_linked(gi->l, gi->g);
	return OL_OK;
}

/* A group whose link failed under flags meant for another linker than
 * the one clang runs: once more, without them. */
static void retry_plain(struct ol_link *l, struct ol_job *jobs, struct group_inputs *gi)
{
	for (size_t i = 0; i < l->ngroups; i++) {
		struct ol_job *j = &jobs[i];

		/* (j->done: the step that failed, when a step failed, not the
		 * writing of its inputs: j->status holds its wait status) */
		if (!j->failed || !j->status || !ol_cache_retry_plain(l, &l->groups[i], j->done))
			continue;
		j->failed = 0;
		j->done = 0;
		ol_diag_clear(&j->diag);
		for (; j->done < j->nsteps && !j->failed; j->done++) {
			int status;

			if (ol_run(&j->steps[j->done], &l->run, &status, &j->diag))
				j->failed = 1;
		}
		if (!j->failed && finish_image(j, &gi[i], &j->diag))
			j->failed = 1;
	}
}

enum ol_err ol_run_device_links(struct ol_link *l)
{
	struct ol_job *jobs = calloc(l->ngroups ? l->ngroups : 1, sizeof(*jobs));
	struct group_inputs *gi = calloc(l->ngroups ? l->ngroups : 1, sizeof(*gi));
	struct ol_jobserver js;
	enum ol_jobserver_state jst = OL_JOBSERVER_NONE;
	bool use_js = false, failed = false;
	enum ol_err rc = OL_OK;
	size_t njobs = l->ngroups;

	if (!jobs || !gi) {
		free(jobs);
		free(gi);
		return OL_E_NOMEM;
	}
	for (size_t i = 0; i < l->ngroups; i++) {
		gi[i] = (struct group_inputs){ l, &l->groups[i] };
		jobs[i].steps = l->groups[i].steps;
		jobs[i].nsteps = l->groups[i].nsteps;
		jobs[i].prepare = l->opt.dry_run ? NULL : write_inputs;
		jobs[i].complete = l->opt.dry_run ? NULL : finish_image;
		jobs[i].ctx = &gi[i];
		jobs[i].prepare_cost = l->groups[i].inputs_archive ? 1 : l->groups[i].nimages;
	}

	/* Under make -j (or --wrapper-jobs=jobserver), make's slots decide;
	 * a number given with --wrapper-jobs wins. */
	if (l->opt.jobs_mode != JOBS_GIVEN && !l->opt.dry_run)
		jst = ol_jobserver_open(&js, getenv("MAKEFLAGS"));
	if (jst == OL_JOBSERVER_REFUSED)
		ol_link_warnf(l, "MAKEFLAGS names a jobserver that offlink does not use (%s); "
				 "device links run %u at a time", js.what, l->opt.jobs);
	if (jst == OL_JOBSERVER_OK) {
		use_js = true;
		if (l->opt.verbose)
			ol_message("offlink", NULL, "device links share make's job slots (jobserver %s)",
				   js.what);
	} else if (l->opt.jobs_mode == JOBS_JOBSERVER && l->opt.verbose) {
		ol_message("offlink", NULL, "--wrapper-jobs=jobserver: no jobserver in MAKEFLAGS; "
					    "%u device links at a time", l->opt.jobs);
	}
	ol_pool_run(jobs, njobs, use_js ? (unsigned)njobs : l->opt.jobs, &l->run, use_js ? &js : NULL);
	if (use_js)
		ol_jobserver_close(&js);
	retry_plain(l, jobs, gi);
	for (size_t i = 0; i < l->ngroups; i++)
		failed |= jobs[i].failed != 0;
	if (failed) {
		for (size_t i = 0; i < l->ngroups; i++) {
			char msg[2048];

			if (!jobs[i].failed)
				continue;
			ol_diag_format(&jobs[i].diag, msg, sizeof(msg));
			ol_link_errorf(l, "%s (device code from %s)", msg,
				       ol_group_origins(l, &l->groups[i]));
		}
		rc = OL_E_TOOL_FAILED;
	}
	free(jobs);
	free(gi);
	return rc;
}
