/* Unit tests of jobs/: the job graph -- waiting, order among ready
 * nodes, failures kept inside their job, skips, the hooks, the edges it
 * refuses.  The commands are real processes appending a letter to a
 * file, so the order they ran in is what the file says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/graph.h"

static char logpath[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(logpath, sizeof(logpath), "/tmp/offlink-jobs-XXXXXX");
	fd = mkstemp(logpath);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(logpath);
	return 0;
}

/* A command appending letter to the log (exit status: fail ? 1 : 0). */
static struct ol_cmd *append(char letter, bool fail)
{
	struct ol_cmd *c = calloc(1, sizeof(*c));

	c->step = strdup(fail ? "failing step" : "step");
	ol_strvec_push(&c->argv, "/bin/sh");
	ol_strvec_push(&c->argv, "-c");
	ol_strvec_pushf(&c->argv, "printf %c >>%s; exit %d", letter, logpath, fail ? 1 : 0);
	return c;
}

static void log_is(const char *want)
{
	char got[64] = { 0 };
	FILE *f = fopen(logpath, "r");

	assert_non_null(f);
	got[fread(got, 1, sizeof(got) - 1, f)] = '\0';
	fclose(f);
	assert_string_equal(got, want);
	assert_int_equal(truncate(logpath, 0), 0);
}

static size_t add(struct ol_graph *g, struct ol_cmd *c, size_t job, unsigned rank, int64_t weight,
		  const size_t *after, size_t nafter)
{
	struct ol_graph_node n = { .cmd = c, .job = job, .rank = rank, .weight = weight,
				   .after = after, .nafter = nafter };
	size_t i;

	assert_int_equal(ol_graph_add(g, &n, &i), OL_OK);
	return i;
}

static void free_cmds(struct ol_cmd **c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ol_cmd_free(c[i]);
		free(c[i]);
	}
}

/* Two jobs of two commands each, the second waiting for the first: c[0]
 * then c[1], c[2] then c[3].  Where c[0] is. */
static size_t two_chains(struct ol_graph *g, struct ol_cmd **c)
{
	static size_t after[2][1];
	size_t first;

	assert_int_equal(ol_graph_init(g, 2), OL_OK);
	first = after[0][0] = add(g, c[0], 0, 0, 0, NULL, 0);
	add(g, c[1], 0, 1, 0, after[0], 1);
	after[1][0] = add(g, c[2], 1, 0, 0, NULL, 0);
	add(g, c[3], 1, 1, 0, after[1], 1);
	return first;
}

/* One slot: the order is the graph's alone.  A first; of what waits
 * for it, the lowest rank, then the heaviest; D after both it waits for. */
static void order_follows_waits_rank_and_weight(void **state)
{
	struct ol_cmd *c[4] = { append('A', false), append('B', false), append('C', false),
				append('D', false) };
	struct ol_graph g;
	size_t a, b, cc, after_a[1], after_bc[2];

	(void)state;
	assert_int_equal(ol_graph_init(&g, 1), OL_OK);
	a = add(&g, c[0], 0, 0, 0, NULL, 0);
	after_a[0] = a;
	b = add(&g, c[1], 0, 1, 10, after_a, 1);
	cc = add(&g, c[2], 0, 1, 99, after_a, 1);
	after_bc[0] = b;
	after_bc[1] = cc;
	add(&g, c[3], 0, 0, 0, after_bc, 2); /* (rank 0, but it waits) */
	assert_int_equal(ol_graph_run(&g, 1, NULL, NULL), OL_OK);
	log_is("ACBD");
	ol_graph_free(&g);
	free_cmds(c, 4);
}

/* A failure stops its own job -- what waits for it never runs -- and
 * the other job runs to its end. */
static void a_failure_stays_in_its_job(void **state)
{
	struct ol_cmd *c[4] = { append('A', true), append('B', false), append('X', false),
				append('Y', false) };
	struct ol_graph g;
	size_t a;

	(void)state;
	a = two_chains(&g, c);
	assert_int_equal(ol_graph_run(&g, 1, NULL, NULL), OL_E_TOOL_FAILED);
	log_is("AXY");
	assert_true(g.jobs[0].failed);
	assert_int_equal(g.jobs[0].failed_node, a);
	assert_non_null(strstr(g.jobs[0].diag.detail, "failing step"));
	assert_false(g.jobs[1].failed);
	ol_graph_free(&g);
	free_cmds(c, 4);
}

struct hooks {
	enum ol_prepared answer;
	int prepared, completed;
};

static enum ol_err prepare(void *ctx, enum ol_prepared *what, struct ol_diag *d)
{
	struct hooks *h = ctx;

	(void)d;
	h->prepared++;
	*what = h->answer;
	return OL_OK;
}

static enum ol_err complete(void *ctx, struct ol_diag *d)
{
	struct hooks *h = ctx;

	(void)d;
	h->completed++;
	return OL_OK;
}

/* A node whose result is there is done without running, and what waits
 * for it runs; a job whose result is there runs nothing at all. */
