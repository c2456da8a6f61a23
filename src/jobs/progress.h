/* A status line for a long run of the job graph, as ninja draws one on a
 * terminal: one line, rewritten in place, with the commands ended of all,
 * the one running longest and for how long:
 *
 *   [7/25] 12s device link openmp nvptx64-nvidia-cuda sm_90 (ptxas) (+1 running)
 *
 * GPU links run from 20 s to minutes and print nothing until they end.
 * Drawn only on a terminal (and never into a file or a pipe, so that
 * build logs stay as they were), erased when the run ends, and erased
 * before any message offlink prints meanwhile (common/message.h). */
#ifndef OFFLINK_JOBS_PROGRESS_H
#define OFFLINK_JOBS_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include "jobs/graph.h"

enum ol_progress_mode {
	OL_PROGRESS_AUTO,   /* when stderr is a terminal */
	OL_PROGRESS_ALWAYS, /* on stderr whatever it is */
	OL_PROGRESS_NEVER,
};

/* "auto", "always", "never" into *mode; false for anything else. */
bool ol_progress_parse(const char *s, enum ol_progress_mode *mode);

struct ol_progress {
	FILE *f;            /* stderr, or NULL: nothing is drawn */
	bool drawn;         /* a line is on the terminal now */
	unsigned width;     /* of the terminal (80 when it does not say) */
};

/* Whether to draw, from mode and whether stderr is a terminal; on, the
 * graph's status goes to p (g->on_status).  false: p draws nothing. */
bool ol_progress_begin(struct ol_progress *p, enum ol_progress_mode mode, struct ol_graph *g);
/* Erase the line, if one is drawn (before a message: the next status
 * draws it again).  p may be NULL. */
void ol_progress_erase(struct ol_progress *p);
/* The line erased; p draws nothing more. */
void ol_progress_end(struct ol_progress *p);

#endif
