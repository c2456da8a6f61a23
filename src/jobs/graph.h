/* The job graph (src/jobs/): commands, each with the commands it waits
 * for, run side by side on a bounded number of process slots
 * (--wrapper-jobs) and, under make -j, make's job slots.  A device link
 * used to be a chain (clang, then ptxas, then nvlink); a ThinLTO link is
 * a graph: one thin link, then a backend and a ptxas per module, each
 * module as soon as its own inputs are there, then one nvlink of all.
 * A chain is the graph whose every node waits for the one before.
 *
 * Nodes belong to jobs (a job: one group's link); a node that fails stops
 * its job -- what of it has not started never starts -- and the other
 * jobs run to their end, so every failure is reported in one go.  Work
 * in offlink's own process goes before and after a node's command
 * (prepare: write its inputs, find its result in a cache; complete: what
 * is made from its output).  No threads: one loop of posix_spawn and
 * waitpid. */
#ifndef OFFLINK_JOBS_GRAPH_H
#define OFFLINK_JOBS_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/diag.h"
#include "os/spawn.h"

struct ol_jobserver;

/* What a node's prepare decided. */
enum ol_prepared {
	OL_RUN,        /* run the command */
	OL_SKIP_NODE,  /* its result is there already: done without running */
	OL_SKIP_JOB,   /* the job's result is there: every node of it is done */
};

struct ol_graph_node {
	const struct ol_cmd *cmd;  /* what it runs, or NULL: its hooks only */
	const size_t *after;       /* the nodes it waits for (earlier ones) */
	size_t nafter;
	size_t job;                /* the job it belongs to (< njobs) */
	/* Among nodes ready to start: the lowest rank first, then the
	 * heaviest, then the first added.  A chain's nodes take their place
	 * in it as rank, so that every chain gets its first step before any
	 * gets its second and a short link never waits behind long ones. */
	unsigned rank;
	int64_t weight;
	/* Just before it starts (its inputs are there), or NULL; an error
	 * fails its job with d. */
	enum ol_err (*prepare)(void *ctx, enum ol_prepared *what, struct ol_diag *d);
	/* After its command succeeded (or, with no command, after prepare),
	 * or NULL; an error fails its job with d. */
	enum ol_err (*complete)(void *ctx, struct ol_diag *d);
	void *ctx;
	/* state, the graph's own */
	enum { NODE_WAITING, NODE_RUNNING, NODE_DONE, NODE_SKIPPED, NODE_FAILED,
	       NODE_CANCELLED } state;
	size_t pending;            /* nodes it still waits for */
	pid_t pid;
	double started_us;
};

struct ol_graph_job {
	bool failed;
	size_t failed_node;        /* the node that failed (SIZE_MAX: none ran) */
	int status;                /* the wait status of its command, or 0 */
	struct ol_diag diag;       /* why */
	bool skipped;              /* its prepare found the job's result */
};

/* Where the run stands, for a progress display (jobs/progress.h): what a
 * build tool's status line shows. */
struct ol_graph_status {
	size_t done, total;        /* commands ended, run or not (a cache hit,
				    * a job stopped), of all */
	size_t running;
	const struct ol_cmd *longest; /* the running command started first, or NULL */
	double longest_since_us;   /* when it started (ol_now_us) */
	bool last;                 /* the run is over */
};

struct ol_graph {
	struct ol_graph_node *nodes;
	size_t n, cap;
	struct ol_graph_job *jobs;
	size_t njobs;
	size_t *succ, *succ_at;    /* (ol_graph_run) who waits for whom */
	/* Told where the run stands when it changes (at most ten times a
	 * second) and twice a second while it waits, or NULL. */
	void (*on_status)(void *ctx, const struct ol_graph_status *s);
	void *status_ctx;
	size_t ndone, ntotal;      /* (ol_graph_run) commands ended, of all */
	double status_at_us;       /* when it was last told */
};

/* A graph of njobs jobs and no nodes yet. */
enum ol_err ol_graph_init(struct ol_graph *g, size_t njobs);
/* Add a copy of node (its after[] stays the caller's); its index in
 * *index.  Every node it waits for must be added before it. */
enum ol_err ol_graph_add(struct ol_graph *g, const struct ol_graph_node *node, size_t *index);

/* Run every node, at most max_procs processes at a time (js, when not
 * NULL: beyond the one slot the link holds, each further process needs a
 * token from make's jobserver, given back as processes end).  Under
 * o->dry_run, prints every command in the order added and runs nothing
 * (no hooks).  OL_E_TOOL_FAILED if any job failed (its record says which
 * node and why). */
enum ol_err ol_graph_run(struct ol_graph *g, unsigned max_procs, const struct ol_run_opts *o,
			 struct ol_jobserver *js);

/* Nodes of job that ran their command, and that were skipped. */
void ol_graph_job_counts(const struct ol_graph *g, size_t job, size_t *ran, size_t *skipped);

void ol_graph_free(struct ol_graph *g);

#endif
