/* Reporting and naming helpers shared by the phases. */
#include "link/link.h"

#include "common/grow.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/grow.h"
#include "common/message.h"

/* Messages go through common/message.c: one line each, made safe for a
 * terminal, since they quote triples and member names from inputs; a
 * status line on the terminal is erased first. */
void ol_link_error(struct ol_link *l, const struct ol_diag *d)
{
	ol_progress_erase(l->progress);
	ol_message_diag("offlink", d);
	l->nerrors++;
}

void ol_link_errorf(struct ol_link *l, const char *fmt, ...)
{
	va_list ap;

	ol_progress_erase(l->progress);
	va_start(ap, fmt);
	ol_vmessage("offlink", "error", fmt, ap);
	va_end(ap);
	l->nerrors++;
}

void ol_link_warnf(struct ol_link *l, const char *fmt, ...)
{
	va_list ap;

	ol_progress_erase(l->progress);
	va_start(ap, fmt);
	ol_vmessage("offlink", "warning", fmt, ap);
	va_end(ap);
}

const char *ol_link_quote(struct ol_link *l, const char *text)
{
	char *e = ol_escape_dup(text);
	const char *s = e ? ol_arena_strdup(&l->arena, e) : NULL;

	free(e);
	return s ? s : "?";
}

char *ol_link_temp_path(struct ol_link *l, const char *suffix)
{
	/* Fixed names inside a per-link directory: nothing about the output
	 * reaches the objects (the registration source's name ends up in an
	 * STT_FILE symbol, which ld -r keeps). */
	return ol_arena_printf(&l->arena, "%s/%s", l->tmpdir, suffix);
}

void ol_link_span(struct ol_link *l, const char *name, double start_us)
{
	struct child_timing *v;
	char *copy;

	if (!l->run.child_done)
		return; /* (no --wrapper-time-trace) */
	v = ol_grow(l->children, l->nchildren, &l->capchildren, sizeof(*v), 16);
	if (!v || !(copy = strdup(name)))
		return;
	l->children = v;
	l->children[l->nchildren++] = (struct child_timing){ copy, start_us,
							     ol_now_us() - start_us };
}

const char *ol_kind_name(enum ob_offload_kind k)
{
	return ob_offload_kind_name(k);
}

char *ol_group_label(struct ol_link *l, const struct ol_group *g)
{
	return g->arch[0]
		? ol_arena_printf(&l->arena, "%s %s %s", ol_kind_name(g->kind), g->triple, g->arch)
		: ol_arena_printf(&l->arena, "%s %s", ol_kind_name(g->kind), g->triple);
}

const char *ol_group_origins(struct ol_link *l, const struct ol_group *g)
{
	enum { SHOWN = 3 };
	struct ol_buf b = { 0 };
	const char *s;

	for (size_t i = 0; i < g->nimages && i < SHOWN; i++)
		ol_buf_printf(&b, "%s%s", i ? ", " : "", g->images[i]->origin);
	if (g->nimages > SHOWN)
		ol_buf_printf(&b, " and %zu more", g->nimages - SHOWN);
	s = ol_arena_strdup(&l->arena, b.data ? (char *)b.data : "no image");
	ol_buf_free(&b);
	return s ? s : "?";
}
