#include "os/pool.h"

#include <errno.h>
#include <sys/wait.h>

#include "os/cleanup.h"
#include "os/jobserver.h"

/* Start the next step of job j; returns 1 if a process was started. */
static int start_next(struct ol_job *j, const struct ol_run_opts *o)
{
	if (j->failed || j->done >= j->nsteps)
		return 0;
	if (j->done == 0 && j->prepare && j->prepare(j, j->ctx, &j->diag)) {
		j->failed = 1;
		return 0;
	}
	if (j->done >= j->nsteps)
		return 0; /* prepare finished it */
	j->started_us = ol_now_us();
	if (ol_spawn(&j->steps[j->done], o, &j->pid, &j->diag)) {
		j->failed = 1;
		return 0;
	}
	j->running = 1;
	return 1;
}

static struct ol_job *find_job(struct ol_job *jobs, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (jobs[i].running && jobs[i].pid == pid)
			return &jobs[i];
	return NULL;
}

static void finish_step(struct ol_job *j, int status, const struct ol_run_opts *o)
{
	j->running = 0;
	ol_cleanup_forget_child(j->pid);
	if (o && o->child_done)
		o->child_done(o->child_ctx, &j->steps[j->done], j->started_us, ol_now_us());
	if (ol_check_status(&j->steps[j->done], status, &j->diag)) {
		j->failed = 1;
		j->status = status;
		return;
	}
	if (++j->done == j->nsteps && j->complete && j->complete(j, j->ctx, &j->diag))
		j->failed = 1;
}

static enum ol_err dry_run_all(struct ol_job *jobs, size_t n,
			       const struct ol_run_opts *o)
{
	int status;

	for (size_t i = 0; i < n; i++)
		for (size_t s = 0; s < jobs[i].nsteps; s++)
			ol_run(&jobs[i].steps[s], o, &status, &jobs[i].diag);
	return OL_OK;
}

/* The runnable job with the fewest steps done, among those the one whose
 * prepare is cheapest (only a job's first step has one), or NULL. */
static struct ol_job *next_job(struct ol_job *jobs, size_t n)
{
	struct ol_job *best = NULL;

	for (size_t i = 0; i < n; i++) {
		struct ol_job *j = &jobs[i];

		if (j->running || j->failed || j->done >= j->nsteps)
			continue;
		if (!best || j->done < best->done ||
		    (j->done == best->done && j->done == 0 && j->prepare_cost < best->prepare_cost))
			best = j;
	}
	return best;
}

/* Keep only the tokens the running processes need: all but the first. */
static void give_spare_tokens(struct ol_jobserver *js, size_t running)
{
	while (js && js->held > (running ? running - 1 : 0))
		ol_jobserver_give(js);
}

/* Whether one more process may start: under the cap, and beyond the first
 * with a token from make's jobserver. */
static bool slot_free(struct ol_jobserver *js, size_t running, unsigned max_procs)
{
	if (running >= max_procs)
		return false;
	return !js || running < 1 + js->held || ol_jobserver_try_take(js);
}

enum ol_err ol_pool_run(struct ol_job *jobs, size_t njobs, unsigned max_procs,
			const struct ol_run_opts *o, struct ol_jobserver *js)
{
	size_t running = 0;
	int any_failed = 0;
	struct ol_job *j;

	if (o && o->dry_run)
		return dry_run_all(jobs, njobs, o);
	if (max_procs == 0)
		max_procs = 1;
	for (;;) {
		while ((j = next_job(jobs, njobs)) && slot_free(js, running, max_procs))
			if (start_next(j, o))
				running++;
		give_spare_tokens(js, running);
		if (running == 0)
			break;
		int status;
		pid_t pid = waitpid(-1, &status, 0);

		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		j = find_job(jobs, njobs, pid);
		if (!j)
			continue;
		running--;
		finish_step(j, status, o);
	}
	for (size_t i = 0; i < njobs; i++)
		any_failed |= jobs[i].failed;
	return any_failed ? OL_E_TOOL_FAILED : OL_OK;
}
