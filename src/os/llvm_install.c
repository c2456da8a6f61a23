#include "os/llvm_install.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/env.h"
#include "os/findprog.h"

/* Lowest and highest release offlink looks for by number. */
enum { FIRST_RELEASE = 14, LAST_RELEASE = 99 };

unsigned ol_llvm_major_of_bin(const char *bin)
{
	char path[PATH_MAX + 32], real[PATH_MAX];
	unsigned major = 0;
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/clang", bin);
	if (!realpath(path, real) || !ol_is_executable(real))
		return 0;
	*strrchr(real, '/') = '\0';
	snprintf(path, sizeof(path), "%s/../lib/clang", real);
	if (!(d = opendir(path)))
		return 0;
	/* One numeric directory per installation: the major from LLVM 16
	 * on, the whole version before (14.0.6). */
	while ((e = readdir(d)) != NULL) {
		char *end;
		unsigned long v = strtoul(e->d_name, &end, 10);

		if (end != e->d_name && (*end == '\0' || *end == '.') && v > major && v < 1000)
			major = (unsigned)v;
	}
	closedir(d);
	return major;
}

unsigned ol_llvm_parent_clang(char *bin, size_t len)
{
	char link[64], exe[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%ld/exe", (long)getppid());
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	if (strncmp(base, "clang", 5) != 0 || !strrchr(exe, '/'))
		return 0;
	*strrchr(exe, '/') = '\0';
	if (snprintf(bin, len, "%s", exe) >= (int)len)
		return 0;
	return ol_llvm_major_of_bin(exe);
}

/* dir, if it holds a clang of release major. */
static char *check_dir(const char *dir, unsigned major)
{
	return dir && ol_llvm_major_of_bin(dir) == major ? strdup(dir) : NULL;
}

/* The directory of name found on PATH, symlinks resolved (clang-19 is
 * /usr/bin/clang-19 -> ../lib/llvm-19/bin/clang). */
static char *path_dir(const char *name)
{
	char *found = ol_find_in_path(name), real[PATH_MAX], *slash;

	if (!found || !realpath(found, real) || !(slash = strrchr(real, '/'))) {
		free(found);
		return NULL;
	}
	free(found);
	*slash = '\0';
	return strdup(real);
}

char *ol_llvm_find_release(unsigned major, char *searched, size_t len)
{
	char debian[64], versioned[32], *dir, *found;

	snprintf(debian, sizeof(debian), "/usr/lib/llvm-%u/bin", major);
	snprintf(versioned, sizeof(versioned), "clang-%u", major);
	if (searched)
		snprintf(searched, len, "%s, %s on PATH, clang on PATH", debian, versioned);
	if ((found = check_dir(debian, major)))
		return found;
	dir = path_dir(versioned);
	found = check_dir(dir, major);
	free(dir);
	if (found)
		return found;
	dir = path_dir("clang");
	found = check_dir(dir, major);
	free(dir);
	return found;
}

unsigned ol_llvm_tool_release(const char *option, const char **bad)
{
	const char *v = option && *option ? option : getenv("OFFLINK_LLVM");
	char bin[PATH_MAX], *dir = NULL;
	unsigned major;

	*bad = NULL;
	if (v && *v) {
		unsigned long n;

		if (!ol_parse_uint(v, 1, 999, &n)) {
			*bad = "expected an LLVM release number such as 16, 19 or 23";
			return 0;
		}
		return (unsigned)n;
	}
	if ((major = ol_llvm_parent_clang(bin, sizeof(bin))))
		return major;
	major = ol_llvm_newest(&dir);
	free(dir);
	return major ? major : OL_LLVM_NEWEST_KNOWN;
}

unsigned ol_llvm_newest(char **bin)
{
	for (unsigned major = LAST_RELEASE; major >= FIRST_RELEASE; major--)
		if ((*bin = ol_llvm_find_release(major, NULL, 0)))
			return major;
	/* A plain clang of a release outside the numbered places. */
	if ((*bin = path_dir("clang"))) {
		unsigned major = ol_llvm_major_of_bin(*bin);

		if (major)
			return major;
		free(*bin);
	}
	*bin = NULL;
	return 0;
}
