#include "jobs/graph.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/grow.h"
#include "os/cleanup.h"
#include "os/jobserver.h"

#define NONE SIZE_MAX
#define STATUS_EVERY_US 100000.0 /* a change is told at most this often */
#define STATUS_TICK_MS 500       /* and the elapsed time while nothing ends */

enum ol_err ol_graph_init(struct ol_graph *g, size_t njobs)
{
	memset(g, 0, sizeof(*g));
	g->jobs = calloc(njobs ? njobs : 1, sizeof(*g->jobs));
	if (!g->jobs)
		return OL_E_NOMEM;
	g->njobs = njobs;
	for (size_t i = 0; i < njobs; i++)
		g->jobs[i].failed_node = NONE;
	return OL_OK;
}

enum ol_err ol_graph_add(struct ol_graph *g, const struct ol_graph_node *node, size_t *index)
{
	struct ol_graph_node *n;

	/* Edges run from earlier nodes of the same job only: the graph has
	 * no cycle, and a failure stays inside its job. */
	if (node->job >= g->njobs)
		return OL_E_USAGE;
	for (size_t k = 0; k < node->nafter; k++)
		if (node->after[k] >= g->n || g->nodes[node->after[k]].job != node->job)
			return OL_E_USAGE;
	n = ol_grow(g->nodes, g->n, &g->cap, sizeof(*g->nodes), 16);
	if (!n)
		return OL_E_NOMEM;
	g->nodes = n;
	n = &g->nodes[g->n];
	*n = *node;
	n->state = NODE_WAITING;
	n->pending = node->nafter;
	n->pid = 0;
	*index = g->n++;
	return OL_OK;
}

/* succ[succ_at[i] .. succ_at[i+1]): the nodes that wait for node i. */
static enum ol_err link_successors(struct ol_graph *g)
{
	size_t total = 0, *fill;

	for (size_t i = 0; i < g->n; i++)
		total += g->nodes[i].nafter;
	g->succ_at = calloc(g->n + 1, sizeof(*g->succ_at));
	g->succ = calloc(total ? total : 1, sizeof(*g->succ));
	fill = calloc(g->n + 1, sizeof(*fill));
	if (!g->succ_at || !g->succ || !fill) {
		free(fill);
		return OL_E_NOMEM;
	}
	for (size_t i = 0; i < g->n; i++)
		for (size_t k = 0; k < g->nodes[i].nafter; k++)
			g->succ_at[g->nodes[i].after[k] + 1]++;
	for (size_t i = 0; i < g->n; i++)
		g->succ_at[i + 1] += g->succ_at[i];
	for (size_t i = 0; i < g->n; i++)
		for (size_t k = 0; k < g->nodes[i].nafter; k++) {
			size_t a = g->nodes[i].after[k];

			g->succ[g->succ_at[a] + fill[a]++] = i;
		}
	free(fill);
	return OL_OK;
}

/* Node i ends in state (done, skipped, failed, cancelled): one more of
 * the commands the status counts. */
static void ends(struct ol_graph *g, size_t i, int state)
{
	g->nodes[i].state = state;
	g->ndone += g->nodes[i].cmd != NULL;
}

static void settle(struct ol_graph *g, size_t i, int state)
{
	ends(g, i, state);
	for (size_t s = g->succ_at[i]; s < g->succ_at[i + 1]; s++)
		g->nodes[g->succ[s]].pending--;
}

/* Node i failed: its job stops; what of it has not started never will. */
static void fail(struct ol_graph *g, size_t i, int status)
{
	struct ol_graph_job *j = &g->jobs[g->nodes[i].job];

	ends(g, i, NODE_FAILED);
	if (!j->failed) {
		j->failed = true;
		j->failed_node = i;
		j->status = status;
	}
	for (size_t k = 0; k < g->n; k++)
		if (g->nodes[k].job == g->nodes[i].job && g->nodes[k].state == NODE_WAITING)
			ends(g, k, NODE_CANCELLED);
}

static void skip_job(struct ol_graph *g, size_t job)
{
	g->jobs[job].skipped = true;
	for (size_t k = 0; k < g->n; k++)
		if (g->nodes[k].job == job && g->nodes[k].state == NODE_WAITING)
			settle(g, k, NODE_SKIPPED);
}

/* The ready node to start next, or NONE. */
static size_t pick(const struct ol_graph *g)
{
	size_t best = NONE;

	for (size_t i = 0; i < g->n; i++) {
		const struct ol_graph_node *n = &g->nodes[i], *b;

		if (n->state != NODE_WAITING || n->pending)
			continue;
		if (best == NONE) {
			best = i;
			continue;
		}
		b = &g->nodes[best];
		if (n->rank < b->rank || (n->rank == b->rank && n->weight > b->weight))
			best = i;
	}
	return best;
}

/* After node i's command ended well (or it has none): its complete hook. */
static void completed(struct ol_graph *g, size_t i)
{
	struct ol_graph_node *n = &g->nodes[i];

	if (n->complete && n->complete(n->ctx, &g->jobs[n->job].diag)) {
		fail(g, i, 0);
		return;
	}
	settle(g, i, NODE_DONE);
}

