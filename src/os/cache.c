#include "os/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/le.h"
#include "os/digest.h"
#include "os/mapfile.h"
#include "os/outfile.h"
#include "os/scratch.h"

#define SUBDIRS 16
#define HEADER 64
static const char magic[16] = "OFFLINK-CACHE\0\0\1"; /* the last byte: format 1 */

enum ol_err ol_cache_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || *s < '0' || *s > '9')
		return OL_E_USAGE;
	errno = 0;
	v = strtoull(s, &end, 10);
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	case 'T': case 't': shift = 40; end++; break;
	default: break;
	}
	if (errno || *end || v == 0 || v > (UINT64_MAX >> shift))
		return OL_E_USAGE;
	*out = (uint64_t)v << shift;
	return OL_OK;
}

enum ol_err ol_cache_init(struct ol_cache *c, const char *dir, uint64_t cap)
{
	memset(c, 0, sizeof(*c));
	c->cap = cap;
	if (dir && !(c->dir = strdup(dir)))
		return OL_E_NOMEM;
	return OL_OK;
}

void ol_cache_free(struct ol_cache *c)
{
	free(c->dir);
	c->dir = NULL;
}

static void entry_path(const struct ol_cache *c, const char *key, char *out, size_t len)
{
	snprintf(out, len, "%s/%c/%s", c->dir, key[0], key);
}

/* The entry at path, checked: its value's bytes in *value, or false. */
static bool check_entry(const uint8_t *p, size_t n, const uint8_t **value, size_t *len)
{
	uint8_t digest[OL_DIGEST_SIZE];
	struct ol_digest h;
	uint64_t size;

	if (n < HEADER || memcmp(p, magic, sizeof(magic)) != 0)
		return false;
	size = ol_le64(p + 16);
	if (size != n - HEADER)
		return false;
	ol_digest_init(&h);
	ol_digest_add(&h, p + HEADER, (size_t)size);
	ol_digest_final(&h, digest);
	if (memcmp(digest, p + 24, OL_DIGEST_SIZE) != 0)
		return false;
	*value = p + HEADER;
	*len = (size_t)size;
	return true;
}

bool ol_cache_has(const struct ol_cache *c, const char *key)
{
	char path[4096];

	if (!c->dir)
		return false;
	entry_path(c, key, path, sizeof(path));
	return access(path, R_OK) == 0;
}

enum ol_cache_lookup ol_cache_get(struct ol_cache *c, const char *key, const char *dest)
{
	char path[4096];
	struct stat st;
	struct ol_diag d = { 0 };
	const uint8_t *value;
	size_t len;
	void *map = MAP_FAILED;
	int fd;
	enum ol_cache_lookup r = OL_CACHE_MISS;

	if (!c->dir)
		return OL_CACHE_MISS;
	entry_path(c, key, path, sizeof(path));
	/* Opened and checked by hand rather than with ol_map_file, which
	 * reads a pipe: something planted in a shared cache must not block. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return OL_CACHE_MISS;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return OL_CACHE_MISS;
	if (!check_entry(map, (size_t)st.st_size, &value, &len)) {
		unlink(path); /* a truncated or damaged entry is never used */
		r = OL_CACHE_CORRUPT;
	} else if (ol_scratch_write(dest, value, len, &d) == OL_OK) {
		r = OL_CACHE_HIT;
		utimensat(AT_FDCWD, path, NULL, 0); /* recently used */
	}
	munmap(map, (size_t)st.st_size);
	return r;
}

struct aged {
	char name[82];  /* "<subdir>/<key>" */
	struct timespec used;
	uint64_t size;
};

