/* What clang runs for a group's link through it, asked of clang itself:
 * recorded beside the link by offlink-probe.so (os/probe_preload.c), or
 * clang -### under the recorder, run beside the host link on a first
 * link, or at once when a remembered answer for another directory or
 * machine makes a hit likely; the answer remembered with the facts clang
 * decided it on (cache/facts.h, cache/probe_memo.h). */
#include "devcache/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cache/clang_jobs.h"
#include "cache/probe_memo.h"
#include "os/cleanup.h"
#include "os/mapfile.h"

/* ---- the probe: clang -### under the recorder ---- */

/* The probe of g's link through clang: its arguments before the cache's
 * flags, its standard error (the answer) to a file, the recorder
 * preloaded.  It runs while the host linker does (its inputs are there
 * then), or at once when an answer is likely to lead to a hit. */
bool ol_dc_plan_probe(struct ol_link *l, struct ol_group *g)
{
	const struct ol_cmd *c = &g->steps[g->driver_step];
	struct ol_cmd *p = &g->probe_cmd;
	const char *pre = getenv("LD_PRELOAD");

	if (!l->probe_lib)
		return false;
	g->probe_log = ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.probe.log", g->stem));
	g->probe_out = ol_link_temp_path(l, ol_arena_printf(&l->arena, "%s.probe.out", g->stem));
	if (!g->probe_log || !g->probe_out)
		return false;
	memset(p, 0, sizeof(*p));
	p->step = strdup(ol_arena_printf(&l->arena, "device-link cache: what clang runs for %s",
					 ol_group_label(l, g)));
	ol_strvec_extend(&p->argv, &c->argv);
	ol_strvec_push(&p->argv, "-###");
	p->stderr_path = strdup(g->probe_out);
	p->response_file = c->response_file;
	ol_strvec_pushf(&p->env, "LD_PRELOAD=%s%s%s", l->probe_lib, pre && *pre ? ":" : "",
			pre ? pre : "");
	ol_strvec_pushf(&p->env, "OFFLINK_PROBE_LOG=%s", g->probe_log);
	return p->step && p->stderr_path && !p->argv.err && !p->env.err;
}

/* Empty files where the group's inputs will be written (the archive, or
 * each image's file), so that clang -### (which drops an input that does
 * not exist) shows the real command, when it is asked before the link;
 * removed again after. */
