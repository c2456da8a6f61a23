#include "cache/program.h"


#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/environment.h"
#include "common/strmap.h"
#include "common/strvec.h"
#include "os/findprog.h"

/* The C and C++ runtimes: the system's, whatever the tool. */
static bool runtime_library(const char *name)
{
	static const char *const prefixes[] = {
		"libc.so", "libm.so", "libmvec.so", "libstdc++.so", "libgcc_s.so", "libpthread.so",
		"libdl.so", "librt.so", "ld-linux", "ld64.so", "libatomic.so",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

struct dynamic {
	struct ol_strvec needed;
	char *rpath, *runpath;
};

/* The GNU build ID of an ELF file (hex in out), if it has one. */
static bool build_id(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, char *out, size_t len)
{
	Elf_Data *data;
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;

	if (sh->sh_type != SHT_NOTE || !(data = elf_getdata(scn, NULL)))
		return false;
	(void)e;
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 || nh.n_descsz < 8 ||
		    nh.n_descsz > 64 || memcmp((const char *)data->d_buf + name_off, "GNU", 4) != 0)
			continue;
		for (size_t i = 0; i < nh.n_descsz && 2 * i + 3 <= len; i++)
			snprintf(out + 2 * i, 3, "%02x", ((const uint8_t *)data->d_buf)[desc_off + i]);
		return true;
	}
	return false;
}

/* Whether e is an executable without an interpreter (PT_INTERP): a
 * statically linked program, which no preloaded library reaches. */
static bool static_executable(Elf *e)
{
	GElf_Ehdr eh;
	size_t n = 0;

	if (!gelf_getehdr(e, &eh) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
	    elf_getphdrnum(e, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
			return false;
	}
	/* (a shared library has no interpreter either, and no entry point) */
	return eh.e_type == ET_EXEC || eh.e_entry != 0;
}

/* Read path's build ID and (dy not NULL) its dynamic section; false when
 * it is not an ELF file.  *is_static (not NULL): a static executable. */
static bool read_elf(int fd, struct dynamic *dy, char *id, size_t idlen, bool *is_static)
{
	Elf *e;
	Elf_Scn *scn = NULL;

	id[0] = '\0';
	if (elf_version(EV_CURRENT) == EV_NONE || !(e = elf_begin(fd, ELF_C_READ, NULL)))
		return false;
	if (elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		return false;
	}
	if (is_static)
		*is_static = static_executable(e);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Dyn dyn;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (!id[0] && build_id(e, scn, &sh, id, idlen))
			continue;
		if (!dy || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && gelf_getdyn(data, (int)i, &dyn); i++) {
			const char *s = dyn.d_tag == DT_NEEDED || dyn.d_tag == DT_RPATH ||
						dyn.d_tag == DT_RUNPATH
					? elf_strptr(e, sh.sh_link, dyn.d_un.d_val) : NULL;

			if (!s)
				continue;
			if (dyn.d_tag == DT_NEEDED)
				ol_strvec_push(&dy->needed, s);
			else if (dyn.d_tag == DT_RPATH && !dy->rpath)
				dy->rpath = strdup(s);
			else if (dyn.d_tag == DT_RUNPATH && !dy->runpath)
				dy->runpath = strdup(s);
		}
	}
	elf_end(e);
	return true;
}

/* label + a binary: its build ID and size (what its linker computed over
 * its content) or, without one, its content's digest.  dy: its dynamic
 * section, read on the way; *is_static (not NULL): a static executable. */
static bool key_binary(struct ol_key *k, const char *label, const char *path, struct dynamic *dy,
		       bool *is_static)
{
	char id[160], text[200];
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	bool elf;

	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return ol_key_file(k, label, path); /* says missing, or refuses */
	}
	ol_key_depend(k, path, &st);
	elf = read_elf(fd, dy, id, sizeof(id), is_static);
	close(fd);
	if (!elf || !id[0])
		return ol_key_program_content(k, label, path);
	snprintf(text, sizeof(text), "build-id %s size %lld", id, (long long)st.st_size);
	ol_key_text(k, label, text);
	return true;
}