static int older(const void *a, const void *b)
{
	const struct aged *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The entries of one subdirectory appended to *v; temporaries a crashed
 * writer left go after an hour. */
static void list_subdir(const char *top, char sub, struct aged **v, size_t *n, size_t *cap,
			uint64_t *total)
{
	char path[4096];
	time_t now = time(NULL);
	DIR *dir;
	struct dirent *e;

	snprintf(path, sizeof(path), "%s/%c", top, sub);
	if (!(dir = opendir(path)))
		return;
	while ((e = readdir(dir))) {
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (e->d_name[0] == '.') {
			if (now - st.st_mtime > 3600)
				unlinkat(dirfd(dir), e->d_name, 0);
			continue;
		}
		if (strlen(e->d_name) > 2 * OL_DIGEST_SIZE)
			continue;
		if (*n == *cap) {
			struct aged *nv = realloc(*v, (*cap = *cap ? 2 * *cap : 64) * sizeof(**v));

			if (!nv)
				break;
			*v = nv;
		}
		snprintf((*v)[*n].name, sizeof((*v)[*n].name), "%c/%s", sub, e->d_name);
		(*v)[*n].used = st.st_mtim;
		(*v)[*n].size = (uint64_t)st.st_size;
		*total += (*v)[(*n)++].size;
	}
	closedir(dir);
}

/* Keep the cache within its cap: when over, the least recently used
 * entries go, down to nine tenths of the cap.  A stat per entry after
 * each store: entries are whole linked images, few enough for that. */
static void evict(struct ol_cache *c)
{
	static const char hex[] = "0123456789abcdef";
	struct aged *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;

	for (int i = 0; i < SUBDIRS; i++)
		list_subdir(c->dir, hex[i], &v, &n, &cap, &total);
	if (total > c->cap) {
		char path[4096];

		qsort(v, n, sizeof(*v), older);
		for (size_t i = 0; i < n && total > c->cap / 10 * 9; i++) {
			snprintf(path, sizeof(path), "%s/%s", c->dir, v[i].name);
			if (unlink(path) == 0 || errno == ENOENT)
				total -= v[i].size;
		}
	}
	free(v);
}

static bool make_dirs(const char *dir, const char *subdir)
{
	char path[4096];

	/* the cache directory and its parents, then the subdirectory */
	snprintf(path, sizeof(path), "%s", dir);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST)
			return false;
		*p = '/';
	}
	return (mkdir(dir, 0777) == 0 || errno == EEXIST) &&
	       (mkdir(subdir, 0777) == 0 || errno == EEXIST);
}

enum ol_err ol_cache_put(struct ol_cache *c, const char *key, const char *src,
			 struct ol_diag *d)
{
	char path[4096], subdir[4096];
	uint8_t header[HEADER] = { 0 };
	struct ol_digest h;
	struct ol_map m = { 0 };
	struct ol_outfile o = { .fd = -1 };

	if (!c->dir)
		return OL_OK;
	snprintf(subdir, sizeof(subdir), "%s/%c", c->dir, key[0]);
	entry_path(c, key, path, sizeof(path));
	if (!make_dirs(c->dir, subdir))
		return ol_diag_errno(d, errno, "cannot create the cache directory", subdir);
	if (ol_map_file(src, &m, d))
		return d->code;
	if (m.len == 0) {
		ol_unmap(&m);
		return ol_diag_set(d, OL_E_IO, "cache", "%s: empty", src);
	}
	memcpy(header, magic, sizeof(magic));
	ol_put_le64(header + 16, (uint64_t)m.len);
	ol_digest_init(&h);
	ol_digest_add(&h, m.data, m.len);
	ol_digest_final(&h, header + 24);
	/* A temporary beside the entry, renamed into place: a reader sees a
	 * whole entry or none, and a killed link leaves no stray file. */
	if (ol_out_open(&o, path, d) || ol_out_write(&o, header, sizeof(header), d) ||
	    ol_out_write(&o, m.data, m.len, d) || ol_out_commit(&o, false, d)) {
		ol_out_abort(&o);
		ol_unmap(&m);
		return d->code;
	}
	ol_unmap(&m);
	evict(c);
	return OL_OK;
}
