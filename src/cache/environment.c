#include "cache/environment.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

/* Variables that change between two runs of one build and change nothing
 * a device link makes.  A trailing '*' is a prefix. */
static const char *const ignored[] = {
	/* the shell's bookkeeping */
	"_", "SHLVL", "PWD", "OLDPWD", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "HISTFILE",
	"HISTSIZE", "HISTFILESIZE", "HISTCONTROL", "LINES", "COLUMNS",
	/* the terminal and the session */
	"TERM", "COLORTERM", "TERM_PROGRAM*", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "SSH_*",
	"XDG_SESSION_*", "XDG_RUNTIME_DIR", "XDG_SEAT", "XDG_VTNR", "DBUS_SESSION_BUS_ADDRESS",
	"TMUX", "TMUX_PANE", "STY", "WINDOW", "WINDOWID", "LS_COLORS", "LESS*", "MAIL", "GPG_TTY",
	"MOTD_SHOWN",
	/* make's jobserver: descriptors and levels of this run */
	"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "MAKE_TERMOUT", "MAKE_TERMERR",
	/* where temporaries go (the link's own directory is keyed as <TMP>) */
	"TMPDIR", "TMP", "TEMP",
	/* offlink's own: what they choose (the tools, the release, the
	 * cache) is keyed by what it chose */
	"OFFLINK_*",
};

/* Whether the name (len bytes) matches the pattern (n bytes; a trailing
 * '*' makes it a prefix). */
static bool listed(const char *name, size_t len, const char *pattern, size_t n)
{
	if (n && pattern[n - 1] == '*')
		return len >= n - 1 && strncmp(name, pattern, n - 1) == 0;
	return len == n && strncmp(name, pattern, n) == 0;
}

/* The name is the first len bytes of name ("NAME=value" as environ
 * holds it). */
static bool ignored_name(const char *name, size_t len)
{
	const char *p = getenv("OFFLINK_CACHE_ENV_IGNORE"); /* the user's */

	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		if (listed(name, len, ignored[i], strlen(ignored[i])))
			return true;
	while (p && *p) {
		size_t n = strcspn(p, " ,:");

		if (n && listed(name, len, p, n))
			return true;
		p += n;
		p += strspn(p, " ,:");
	}
	return false;
}

bool ol_env_ignored(const char *name)
{
	return ignored_name(name, strlen(name));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void ol_key_environment(struct ol_key *k, const char *why)
{
	size_t n = 0, kept = 0;
	char **v;

	if (k->whole_env)
		return;
	k->whole_env = true;
	for (char **e = environ; e && *e; e++)
		n++;
	if (!(v = malloc((n ? n : 1) * sizeof(*v)))) {
		ol_key_refuse(k, "out of memory");
		return;
	}
	for (char **e = environ; e && *e; e++)
		if (!ignored_name(*e, strcspn(*e, "=")))
			v[kept++] = *e;
	/* (sorted: the order of environ is not the user's doing) */
	qsort(v, kept, sizeof(*v), by_name);
	ol_key_text(k, "whole environment, for", why);
	ol_key_u64(k, "variables", kept);
	for (size_t i = 0; i < kept; i++)
		ol_key_text(k, "variable", v[i]);
	free(v);
}