static void skips_and_hooks(void **state)
{
	struct ol_cmd *c[4] = { append('A', false), append('B', false), append('X', false),
				append('Y', false) };
	struct hooks ha = { OL_SKIP_NODE, 0, 0 }, hb = { OL_RUN, 0, 0 }, hx = { OL_SKIP_JOB, 0, 0 };
	struct ol_graph_node n = { 0 };
	struct ol_graph g;
	size_t a, x, after_a[1], after_x[1], ran, skipped;

	(void)state;
	assert_int_equal(ol_graph_init(&g, 2), OL_OK);
	n = (struct ol_graph_node){ .cmd = c[0], .job = 0, .prepare = prepare, .complete = complete,
				    .ctx = &ha };
	assert_int_equal(ol_graph_add(&g, &n, &a), OL_OK);
	after_a[0] = a;
	n = (struct ol_graph_node){ .cmd = c[1], .job = 0, .after = after_a, .nafter = 1,
				    .prepare = prepare, .complete = complete, .ctx = &hb };
	assert_int_equal(ol_graph_add(&g, &n, &a), OL_OK);
	n = (struct ol_graph_node){ .cmd = c[2], .job = 1, .prepare = prepare, .ctx = &hx };
	assert_int_equal(ol_graph_add(&g, &n, &x), OL_OK);
	after_x[0] = x;
	add(&g, c[3], 1, 1, 0, after_x, 1);
	assert_int_equal(ol_graph_run(&g, 2, NULL, NULL), OL_OK);
	log_is("B");
	assert_int_equal(ha.prepared, 1);
	assert_int_equal(ha.completed, 0);
	assert_int_equal(hb.completed, 1);
	assert_true(g.jobs[1].skipped);
	ol_graph_job_counts(&g, 0, &ran, &skipped);
	assert_int_equal(ran, 1);
	assert_int_equal(skipped, 1);
	ol_graph_free(&g);
	free_cmds(c, 4);
}

/* Edges to a later node, or into another job, are refused. */
static void edges_refused(void **state)
{
	struct ol_cmd *c = append('A', false);
	struct ol_graph g;
	size_t later[1] = { 5 }, first[1] = { 0 }, i;
	struct ol_graph_node n = { .cmd = c, .job = 0, .after = later, .nafter = 1 };

	(void)state;
	assert_int_equal(ol_graph_init(&g, 2), OL_OK);
	assert_int_equal(ol_graph_add(&g, &n, &i), OL_E_USAGE);
	n = (struct ol_graph_node){ .cmd = c, .job = 0 };
	assert_int_equal(ol_graph_add(&g, &n, &i), OL_OK);
	n = (struct ol_graph_node){ .cmd = c, .job = 1, .after = first, .nafter = 1 };
	assert_int_equal(ol_graph_add(&g, &n, &i), OL_E_USAGE);
	n = (struct ol_graph_node){ .cmd = c, .job = 2 };
	assert_int_equal(ol_graph_add(&g, &n, &i), OL_E_USAGE);
	ol_graph_free(&g);
	free_cmds(&c, 1);
}

struct seen {
	size_t calls, during_slow, last_done, last_total;
	bool ordered, last;
};

static void on_status(void *ctx, const struct ol_graph_status *st)
{
	struct seen *s = ctx;

	s->ordered &= !s->calls || st->done >= s->last_done;
	s->calls++;
	s->last_done = st->done;
	s->last_total = st->total;
	s->last = st->last;
	if (st->longest && strcmp(st->longest->step, "slow step") == 0 && st->running == 1)
		s->during_slow++;
}

/* Issue 44, item 11: a status display is told the commands ended (run,
 * failed or never started because their job stopped) of all, and the one
 * running longest, also while it runs on with nothing ending (a tick
 * every half second: this one runs 1.2 s); the last telling says so. */
static void status_counts_every_command(void **state)
{
	struct ol_cmd *c[4] = { append('A', true), append('B', false), append('S', false),
				append('Y', false) };
	struct seen seen = { .ordered = true };
	struct ol_graph g;

	(void)state;
	free(c[2]->step);
	c[2]->step = strdup("slow step");
	ol_strvec_free(&c[2]->argv);
	ol_strvec_push(&c[2]->argv, "/bin/sh");
	ol_strvec_push(&c[2]->argv, "-c");
	ol_strvec_push(&c[2]->argv, "sleep 1.2");
	two_chains(&g, c);
	g.on_status = on_status;
	g.status_ctx = &seen;
	assert_int_equal(ol_graph_run(&g, 2, NULL, NULL), OL_E_TOOL_FAILED);
	assert_true(seen.ordered);
	assert_true(seen.during_slow >= 1);
	assert_true(seen.last);
	assert_int_equal(seen.last_total, 4);
	assert_int_equal(seen.last_done, 4);
	ol_graph_free(&g);
	free_cmds(c, 4);
	assert_int_equal(truncate(logpath, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(order_follows_waits_rank_and_weight, setup, teardown),
		cmocka_unit_test_setup_teardown(a_failure_stays_in_its_job, setup, teardown),
		cmocka_unit_test_setup_teardown(skips_and_hooks, setup, teardown),
		cmocka_unit_test_setup_teardown(edges_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(status_counts_every_command, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
