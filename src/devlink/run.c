/* Running the device links: every group's steps as one job graph
 * (jobs/graph.h), in parallel on --wrapper-jobs process slots (default:
 * the number of CPUs) or make's job slots; a group's steps a chain, or
 * the graph its backend planned (a ThinLTO link).  Each group's inputs
 * are written just before its first step, its backend's finishing touch
 * made after its last, the cache told when a link starts and what it
 * made. */
#include "devlink/devlink.h"

#include <stdlib.h>
#include <string.h>

#include "common/message.h"
#include "devcache/cache.h"
#include "os/jobserver.h"
#include "os/scratch.h"
#include "targets/backend.h"
#include "thin/thinlto.h"

/* A group's inputs, written just before its first step: one archive of
 * all its images, or each image to its own file, straight from the
 * inputs' mappings (a ThinLTO link's modules into its own directory). */
static enum ol_err write_inputs(struct ol_link *l, struct ol_group *g, enum ol_prepared *what,
				struct ol_diag *d)
{
	struct ol_scratch_member *m;
	enum ol_err rc = OL_OK;

	if (g->cache == CACHE_HIT) {
		*what = OL_SKIP_JOB; /* the image is there: nothing to run */
		return OL_OK;
	}
	ol_cache_link_started(l, g);
	if (g->thin && (rc = ol_thin_prepare_dir(l, g, d)))
		return rc;
	if (!g->inputs_archive) {
		for (size_t i = 0; i < g->nimages && !rc; i++)
			rc = ol_scratch_write(ol_group_input_path(l, g, i), g->images[i]->entry->image,
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
static enum ol_err finish_image(struct ol_link *l, struct ol_group *g, struct ol_diag *d)
{
	enum ol_err rc;

	if (g->backend && g->backend->finish && (rc = g->backend->finish(l, g, d))) {
		ol_diag_prefix(d, "%s (%s)", g->steps[g->nsteps - 1].step, g->backend->finishing);
		return rc;
	}
	ol_cache_linked(l, g);
	return OL_OK;
}

/* One step as a node of the graph: the group's work around its first
 * and last steps, and the step's own. */
struct step_node {
	struct ol_link *l;
	struct ol_group *g;
	size_t s;
};

static enum ol_err step_prepare(void *ctx, enum ol_prepared *what, struct ol_diag *d)
{
	struct step_node *sn = ctx;
	const struct ol_step_sched *sc = &sn->g->sched[sn->s];
	enum ol_err rc;

	if (sn->s == 0 && ((rc = write_inputs(sn->l, sn->g, what, d)) || *what != OL_RUN))
		return rc;
	return sc->prepare ? sc->prepare(sc->ctx, what, d) : OL_OK;
}

static enum ol_err step_complete(void *ctx, struct ol_diag *d)
{
	struct step_node *sn = ctx;
	const struct ol_step_sched *sc = &sn->g->sched[sn->s];
	enum ol_err rc;

	if (sc->complete && (rc = sc->complete(sc->ctx, d)))
		return rc;
	return sn->s + 1 == sn->g->nsteps ? finish_image(sn->l, sn->g, d) : OL_OK;
}

/* Every group's steps into g (job i: group i); base[i]: its first node. */
static enum ol_err build_graph(struct ol_link *l, struct ol_graph *gr, struct step_node *sn,
			       size_t *base)
{
	size_t k = 0, index;
	enum ol_err rc;

	for (size_t i = 0; i < l->ngroups; i++) {
		struct ol_group *g = &l->groups[i];

		base[i] = gr->n;
		for (size_t s = 0; s < g->nsteps; s++, k++) {
			const struct ol_step_sched *sc = &g->sched[s];
			size_t *after = NULL, nafter = 0;
			struct ol_graph_node n = { 0 };

			if (sc->explicit_after) {
				nafter = sc->nafter;
				after = ol_arena_array(&l->arena, nafter ? nafter : 1, sizeof(*after));
				for (size_t a = 0; after && a < nafter; a++)
					after[a] = base[i] + sc->after[a];
			} else if (s) {
				nafter = 1;
				if ((after = ol_arena_array(&l->arena, 1, sizeof(*after))))
					after[0] = base[i] + s - 1;
			}
			if (nafter && !after)
				return OL_E_NOMEM;
			sn[k] = (struct step_node){ l, g, s };
			n.cmd = &g->steps[s];
			n.after = after;
			n.nafter = nafter;
			n.job = i;
			/* (a chain's place in it is its rank; of first steps, the
			 * one with least to write starts first) */
			n.rank = sc->explicit_after ? sc->rank : (unsigned)s;
			n.weight = sc->explicit_after ? sc->weight
				 : s ? 0 : -(int64_t)(g->inputs_archive ? 1 : g->nimages);
			if (!l->opt.dry_run) {
				n.prepare = step_prepare;
				n.complete = step_complete;
				n.ctx = &sn[k];
			}
			if ((rc = ol_graph_add(gr, &n, &index)))
				return rc;
		}
	}
	return OL_OK;
}

/* A group whose link failed under flags meant for another linker than
 * the one clang runs: once more, without them, its steps from the one
 * that failed. */
static void retry_plain(struct ol_link *l, struct ol_graph *gr, const size_t *base)
{
	for (size_t i = 0; i < l->ngroups; i++) {
		struct ol_graph_job *j = &gr->jobs[i];
		struct ol_group *g = &l->groups[i];
		size_t s;

		/* (j->status: a step failed, not the writing of its inputs) */
		if (!j->failed || !j->status || j->failed_node == SIZE_MAX ||
		    !ol_cache_retry_plain(l, g, j->failed_node - base[i]))
			continue;
		j->failed = false;
		ol_diag_clear(&j->diag);
		for (s = j->failed_node - base[i]; s < g->nsteps && !j->failed; s++) {
			int status;

			if (ol_run(&g->steps[s], &l->run, &status, &j->diag))
				j->failed = true;
		}
		if (!j->failed && finish_image(l, g, &j->diag))
			j->failed = true;
	}
}

enum ol_err ol_run_device_links(struct ol_link *l)
{
	size_t nsteps = 0, *base = calloc(l->ngroups ? l->ngroups : 1, sizeof(*base));
	struct step_node *sn;
	struct ol_graph gr;
	struct ol_jobserver js;
	struct ol_progress progress;
	enum ol_jobserver_state jst = OL_JOBSERVER_NONE;
	bool use_js = false, failed = false;
	enum ol_err rc;

	for (size_t i = 0; i < l->ngroups; i++)
		nsteps += l->groups[i].nsteps;
	sn = calloc(nsteps ? nsteps : 1, sizeof(*sn));
	if (!base || !sn || ol_graph_init(&gr, l->ngroups)) {
		free(base);
		free(sn);
		return OL_E_NOMEM;
	}
	if ((rc = build_graph(l, &gr, sn, base)))
		goto out;

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
	/* A status line on a terminal, as ninja's: a GPU link runs minutes
	 * and says nothing until it ends.  (-v prints each command.) */
	if (!l->opt.verbose && !l->opt.dry_run && ol_progress_begin(&progress, l->opt.progress, &gr))
		l->progress = &progress;
	/* (under make, the jobserver's tokens are the cap: as many
	 * processes as make gives slots) */
	rc = ol_graph_run(&gr, use_js ? (unsigned)(nsteps ? nsteps : 1) : l->opt.jobs, &l->run,
			  use_js ? &js : NULL);
	if (l->progress) {
		ol_progress_end(&progress);
		l->progress = NULL;
	}
	if (use_js)
		ol_jobserver_close(&js);
	if (rc == OL_E_NOMEM)
		goto out;
	rc = OL_OK;
	retry_plain(l, &gr, base);
	for (size_t i = 0; i < l->ngroups; i++) {
		failed |= gr.jobs[i].failed;
		if (l->groups[i].thin && !gr.jobs[i].failed && !gr.jobs[i].skipped)
			ol_thin_report(l, &l->groups[i]);
	}
	if (failed) {
		for (size_t i = 0; i < l->ngroups; i++) {
			char msg[2048];

			if (!gr.jobs[i].failed)
				continue;
			ol_diag_format(&gr.jobs[i].diag, msg, sizeof(msg));
			ol_link_errorf(l, "%s (device code from %s)", msg,
				       ol_group_origins(l, &l->groups[i]));
		}
		rc = OL_E_TOOL_FAILED;
	}
out:
	ol_graph_free(&gr);
	free(base);
	free(sn);
	return rc;
}

void ol_cache_store(void *ctx)
{
	struct ol_link *l = ctx;

	if (!l->cache_on || l->opt.dry_run || l->cache_stored)
		return;
	l->cache_stored = true;
	ol_cache_store_groups(l);
	ol_thin_store(l);
	ol_cache_flush(l);
}
