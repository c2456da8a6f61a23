#include "jobs/progress.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/escape.h"

bool ol_progress_parse(const char *s, enum ol_progress_mode *mode)
{
	static const char *const names[] = { "auto", "always", "never" };

	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			*mode = (enum ol_progress_mode)i;
			return true;
		}
	return false;
}

static unsigned term_width(int fd)
{
	struct winsize w;

	return ioctl(fd, TIOCGWINSZ, &w) == 0 && w.ws_col >= 20 ? w.ws_col : 80;
}

/* "12s", "3m05s" */
static void elapsed(char *out, size_t len, double us)
{
	long s = us > 0 ? (long)(us / 1e6) : 0;

	if (s < 60)
		snprintf(out, len, "%lds", s);
	else
		snprintf(out, len, "%ldm%02lds", s / 60, s % 60);
}

/* The line, cut to the terminal's width less one column (a full line
 * would wrap on some terminals), at a character's start. */
static void draw(void *ctx, const struct ol_graph_status *s)
{
	struct ol_progress *p = ctx;
	struct ol_buf b = { 0 }, step = { 0 };
	char when[32];
	size_t n;

	if (s->last) {
		ol_progress_erase(p);
		return;
	}
	ol_buf_printf(&b, "[%zu/%zu]", s->done, s->total);
	if (s->longest) {
		const char *what = s->longest->step ? s->longest->step : s->longest->argv.v[0];

		elapsed(when, sizeof(when), ol_now_us() - s->longest_since_us);
		/* (labels quote inputs' names: made safe for the terminal) */
		ol_escape_terminal(&step, what, strlen(what));
		ol_buf_printf(&b, " %s %s", when, step.data ? (char *)step.data : "");
		if (s->running > 1)
			ol_buf_printf(&b, " (+%zu running)", s->running - 1);
	}
	if (b.data) {
		n = b.len < p->width - 1 ? b.len : p->width - 1;
		while (n && n < b.len && (b.data[n] & 0xc0) == 0x80)
			n--;
		fprintf(p->f, "\r%.*s\033[K", (int)n, (char *)b.data);
		fflush(p->f);
		p->drawn = true;
	}
	ol_buf_free(&b);
	ol_buf_free(&step);
}

bool ol_progress_begin(struct ol_progress *p, enum ol_progress_mode mode, struct ol_graph *g)
{
	memset(p, 0, sizeof(*p));
	if (mode == OL_PROGRESS_NEVER || (mode == OL_PROGRESS_AUTO && !isatty(STDERR_FILENO)))
		return false;
	p->f = stderr;
	p->width = term_width(STDERR_FILENO);
	g->on_status = draw;
	g->status_ctx = p;
	return true;
}

void ol_progress_erase(struct ol_progress *p)
{
	if (!p || !p->drawn)
		return;
	fputs("\r\033[K", p->f);
	fflush(p->f);
	p->drawn = false;
}

void ol_progress_end(struct ol_progress *p)
{
	ol_progress_erase(p);
	p->f = NULL;
}
