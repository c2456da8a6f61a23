/* A bounded pool of child processes for the device links (--wrapper-jobs).
 * A job is a chain of commands run one after another (clang, then ptxas,
 * then nvlink); chains run side by side, at most `jobs` processes at once.
 * No threads: one loop of posix_spawn and waitpid. */
#ifndef OFFLINK_OS_POOL_H
#define OFFLINK_OS_POOL_H

#include <stddef.h>
#include <sys/types.h>

#include "common/diag.h"
#include "os/spawn.h"

struct ol_job {
	struct ol_cmd *steps;
	size_t nsteps;
	/* Called just before the first step starts (writing the job's input
	 * files), or NULL; an error fails the job with d; setting done to
	 * nsteps finishes it without running anything (a cache hit). */
	enum ol_err (*prepare)(struct ol_job *j, void *ctx, struct ol_diag *d);
	/* Called when the last step has succeeded (work done in process
	 * on what the steps made), or NULL; an error fails the job with d. */
	enum ol_err (*complete)(struct ol_job *j, void *ctx, struct ol_diag *d);
	void *ctx;
	/* How much prepare writes (files), to start cheap jobs first: a chain
	 * whose inputs take a moment to write then runs while the next one's
	 * are being written, not after. */
	size_t prepare_cost;
	/* results */
	size_t done;         /* steps that finished successfully */
	int failed;          /* 1 if a step failed; diag says why */
	int status;          /* wait status of the failed step */
	struct ol_diag diag;
	/* pool bookkeeping */
	pid_t pid;
	int running;
	double started_us;
};

/* Run every job, at most max_procs processes at a time.  A free slot goes
 * to the job with the fewest steps done (then the cheapest prepare, then
 * the first): every chain
 * gets its first step before any gets its second, so a short link never
 * waits behind two long chains.  A failing chain
 * stops; the others run to the end so every failure is reported in one go.
 * Returns OL_E_TOOL_FAILED if any job failed (each job's diag says which
 * step and why); under dry_run prints every command and runs none. */
struct ol_jobserver;

/* js, when not NULL: make's jobserver (os/jobserver.h): beyond the one
 * slot the link holds, each further process at the same time needs a
 * token from it, and tokens go back as processes end. */
enum ol_err ol_pool_run(struct ol_job *jobs, size_t njobs, unsigned max_procs,
			const struct ol_run_opts *o, struct ol_jobserver *js);

#endif