/* name in the ':'-separated dirs ($ORIGIN: origin); true with found set. */
static bool find_in(const char *dirs, const char *origin, const char *name, char *found,
		    size_t len)
{
	const char *p = dirs;

	while (p && *p) {
		size_t n = strcspn(p, ":");
		struct stat st;

		if (n >= 7 && strncmp(p, "$ORIGIN", 7) == 0)
			snprintf(found, len, "%s%.*s/%s", origin, (int)(n - 7), p + 7, name);
		else if (n >= 9 && strncmp(p, "${ORIGIN}", 9) == 0)
			snprintf(found, len, "%s%.*s/%s", origin, (int)(n - 9), p + 9, name);
		else
			snprintf(found, len, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", name);
		if (stat(found, &st) == 0 && S_ISREG(st.st_mode))
			return true;
		p += n;
		if (*p == ':')
			p++;
	}
	return false;
}

static void key_libraries(struct ol_key *k, const char *real, const struct dynamic *dy)
{
	static const char system_dirs[] =
		"/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib/aarch64-linux-gnu:"
		"/usr/lib/aarch64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib";
	const char *ld_path = getenv("LD_LIBRARY_PATH");
	char origin[PATH_MAX], found[PATH_MAX];
	const char *slash = strrchr(real, '/');

	snprintf(origin, sizeof(origin), "%.*s", slash ? (int)(slash - real) : 1, slash ? real : ".");
	for (size_t i = 0; i < dy->needed.n; i++) {
		const char *name = dy->needed.v[i];

		if (runtime_library(name))
			continue;
		if (strchr(name, '/') ? (snprintf(found, sizeof(found), "%s", name), true)
		    : (!dy->runpath && find_in(dy->rpath, origin, name, found, sizeof(found))) ||
			      find_in(ld_path, origin, name, found, sizeof(found)) ||
			      find_in(dy->runpath, origin, name, found, sizeof(found)) ||
			      find_in(system_dirs, origin, name, found, sizeof(found)))
			key_binary(k, "library", found, NULL, NULL);
		else
			ol_key_text(k, "library missing", name);
	}
}

/* ---- scripts ---- */

/* How much of a script is read for what it names, how many files it
 * names are keyed, and how deep scripts naming scripts are followed. */
#define SCRIPT_TEXT_MAX (256 * 1024)
#define SCRIPT_NAMES_MAX 128
#define SCRIPT_DEPTH_MAX 4

/* The programs keyed so far for one ol_key_program, by real path: each
 * is keyed once, where it is first met.  A script that names itself (a
 * comment saying where it is installed), two that name each other, or
 * several that run one tool are then keyed, not followed round and round
 * until the depth gives out. */
struct keyed {
	struct ol_strvec paths;  /* owns the keys of set */
	struct ol_strmap set;
};

static void key_program_at(struct ol_key *k, const char *label, const char *path, int depth,
			   struct keyed *seen);

/* The first bytes of path, up to SCRIPT_TEXT_MAX (NUL-terminated), when
 * it is a script ("#!"); NULL otherwise. */
static char *script_text(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char *text;
	ssize_t got;
	size_t n = 0;

	if (fd < 0)
		return NULL;
	if (!(text = malloc(SCRIPT_TEXT_MAX + 1))) {
		close(fd);
		return NULL;
	}
	while (n < SCRIPT_TEXT_MAX && (got = read(fd, text + n, SCRIPT_TEXT_MAX - n)) > 0)
		n += (size_t)got;
	close(fd);
	if (n < 2 || text[0] != '#' || text[1] != '!') {
		free(text);
		return NULL;
	}
	text[n] = '\0';
	*len = n;
	return text;
}

/* The interpreter of "#!" line (its first word; after "env" and its
 * options, the program env runs, found in PATH), or NULL. */
static char *interpreter(const char *text)
{
	const char *p = text + 2, *end;
	char *word = NULL;

	for (int w = 0; w < 8; w++) {
		p += strspn(p, " \t");
		end = p + strcspn(p, " \t\r\n");
		if (end == p)
			break;
		free(word);
		if (!(word = strndup(p, (size_t)(end - p))))
			return NULL;
		p = end;
		if (w == 0 && (!strcmp(word, "/usr/bin/env") || !strcmp(word, "/bin/env")))
			continue;
		if (w > 0 && word[0] == '-')
			continue; /* env's options (-S) */
		if (w > 0) {
			char *found = ol_find_in_path(word);

			free(word);
			return found;
		}
		return word;
	}
	free(word);
	return NULL;
}

/* Whether c may be part of a path a script names (a '$', a quote, a
 * blank or a ':' ends it: a variable, a word, a list). */
static bool path_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("/._+-@%,~", c);
}

/* Each file the script's text names by an absolute path, as it is: a
 * program by its content (followed, if a script), any other file by its
 * content, a directory or a missing path as such.  A wrapper's real tool
 * (`exec /usr/bin/ld "$@"`, Nix's /nix/store paths) and what it sources
 * are named so; a path it builds at run time is not, which the whole
 * environment and its own bytes stand for. */