static void placeholder(const char *path, bool make)
{
	int fd;

	if (!make) {
		unlink(path);
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
}

static void placeholders(struct ol_group *g, bool make)
{
	if (g->inputs_archive) {
		placeholder(g->inputs_archive, make);
		return;
	}
	for (size_t i = 0; i < g->nimages; i++)
		placeholder(g->input_paths[i], make);
}

/* Start the probe (its start: the facts it finds must not have changed
 * since); *pid, or false. */
static bool start_probe(struct ol_link *l, struct ol_group *g, pid_t *pid)
{
	struct ol_run_opts run = l->run;
	struct timespec ts;
	struct ol_diag d;

	ol_diag_clear(&d);
	run.dry_run = false;
	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	g->probe_time = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	return ol_spawn(&g->probe_cmd, &run, pid, &d) == OL_OK;
}

static void finish_probe(struct ol_group *g, pid_t pid)
{
	int status = 0;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	ol_cleanup_forget_child(pid);
	g->probe_ran = WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The command clang ran, from the recorder's log of the link itself,
 * with the flags the cache added taken out again (they are not what clang
 * decided); false when the log holds none (*count: how many). */
static bool recorded_command(struct ol_link *l, struct ol_group *g, const struct ol_map *log,
			     size_t *count)
{
	struct ol_strvec cmd = { 0 };
	const struct ol_cmd *c = &g->steps[g->driver_step];
	bool whole;

	*count = ol_log_commands(log->data, log->len, &cmd, &whole);
	if (*count != 1 || !whole) {
		ol_strvec_free(&cmd);
		return false;
	}
	/* "-Xlinker X" that the cache added reached the linker as "X": the
	 * last of each goes */
	for (size_t a = g->driver_plain_argc; a + 1 < c->argv.n; a++) {
		const char *added = strcmp(c->argv.v[a], "-Xlinker") == 0 ? c->argv.v[++a] : NULL;

		for (size_t i = cmd.n; added && i-- > 1; )
			if (strcmp(cmd.v[i], added) == 0) {
				free(cmd.v[i]);
				memmove(&cmd.v[i], &cmd.v[i + 1], (cmd.n - i) * sizeof(*cmd.v));
				cmd.n--;
				break;
			}
	}
	(void)l;
	ol_strvec_free(&g->linker);
	g->linker = cmd;
	return !cmd.err;
}

/* What clang answered: the command its link ran (recorded beside it) or
 * its -### (a probe of its own), in g->linker, and the facts it decided
 * on, in g->facts; false with why when there is none. */
bool ol_dc_read_probe(struct ol_link *l, struct ol_group *g, const char **why)
{
	struct ol_map out = { 0 }, log = { 0 };
	struct ol_clang_jobs jobs = { 0 };
	struct ol_pathform f = ol_dc_form(l);
	struct ol_diag d;
	size_t count = 0;
	bool ok = false;

	ol_diag_clear(&d);
	*why = "clang did not say what it runs";
	if (g->linker.n && g->facts.n)
		return true; /* (read already) */
	/* (a clang the recorder is not loaded into writes no record: its
	 * -### alone says what it runs) */
	if (!g->probe_log || (ol_map_file(g->probe_log, &log, &d) && !g->probe_opaque))
		goto out;
	if (!recorded_command(l, g, &log, &count)) {
		if (count > 1) {
			*why = ol_arena_printf(&l->arena, "clang runs %zu commands, not just the linker",
					       count);
			goto out;
		}
		if (!g->probe_ran || ol_map_file(g->probe_out, &out, &d) ||
		    ol_clang_jobs_parse((const char *)out.data, out.len, &jobs) || jobs.n != 1) {
			if (jobs.n > 1)
				*why = ol_arena_printf(&l->arena, "clang runs %zu commands, not just the "
								  "linker", jobs.n);
			goto out;
		}
		ol_strvec_free(&g->linker);
		if (ol_strvec_extend(&g->linker, &jobs.job[0]))
			goto out;
	}
	if (!ol_facts_from_log(log.data, log.len, &f, &l->cache.files, &g->facts, g->probe_time)) {
		*why = "what clang looked at changed while it was asked, or its record cannot be read";
		goto out;
	}
	ok = true;
out:
	ol_clang_jobs_free(&jobs);
	ol_unmap(&out);
	ol_unmap(&log);
	return ok;
}

/* Remember the probe's answer with its facts, under the first key. */
void ol_dc_store_answer(struct ol_link *l, struct ol_group *g)
{
	struct ol_probe_memo m = { 0 };
	struct ol_facts facts = { 0 };
	struct ol_strvec argv = { 0 };
	struct ol_buf b = { 0 };
	uint8_t key[32];

	if (g->probe_opaque)
		return; /* (no facts to hold it to: never remembered) */
	if (!ol_dc_probe_memo(l, g, &m))
		memset(&m, 0, sizeof(m));
	struct ol_pathform f = ol_dc_form(l);

	if (!ol_facts_parse(g->facts.data.data, g->facts.data.len, &facts) ||
	    !ol_pathform_to_all(&f, &g->linker, &argv)) {
		ol_facts_free(&facts);
		ol_strvec_free(&argv);
		ol_probe_memo_free(&m);
		return;
	}
	ol_probe_memo_add(&m, &facts, &argv);
	ol_dc_derive(g->probe_key, "what clang runs", key);
	if (ol_probe_memo_encode(&m, &b))
		ol_store_put(&l->cache, OL_ENTRY_PROBE, key, b.data, b.len);
	ol_buf_free(&b);
	ol_probe_memo_free(&m);
}

/* The probe run at once: before the lookup (its inputs stood for by
 * empty files), or after a link that failed. */
bool ol_dc_probe_now(struct ol_link *l, struct ol_group *g, bool before_link)
{
	const char *why;
	pid_t pid;
	bool started;

	if (before_link)
		placeholders(g, true);
	if ((started = start_probe(l, g, &pid)))
		finish_probe(g, pid);
	if (before_link)
		placeholders(g, false);
	if (!started || !ol_dc_read_probe(l, g, &why))
		return false;
	ol_dc_store_answer(l, g);
	return true;
}

void ol_probe_cmd_forget(struct ol_group *g)
{
	ol_cmd_free(&g->probe_cmd);
	g->probe = PROBE_NONE;
}

bool ol_cache_retry_plain(struct ol_link *l, struct ol_group *g, size_t failed_step)
{
	struct ol_cmd *c;
	const char *why;

	if (g->probe != PROBE_PENDING || g->driver_step < 0 || !g->driver_plain_argc ||
	    failed_step != (size_t)g->driver_step)
		return false;
	/* only when clang ran another linker than the one the flags were
	 * for (its recorded command says): otherwise the failure is the
	 * link's own */
	if (!ol_dc_read_probe(l, g, &why) || !g->linker.n || ol_is_inputs_linker(g->linker.v[0]) ||
	    ol_ld_flavor_of(g->linker.v[0]) == g->predicted)
		return false;
	c = &g->steps[g->driver_step];
	while (c->argv.n > g->driver_plain_argc)
		free(c->argv.v[--c->argv.n]);
	c->argv.v[c->argv.n] = NULL;
	ol_strvec_free(&c->env);
	free(c->stdout_path);
	c->stdout_path = NULL;
	g->cache = CACHE_NOT_USED;
	g->cache_note = "not used: clang runs another linker than the one predicted";
	return true;
}

/* The probes still to run (first links), side by side. */
void ol_dc_run_probes(struct ol_link *l)
{
	pid_t *pids = calloc(l->ngroups + 1, sizeof(*pids));
	double t0 = ol_now_us();

	for (size_t i = 0; pids && i < l->ngroups; i++) {
		struct ol_group *g = &l->groups[i];
		struct ol_map log = { 0 };
		struct ol_diag d;
		bool whole;

		/* (the link itself recorded what clang ran: nothing to ask) */
		ol_diag_clear(&d);
		if (g->probe != PROBE_PENDING || !g->linked || !g->probe_cmd.argv.n ||
		    (ol_map_file(g->probe_log, &log, &d) == OL_OK &&
		     ol_log_commands(log.data, log.len, NULL, &whole) > 0)) {
			ol_unmap(&log);
			continue;
		}
		ol_unmap(&log);
		if (!start_probe(l, g, &pids[i]))
			pids[i] = 0;
	}
	for (size_t i = 0; pids && i < l->ngroups; i++)
		if (pids[i] > 0)
			finish_probe(&l->groups[i], pids[i]);
	free(pids);
	ol_link_span(l, "cache: what clang runs", t0);
}