/* Prepare node i and start its command; true if a process was started. */
static bool start(struct ol_graph *g, size_t i, const struct ol_run_opts *o)
{
	struct ol_graph_node *n = &g->nodes[i];
	struct ol_diag *d = &g->jobs[n->job].diag;
	enum ol_prepared what = OL_RUN;

	if (n->prepare && n->prepare(n->ctx, &what, d)) {
		fail(g, i, 0);
		return false;
	}
	if (what == OL_SKIP_JOB) {
		skip_job(g, n->job);
		return false;
	}
	if (what == OL_SKIP_NODE) {
		settle(g, i, NODE_SKIPPED);
		return false;
	}
	if (!n->cmd) {
		completed(g, i);
		return false;
	}
	n->started_us = ol_now_us();
	if (ol_spawn(n->cmd, o, &n->pid, d)) {
		fail(g, i, 0);
		return false;
	}
	n->state = NODE_RUNNING;
	return true;
}

static void ended(struct ol_graph *g, size_t i, int status, const struct ol_run_opts *o)
{
	struct ol_graph_node *n = &g->nodes[i];

	ol_cleanup_forget_child(n->pid);
	if (o && o->child_done)
		o->child_done(o->child_ctx, n->cmd, n->started_us, ol_now_us());
	if (ol_check_status(n->cmd, status, &g->jobs[n->job].diag)) {
		fail(g, i, status);
		return;
	}
	if (g->jobs[n->job].failed) { /* another node of its job failed meanwhile */
		ends(g, i, NODE_CANCELLED);
		return;
	}
	completed(g, i);
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

static size_t find_running(const struct ol_graph *g, pid_t pid)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->nodes[i].state == NODE_RUNNING && g->nodes[i].pid == pid)
			return i;
	return NONE;
}

static enum ol_err dry_run(struct ol_graph *g, const struct ol_run_opts *o)
{
	int status;

	for (size_t i = 0; i < g->n; i++)
		if (g->nodes[i].cmd)
			ol_run(g->nodes[i].cmd, o, &status, &g->jobs[g->nodes[i].job].diag);
	return OL_OK;
}

/* Tell on_status where the run stands: always when forced (a tick, the
 * end), else when the last telling is STATUS_EVERY_US old. */
static void tell_status(struct ol_graph *g, size_t running, bool force, bool last)
{
	struct ol_graph_status s = { g->ndone, g->ntotal, running, NULL, 0, last };
	double now = ol_now_us();

	if (!g->on_status || (!force && now - g->status_at_us < STATUS_EVERY_US))
		return;
	g->status_at_us = now;
	for (size_t i = 0; i < g->n; i++)
		if (g->nodes[i].state == NODE_RUNNING &&
		    (!s.longest || g->nodes[i].started_us < s.longest_since_us)) {
			s.longest = g->nodes[i].cmd;
			s.longest_since_us = g->nodes[i].started_us;
		}
	g->on_status(g->status_ctx, &s);
}

/* The next child to end; with a status display, one that waits at most a
 * tick (0: none ended). */
static pid_t wait_one(struct ol_graph *g, int *status)
{
	if (!g->on_status)
		return waitpid(-1, status, 0);
	return ol_wait_any(status, STATUS_TICK_MS);
}

enum ol_err ol_graph_run(struct ol_graph *g, unsigned max_procs, const struct ol_run_opts *o,
			 struct ol_jobserver *js)
{
	size_t running = 0, i;

	if (o && o->dry_run)
		return dry_run(g, o);
	if (link_successors(g))
		return OL_E_NOMEM;
	if (max_procs == 0)
		max_procs = 1;
	g->ndone = g->ntotal = 0;
	g->status_at_us = 0; /* (told first once the first commands run) */
	for (i = 0; i < g->n; i++)
		g->ntotal += g->nodes[i].cmd != NULL;
	for (;;) {
		int status;
		pid_t pid;

		while ((i = pick(g)) != NONE && slot_free(js, running, max_procs))
			if (start(g, i, o))
				running++;
		give_spare_tokens(js, running);
		if (running == 0)
			break; /* (with no process running, every slot is free) */
		tell_status(g, running, false, false);
		pid = wait_one(g, &status);
		if (pid == 0 || (pid < 0 && errno == EINTR)) {
			tell_status(g, running, pid == 0, false);
			continue;
		}
		if (pid < 0)
			break;
		if ((i = find_running(g, pid)) == NONE)
			continue;
		running--;
		ended(g, i, status, o);
	}
	tell_status(g, 0, true, true);
	for (size_t j = 0; j < g->njobs; j++)
		if (g->jobs[j].failed)
			return OL_E_TOOL_FAILED;
	return OL_OK;
}

void ol_graph_job_counts(const struct ol_graph *g, size_t job, size_t *ran, size_t *skipped)
{
	*ran = *skipped = 0;
	for (size_t i = 0; i < g->n; i++) {
		if (g->nodes[i].job != job || !g->nodes[i].cmd)
			continue;
		if (g->nodes[i].state == NODE_DONE)
			++*ran;
		else if (g->nodes[i].state == NODE_SKIPPED)
			++*skipped;
	}
}

void ol_graph_free(struct ol_graph *g)
{
	free(g->nodes);
	free(g->jobs);
	free(g->succ);
	free(g->succ_at);
	memset(g, 0, sizeof(*g));
}
