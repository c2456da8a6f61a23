#include "cache/local.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/le.h"
#include "common/nonstring.h"
#include "os/cleanup.h"
#include "os/scratch.h"

#define SHARDS OL_LOCAL_SHARDS
#define STALE_TEMP_S 3600
static const char hex[] = "0123456789abcdef";
static const char stats_magic[8] OL_NONSTRING = "OLSTATS1";

static void say_once(struct ol_local *s, bool *said, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say_once(struct ol_local *s, bool *said, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (*said || !s->warn)
		return;
	*said = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->warn(s->warn_ctx, msg);
}

const char *ol_stat_name(enum ol_stat s)
{
	static const char *const names[OL_STAT__COUNT] = {
		[OL_STAT_LOCAL_HIT] = "local hits",
		[OL_STAT_REMOTE_HIT] = "remote hits",
		[OL_STAT_MISS] = "misses",
		[OL_STAT_UNCACHEABLE] = "not cacheable",
		[OL_STAT_LOCAL_STORE] = "stored locally",
		[OL_STAT_REMOTE_STORE] = "stored remotely",
		[OL_STAT_REJECTED] = "entries rejected",
		[OL_STAT_REMOTE_ERROR] = "remote errors",
		[OL_STAT_EVICTED] = "entries evicted",
		[OL_STAT_STEP_HIT] = "ThinLTO steps served",
		[OL_STAT_STEP_MISS] = "ThinLTO steps run",
	};

	return s < OL_STAT__COUNT ? names[s] : "?";
}

/* Writable by someone other than its owner, or owned by someone other
 * than this user and root: not safe for a private store. */
static const char *unsafe(const struct stat *st)
{
	static char why[96];

	if (st->st_uid != geteuid() && st->st_uid != 0) {
		snprintf(why, sizeof(why), "owned by uid %lu", (unsigned long)st->st_uid);
		return why;
	}
	if (st->st_mode & 0022) {
		snprintf(why, sizeof(why), "writable by %s (mode %04o)",
			 st->st_mode & 0002 ? "everyone" : "its group", (unsigned)(st->st_mode & 07777));
		return why;
	}
	return NULL;
}

/* mkdir -p for the store's directory; what is made is the user's alone. */
static void make_path(const char *dir)
{
	char *p = strdup(dir);

	if (!p)
		return;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(p, 0700);
		*s = '/';
	}
	mkdir(p, 0700);
	free(p);
}

