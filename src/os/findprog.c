#include "os/findprog.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool ol_is_executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/* p (malloc'd, taken) made absolute against the working directory: a
 * step may run in a directory of its own (a ThinLTO link's), where a
 * relative program would be another file or none, and the device-link
 * cache's key would read one file while another ran. */
static char *absolute(char *p)
{
	char cwd[PATH_MAX], *abs = NULL;
	const char *rel = p;

	if (!p || p[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return p;
	while (rel[0] == '.' && rel[1] == '/')
		for (rel += 2; *rel == '/'; rel++)
			;
	if (asprintf(&abs, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", rel) < 0)
		abs = NULL;
	free(p);
	return abs;
}

char *ol_find_in_dir(const char *dir, const char *name)
{
	char *p = NULL;

	if (!dir || !*dir)
		return NULL;
	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return NULL;
	if (ol_is_executable(p))
		return absolute(p);
	free(p);
	return NULL;
}

char *ol_find_in_path(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL, *found = NULL;

	if (strchr(name, '/'))
		return ol_is_executable(name) ? absolute(strdup(name)) : NULL;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	copy = strdup(path);
	if (!copy)
		return NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save))
		found = ol_find_in_dir(*dir ? dir : ".", name);
	free(copy);
	return found;
}

static char *dir_of(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	if (!slash)
		return path ? strdup(".") : NULL;
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

void ol_self_dirs(const char *argv0, char **invoked_dir, char **real_dir)
{
	char *invoked = ol_find_in_path(argv0);
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	*invoked_dir = dir_of(invoked);
	free(invoked);
	if (n > 0) {
		buf[n] = '\0';
		*real_dir = dir_of(buf);
	} else {
		*real_dir = NULL;
	}
}

char *ol_find_tool(const char *argv0, const char *env, const char *const *names)
{
	const char *override = env ? getenv(env) : NULL;
	char *invoked = NULL, *real = NULL, *found = NULL;

	if (override && *override)
		return ol_find_in_path(override);
	ol_self_dirs(argv0, &invoked, &real);
	for (const char *const *n = names; *n && !found; n++) {
		found = ol_find_in_dir(invoked, *n);
		if (!found)
			found = ol_find_in_dir(real, *n);
	}
	free(invoked);
	free(real);
	for (const char *const *n = names; *n && !found; n++)
		found = ol_find_in_path(*n);
	return found;
}

/* The first of the paths below the running executable's directory that
 * exists and is a directory (want_dir) or an executable file; realpath'd. */
static char *beside_self(const char *const *below, size_t n, bool want_dir)
{
	char exe[PATH_MAX], path[PATH_MAX + 32], real[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	struct stat st;

	if (len <= 0)
		return NULL;
	exe[len] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return NULL;
	*slash = '\0';
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", exe, below[i]);
		if (stat(path, &st) != 0 || !realpath(path, real))
			continue;
		if (want_dir ? S_ISDIR(st.st_mode) : (S_ISREG(st.st_mode) && access(real, X_OK) == 0))
			return strdup(real);
	}
	return NULL;
}

char *ol_compat_dir(void)
{
	static const char *const below[] = { "../lib/offlink/compat", "../compat" };

	return beside_self(below, sizeof(below) / sizeof(below[0]), true);
}

char *ol_find_guard(void)
{
	static const char *const below[] = { "offlink-guard", "../lib/offlink/offlink-guard" };

	return beside_self(below, sizeof(below) / sizeof(below[0]), false);
}

char *ol_find_probe_lib(void)
{
	static const char *const below[] = { "offlink-probe.so", "../lib/offlink/offlink-probe.so" };

	return beside_self(below, sizeof(below) / sizeof(below[0]), false);
}