static void key_named_files(struct ol_key *k, const char *text, int depth, struct keyed *keyed)
{
	struct ol_strvec seen = { 0 };

	for (const char *p = text; *p && seen.n < SCRIPT_NAMES_MAX && !k->uncacheable[0]; p++) {
		const char *end = p;
		struct stat st;
		char *path;

		if (*p != '/' || (p > text && path_char(p[-1])))
			continue;
		while (path_char(*end))
			end++;
		if (end - p < 2 || !(path = strndup(p, (size_t)(end - p))))
			continue;
		p = end - 1;
		if (!strncmp(path, "/proc/", 6) || !strncmp(path, "/sys/", 5) ||
		    !strncmp(path, "/dev/", 5) || ol_strvec_contains(&seen, path)) {
			free(path);
			continue;
		}
		ol_strvec_push(&seen, path);
		if (stat(path, &st) != 0)
			ol_key_text(k, "named by the script, missing", path);
		else if (S_ISDIR(st.st_mode))
			ol_key_text(k, "named by the script, a directory", path);
		else if (!S_ISREG(st.st_mode))
			ol_key_text(k, "named by the script, not a file", path);
		else if (access(path, X_OK) == 0)
			key_program_at(k, "named by the script", path, depth + 1, keyed);
		else
			ol_key_file(k, "named by the script", path);
		free(path);
	}
	if (seen.err)
		ol_key_refuse(k, "out of memory");
	ol_strvec_free(&seen);
}

/* A script: its bytes, its interpreter, the files it names, and the whole
 * environment (a shell reads its variables unseen). */
static void key_script(struct ol_key *k, const char *real, const char *text, int depth,
		       struct keyed *keyed)
{
	char *interp = interpreter(text);

	ol_key_program_content(k, "script content", real);
	ol_key_environment(k, "a script");
	if (interp)
		key_program_at(k, "interpreter", interp, depth + 1, keyed);
	else
		ol_key_text(k, "interpreter", "(none found)");
	free(interp);
	key_named_files(k, text, depth, keyed);
}

/* Whether real was keyed already for this program; noted if not. */
static bool keyed_before(struct ol_key *k, struct keyed *seen, const char *real)
{
	uintptr_t *slot;

	if (ol_strmap_get(&seen->set, real, strlen(real)))
		return true;
	if (ol_strvec_push(&seen->paths, real) ||
	    !(slot = ol_strmap_put(&seen->set, seen->paths.v[seen->paths.n - 1], strlen(real)))) {
		ol_key_refuse(k, "out of memory");
		return true;
	}
	*slot = 1;
	return false;
}

static void key_program_at(struct ol_key *k, const char *label, const char *path, int depth,
			   struct keyed *seen)
{
	struct dynamic dy = { 0 };
	char real[PATH_MAX], *text;
	bool is_static = false;
	size_t len = 0;

	ol_key_path(k, label, path);
	if (!realpath(path, real)) {
		ol_key_text(k, label, "missing");
		return;
	}
	if (keyed_before(k, seen, real)) {
		ol_key_text(k, label, "keyed above");
		return;
	}
	if (depth > SCRIPT_DEPTH_MAX) {
		ol_key_refuse(k, "scripts that run scripts more than %d deep", SCRIPT_DEPTH_MAX);
		return;
	}
	if ((text = script_text(real, &len))) {
		key_script(k, real, text, depth, seen);
		free(text);
		return;
	}
	if (key_binary(k, "program content", real, &dy, &is_static))
		key_libraries(k, real, &dy);
	if (is_static) {
		/* the recorder is never loaded into it: what it reads of the
		 * environment is unseen, and what it looks at too */
		k->opaque = true;
		ol_key_environment(k, "a statically linked program");
	}
	ol_strvec_free(&dy.needed);
	free(dy.rpath);
	free(dy.runpath);
}

void ol_key_program(struct ol_key *k, const char *label, const char *path)
{
	struct keyed seen = { 0 };

	key_program_at(k, label, path, 0, &seen);
	ol_strvec_free(&seen.paths);
	ol_strmap_free(&seen.set);
}

void ol_program_prefetch(struct ol_fdigest *files, const char *path)
{
	char real[PATH_MAX], id[160];
	struct stat st;
	bool elf;
	int fd;

	if (!realpath(path, real))
		return;
	fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	/* (small tools, clang's own binary among them, are not worth it) */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)OL_FDIGEST_AHEAD_MIN) {
		close(fd);
		return;
	}
	elf = read_elf(fd, NULL, id, sizeof(id), NULL);
	close(fd);
	if (!elf || !id[0])
		ol_fdigest_prefetch(files, real); /* (keyed by content, not build ID) */
}