static enum ol_err check_shards(struct ol_local *s, struct ol_diag *d)
{
	for (int i = 0; i < SHARDS; i++) {
		char name[2] = { hex[i], 0 };
		struct stat st;
		const char *why;

		if (fstatat(s->fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (!S_ISDIR(st.st_mode))
			return ol_diag_set(d, OL_E_UNSUPPORTED, NULL,
					   "%s/%s is not a directory (a link or a file planted there?)",
					   s->dir, name);
		if (!s->shared && (why = unsafe(&st)))
			return ol_diag_set(d, OL_E_UNSUPPORTED, NULL, "%s/%s is %s", s->dir, name, why);
	}
	return OL_OK;
}

enum ol_err ol_local_open(struct ol_local *s, const char *dir, uint64_t cap, bool shared,
			  const struct ol_secret *secret, struct ol_diag *d)
{
	struct stat st;
	const char *why;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->cap = cap;
	s->shared = shared;
	s->secret = shared ? secret : NULL;
	if (!(s->dir = strdup(dir)))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if (!shared)
		make_path(dir);
	s->fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->fd < 0)
		return ol_diag_errno(d, errno, "cannot open the cache directory", dir);
	if (fstat(s->fd, &st) != 0)
		return ol_diag_errno(d, errno, "cannot stat the cache directory", dir);
	s->mode = (unsigned)(st.st_mode & 07777);
	if (!shared && (why = unsafe(&st)))
		return ol_diag_set(d, OL_E_UNSUPPORTED, NULL, "%s is %s", dir, why);
	return check_shards(s, d);
}

void ol_local_close(struct ol_local *s)
{
	ol_local_flush_counts(s);
	if (s->fd >= 0)
		close(s->fd);
	free(s->dir);
	free(s->tool_dir);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

/* The shard's directory for key's first digit: opened without following
 * a link, checked again (it may have changed since ol_local_open), made
 * when create is set.  -1 when there is none or it is not safe. */
static int shard(struct ol_local *s, char digit, bool create)
{
	char name[2] = { digit, 0 };
	struct stat st;
	int fd;

	fd = openat(s->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create &&
	    mkdirat(s->fd, name, s->shared ? 0777 : 0700) == 0) {
		fd = openat(s->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && s->shared)
			fchmod(fd, s->mode); /* as the top directory: 1777, 2775 ... */
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || (!s->shared && unsafe(&st))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- a directory a tool is handed (lld's ThinLTO cache) ---- */

/* <dir>/<name>, opened without following a link; made (0700) first when
 * make is set.  -1 when it is absent; -1 with *why when it is there but
 * not a directory or not safe for a private store. */
static int open_tool_dir(struct ol_local *s, const char *name, bool make, const char **why)
{
	struct stat st;
	int fd;

	*why = NULL;
	if (make && mkdirat(s->fd, name, 0700) != 0 && errno != EEXIST) {
		*why = "not a directory offlink can make";
		return -1;
	}
	fd = openat(s->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			*why = "not a directory (a link or a file planted there?)";
		return -1;
	}
	if (fstat(fd, &st) != 0 || (*why = unsafe(&st))) {
		close(fd);
		return -1;
	}
	return fd;
}

const char *ol_local_tool_dir(struct ol_local *s, const char *name)
{
	const char *why;
	int fd;

	if (s->fd < 0 || s->shared)
		return NULL;
	free(s->tool_dir);
	s->tool_dir = NULL;
	if ((fd = open_tool_dir(s, name, true, &why)) < 0) {
		say_once(s, &s->said_tool_dir,
			 "device-link cache %s/%s is %s: lld's ThinLTO cache is not used, since "
			 "anything planted there would be linked as lld's own; remove it (offlink "
			 "--cache-clear empties and removes it)",
			 s->dir, name, why ? why : "not usable");
		return NULL;
	}
	close(fd);
	if (asprintf(&s->tool_dir, "%s/%s", s->dir, name) < 0)
		s->tool_dir = NULL;
	return s->tool_dir;
}

static void key_name(const uint8_t key[32], char out[65])
{
	ol_digest_hex(key, out);
}

/* A regular file opened without following a link or blocking, read
 * whole (never mapped: a file in a shared directory can be truncated by
 * its owner while it is read, and a mapping would then kill the link). */
static bool read_entry(int dirfd, const char *name, uint64_t max, struct ol_buf *b)
{
	struct stat st;
	ssize_t n;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < OL_ENTRY_HEADER ||
	    (uint64_t)st.st_size > max || ol_buf_reserve(b, (size_t)st.st_size)) {
		close(fd);
		return false;
	}
	b->len = 0;
	while (b->len < (size_t)st.st_size &&
	       (n = pread(fd, b->data + b->len, (size_t)st.st_size - b->len, (off_t)b->len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		b->len += (size_t)n;
	}
	futimens(fd, NULL); /* recently used (another user's entry: not ours to touch) */
	close(fd);
	return true;
}

enum ol_local_result ol_local_get(struct ol_local *s, enum ol_entry_type type,
				  const uint8_t key[32], const char *dest, struct ol_buf *out)
{
	struct ol_buf b = { 0 };
	struct ol_diag d;
	const uint8_t *value;
	size_t vlen;
	char name[65];
	int sub;
	enum ol_local_result r = OL_LOCAL_MISS;

	if (s->fd < 0)
		return OL_LOCAL_MISS;
	key_name(key, name);
	if ((sub = shard(s, name[0], false)) < 0)
		return OL_LOCAL_MISS;
	if (!read_entry(sub, name, s->cap + OL_ENTRY_HEADER, &b)) {
		/* absent, or not a regular file: never used */
	} else if (!ol_entry_check(b.data, b.len, type, key, s->secret, &value, &vlen)) {
		unlinkat(sub, name, 0);
		r = OL_LOCAL_REJECTED;
	} else {
		ol_diag_clear(&d);
		if (dest ? ol_scratch_write(dest, value, vlen, &d) == OL_OK
			 : ol_buf_append(out, value, vlen) == OL_OK)
			r = OL_LOCAL_HIT;
	}
	ol_buf_free(&b);
	close(sub);
	return r;
}

static void temp_name(char out[32])
{
	uint64_t r = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
	snprintf(out, 32, ".tmp.%016llx", (unsigned long long)r);
}

static bool write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		b += w;
		n -= (size_t)w;
	}
	return true;
}

static void evict(struct ol_local *s);
static void add_counts(struct ol_local *s, char digit, const uint64_t n[OL_STAT__COUNT]);

enum ol_err ol_local_put(struct ol_local *s, enum ol_entry_type type, const uint8_t key[32],
			 const void *value, size_t n, struct ol_diag *d)
{
	uint8_t header[OL_ENTRY_HEADER];
	char name[65], tmp[32], *path = NULL;
	int sub, fd;
	bool ok;

	if (s->fd < 0)
		return OL_OK;
	key_name(key, name);
	if ((sub = shard(s, name[0], true)) < 0) {
		say_once(s, &s->said_shard, "device-link cache %s/%c: cannot be created or used; "
					    "entries for its keys are not stored", s->dir, name[0]);
		return ol_diag_set(d, OL_E_IO, NULL, "%s/%c: cannot create or use it", s->dir, name[0]);
	}
	temp_name(tmp);
	/* A killed link leaves no temporary in the store: registered (and
	 * told to the watchdog) before it exists. */
	if (asprintf(&path, "%s/%c/%s", s->dir, name[0], tmp) < 0)
		path = NULL;
	if (path)
		ol_cleanup_add_file(path);
	fd = openat(sub, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    s->shared ? 0644 : 0600);
	if (fd < 0) {
		enum ol_err rc = ol_diag_errno(d, errno, "cannot write in the cache directory", s->dir);
		struct stat st;

		if (fstat(sub, &st) == 0)
			say_once(s, &s->said_shard,
				 "device-link cache %s/%c: you cannot write it (owned by uid %lu, mode "
				 "%04o): entries for its keys are not stored; its owner can make it "
				 "writable (chmod %04o %s/%c) or remove it",
				 s->dir, name[0], (unsigned long)st.st_uid, (unsigned)(st.st_mode & 07777),
				 s->mode & 07777, s->dir, name[0]);
		close(sub);
		ol_cleanup_forget(path ? path : "");
		free(path);
		return rc;
	}
	ol_entry_header(header, type, key, value, n, s->secret);
	ok = write_all(fd, header, sizeof(header)) && write_all(fd, value, n);
	ok = close(fd) == 0 && ok && renameat(sub, tmp, sub, name) == 0;
	if (!ok)
		unlinkat(sub, tmp, 0);
	if (path)
		ol_cleanup_forget(path);
	free(path);
	close(sub);
	if (!ok)
		return ol_diag_errno(d, errno, "cannot store in the cache directory", s->dir);
	evict(s);
	return OL_OK;
}

static bool entry_name(const char *name)
{
	if (strlen(name) != 64)
		return false;
	for (int i = 0; i < 64; i++)
		if (!strchr(hex, name[i]) || !name[i])
			return false;
	return true;
}

struct aged {
	int shard;            /* its shard's index, or SHARDS: lld's directory */
	char name[96];
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

/* Whether this user can remove st, an entry of the shard sub: the
 * shard writable, and, when it is sticky, the entry or the shard its own. */
static bool removable(int sub, const struct stat *dir, const struct stat *st)
{
	uid_t me = geteuid();

	if (me == 0)
		return true;
	if (faccessat(sub, ".", W_OK | X_OK, AT_EACCESS) != 0)
		return false;
	return !(dir->st_mode & S_ISVTX) || st->st_uid == me || dir->st_uid == me;
}

struct tally {
	uint64_t total;       /* what this user's eviction can act on: bytes
			       * on disk (allocated blocks, not apparent size) */
	size_t kept;          /* entries that cannot be removed here */
	uint64_t kept_bytes;
	size_t entries;       /* offlink's entries among them */
	uint64_t tool_files, tool_bytes; /* lld's, in total too */
};

struct listing {
	struct aged *v;
	size_t n, cap;
	bool oom;
};

/* One more file for the eviction to weigh (a name too long for one is
 * none of the store's). */
static void add_aged(struct listing *ls, int index, const char *name, struct timespec used,
		     const struct stat *st, struct tally *t)
{
	struct aged *a;

	if (strlen(name) >= sizeof(a->name))
		return;
	if (!(a = ol_grow(ls->v, ls->n, &ls->cap, sizeof(*a), 64))) {
		ls->oom = true;
		return;
	}
	ls->v = a;
	a += ls->n++;
	a->shard = index;
	strcpy(a->name, name);
	a->used = used;
	a->size = (uint64_t)st->st_blocks * 512;
	t->total += a->size;
	t->entries += index < SHARDS;
}

/* Each regular file of the shard with an entry's name, and stale
 * temporaries removed; nothing else is looked at.  An entry this user
 * cannot remove is not counted (one another user planted would
 * otherwise make every store evict everything). */
static void list_shard(int sub, int index, struct listing *ls, struct tally *t, bool remove_all)
{
	time_t now = time(NULL);
	int fd = dup(sub);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	struct stat dst;

	if (!dir || fstat(sub, &dst) != 0) {
		if (dir)
			closedir(dir);
		else if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(dir)) && !ls->oom) {
		struct stat st;

		if (fstatat(sub, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (strncmp(e->d_name, ".tmp.", 5) == 0) {
			if (remove_all || now - st.st_mtime > STALE_TEMP_S)
				unlinkat(sub, e->d_name, 0);
			continue;
		}
		if (remove_all && strcmp(e->d_name, "stats") == 0)
			unlinkat(sub, e->d_name, 0);
		if (!entry_name(e->d_name))
			continue;
		if (remove_all) {
			unlinkat(sub, e->d_name, 0);
			continue;
		}
		if (!removable(sub, &dst, &st)) {
			t->kept++;
			t->kept_bytes += (uint64_t)st.st_blocks * 512;
			continue;
		}
		add_aged(ls, index, e->d_name, st.st_mtim, &st, t);
	}
	closedir(dir);
}

/* lld's files in its ThinLTO cache directory (checked: the user's own),
 * used as LLVM's own pruning sees them (last read, or written). */
static void list_tool_dir(int tool, struct listing *ls, struct tally *t)
{
	int fd = dup(tool);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(dir)) && !ls->oom) {
		struct stat st;
		size_t before = ls->n;

		if (strncmp(e->d_name, OL_LOCAL_LLD_PREFIX, strlen(OL_LOCAL_LLD_PREFIX)) != 0 ||
		    fstatat(tool, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		add_aged(ls, SHARDS, e->d_name,
			 st.st_atim.tv_sec > st.st_mtim.tv_sec ? st.st_atim : st.st_mtim, &st, t);
		if (ls->n > before) {
			t->tool_files++;
			t->tool_bytes += ls->v[before].size;
		}
	}
	closedir(dir);
}

/* Over the cap: the least recently used go, down to nine tenths of it --
 * entries and lld's files alike, so that the cap holds for everything
 * the store keeps. */
static void walk(struct ol_local *s, struct ol_local_usage *u, bool evicting, bool remove_all)
{
	int subs[SHARDS + 1];
	struct listing ls = { 0 };
	struct tally t = { 0 };
	uint64_t evicted = 0;
	const char *why;

	for (int i = 0; i < SHARDS; i++) {
		subs[i] = shard(s, hex[i], false);
		if (subs[i] >= 0)
			list_shard(subs[i], i, &ls, &t, remove_all);
	}
	subs[SHARDS] = s->shared || remove_all ? -1
			: open_tool_dir(s, OL_LOCAL_LLD_THINLTO, false, &why);
	if (subs[SHARDS] >= 0)
		list_tool_dir(subs[SHARDS], &ls, &t);
	if (t.kept)
		say_once(s, &s->said_unremovable,
			 "device-link cache %s: %zu entries (%llu KiB on disk) are another user's and "
			 "cannot be removed by you; they are not counted against the cache's size",
			 s->dir, t.kept, (unsigned long long)(t.kept_bytes / 1024));
	if (evicting && t.total > s->cap && !ls.oom) {
		qsort(ls.v, ls.n, sizeof(*ls.v), older);
		for (size_t i = 0; i < ls.n && t.total > s->cap / 10 * 9; i++) {
			struct aged *a = &ls.v[i];

			if (unlinkat(subs[a->shard], a->name, 0) != 0 && errno != ENOENT)
				continue;
			t.total -= a->size;
			if (a->shard == SHARDS) {
				t.tool_files--;
				t.tool_bytes -= a->size;
			} else {
				evicted++;
			}
		}
	}
	if (u)
		*u = (struct ol_local_usage){ t.entries - evicted, t.total, t.tool_files,
					      t.tool_bytes };
	for (int i = 0; i <= SHARDS; i++)
		if (subs[i] >= 0)
			close(subs[i]);
	free(ls.v);
	if (evicted)
		add_counts(s, '0', (uint64_t[OL_STAT__COUNT]){ [OL_STAT_EVICTED] = evicted });
}

static void evict(struct ol_local *s)
{
	walk(s, NULL, true, false);
}

/* The shard's counters file, locked for an update (create), or as it is
 * for reading.  The lock is never waited for long: another process,
 * another user's even, may hold it, and statistics never hold up a link
 * (a few tries over about 20 ms, then the update is skipped, said once). */
static int open_stats(struct ol_local *s, char digit, bool create)
{
	int sub = shard(s, digit, create), fd;
	struct stat st;

	if (sub < 0)
		return -1;
	fd = openat(sub, "stats", (create ? O_RDWR | O_CREAT : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		    s->shared ? 0666 : 0600);
	close(sub);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	if (!create)
		return fd;
	for (int tries = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; tries++) {
		if ((errno != EWOULDBLOCK && errno != EINTR) || tries == 10) {
			say_once(s, &s->said_stats,
				 "device-link cache %s/%c/stats: locked by another process; the "
				 "statistics of this link are not counted",
				 s->dir, digit);
			close(fd);
			return -1;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
	}
	return fd;
}

static void read_counters(int fd, uint64_t c[OL_STAT__COUNT])
{
	uint8_t b[8 + 8 * OL_STAT__COUNT];
	ssize_t n = pread(fd, b, sizeof(b), 0);

	memset(c, 0, sizeof(uint64_t) * OL_STAT__COUNT);
	if (n < 8 || memcmp(b, stats_magic, 8) != 0)
		return;
	for (int i = 0; i < OL_STAT__COUNT && 8 + 8 * (i + 1) <= n; i++)
		c[i] = ol_le64(b + 8 + 8 * i);
}

/* Add n[] to the shard's counters (one locked read and write). */
static void add_counts(struct ol_local *s, char digit, const uint64_t n[OL_STAT__COUNT])
{
	uint64_t c[OL_STAT__COUNT];
	uint8_t b[8 + 8 * OL_STAT__COUNT];
	int fd;

	if (s->fd < 0 || (fd = open_stats(s, digit, true)) < 0)
		return;
	read_counters(fd, c);
	for (int i = 0; i < OL_STAT__COUNT; i++)
		c[i] += n[i];
	memcpy(b, stats_magic, 8);
	for (int i = 0; i < OL_STAT__COUNT; i++)
		ol_put_le64(b + 8 + 8 * i, c[i]);
	if (pwrite(fd, b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		/* a counter lost is not worth failing anything for */
	}
	close(fd);
}

/* Counting is deferred: a fresh worker's lookup spent 3 ms making shard
 * directories and stats files for its first counts. */
void ol_local_count(struct ol_local *s, const uint8_t key[32], enum ol_stat stat)
{
	s->pending[key[0] >> 4][stat]++;
	s->any_pending = true;
}

void ol_local_flush_counts(struct ol_local *s)
{
	if (!s->any_pending)
		return;
	s->any_pending = false;
	for (int i = 0; i < SHARDS; i++) {
		uint64_t *c = s->pending[i];
		bool any = false;

		for (int k = 0; k < OL_STAT__COUNT; k++)
			any |= c[k] != 0;
		if (any)
			add_counts(s, hex[i], c);
		memset(c, 0, sizeof(s->pending[i]));
	}
}

void ol_local_stats(struct ol_local *s, uint64_t counters[OL_STAT__COUNT],
		    struct ol_local_usage *u)
{
	memset(counters, 0, sizeof(uint64_t) * OL_STAT__COUNT);
	memset(u, 0, sizeof(*u));
	if (s->fd < 0)
		return;
	for (int i = 0; i < SHARDS; i++) {
		uint64_t c[OL_STAT__COUNT];
		int fd = open_stats(s, hex[i], false);

		if (fd < 0)
			continue;
		read_counters(fd, c);
		close(fd);
		for (int k = 0; k < OL_STAT__COUNT; k++)
			counters[k] += c[k];
	}
	walk(s, u, false, false);
}

/* lld's ThinLTO cache: its files, then the directory (made again, the
 * user's alone, by the next link that needs it: so a directory refused
 * for its mode is mended too).  Only the user's own directory, reached
 * without following a link; files of other names stay, and with them the
 * directory. */
static void clear_tool_dir(struct ol_local *s, const char *name)
{
	int fd = openat(s->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	struct stat st;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	if (fstat(fd, &st) != 0 || (st.st_uid != geteuid() && geteuid() != 0)) {
		closedir(dir);
		return;
	}
	while ((e = readdir(dir)))
		if (strncmp(e->d_name, "llvmcache", 9) == 0)
			unlinkat(fd, e->d_name, 0);
	closedir(dir);
	unlinkat(s->fd, name, AT_REMOVEDIR);
}

void ol_local_clear(struct ol_local *s)
{
	if (s->fd < 0)
		return;
	walk(s, NULL, false, true);
	if (!s->shared)
		clear_tool_dir(s, OL_LOCAL_LLD_THINLTO);
}
