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

static bool listed(const char *name, const char *pattern, size_t n)
{
	if (n && pattern[n - 1] == '*')
		return strncmp(name, pattern, n - 1) == 0;
	return strlen(name) == n && strncmp(name, pattern, n) == 0;
}

/* OFFLINK_CACHE_ENV_IGNORE: the user's names and prefixes. */
static bool user_ignored(const char *name)
{
	const char *p = getenv("OFFLINK_CACHE_ENV_IGNORE");

	while (p && *p) {
		size_t n = strcspn(p, " ,:");

		if (n && listed(name, p, n))
			return true;
		p += n;
		p += strspn(p, " ,:");
	}
	return false;
}

bool ol_env_ignored(const char *name)
{
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		if (listed(name, ignored[i], strlen(ignored[i])))
			return true;
	return user_ignored(name);
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
	for (char **e = environ; e && *e; e++) {
		size_t len = strcspn(*e, "=");
		char name[256];

		if (len >= sizeof(name))
			len = sizeof(name) - 1; /* (compared whole below: kept) */
		memcpy(name, *e, len);
		name[len] = '\0';
		if (strcspn(*e, "=") >= sizeof(name) || !ol_env_ignored(name))
			v[kept++] = *e;
	}
	/* (sorted: the order of environ is not the user's doing) */
	qsort(v, kept, sizeof(*v), by_name);
	ol_key_text(k, "whole environment, for", why);
	ol_key_u64(k, "variables", kept);
	for (size_t i = 0; i < kept; i++)
		ol_key_text(k, "variable", v[i]);
	free(v);
}
