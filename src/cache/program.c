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

#include "common/strvec.h"

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

/* Read path's build ID and (dy not NULL) its dynamic section; false when
 * it is not an ELF file. */
static bool read_elf(int fd, struct dynamic *dy, char *id, size_t idlen)
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
 * section, read on the way. */
static bool key_binary(struct ol_key *k, const char *label, const char *path, struct dynamic *dy)
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
	elf = read_elf(fd, dy, id, sizeof(id));
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
			key_binary(k, "library", found, NULL);
		else
			ol_key_text(k, "library missing", name);
	}
}

void ol_key_program(struct ol_key *k, const char *label, const char *path)
{
	struct dynamic dy = { 0 };
	char real[PATH_MAX];

	ol_key_path(k, label, path);
	if (!realpath(path, real)) {
		ol_key_text(k, label, "missing");
		return;
	}
	if (key_binary(k, "program content", real, &dy))
		key_libraries(k, real, &dy);
	ol_strvec_free(&dy.needed);
	free(dy.rpath);
	free(dy.runpath);
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
	elf = read_elf(fd, NULL, id, sizeof(id));
	close(fd);
	if (!elf || !id[0])
		ol_fdigest_prefetch(files, real); /* (keyed by content, not build ID) */
}
