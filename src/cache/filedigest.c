#include "cache/filedigest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/nonstring.h"

#include <xxhash.h>
#if defined(__x86_64__) && __has_include(<xxh_x86dispatch.h>)
/* The same XXH3, with the widest vectors the CPU has (AVX2, AVX-512)
 * rather than the SSE2 the library is built for: 37 MB in 1.5 ms, not 2. */
#include <xxh_x86dispatch.h>
#define xxh3_128(p, n) XXH3_128bits_dispatch(p, n)
#else
#define xxh3_128(p, n) XXH3_128bits(p, n)
#endif
#include "os/cleanup.h"

#define CHUNK (1u << 20)
#define MAP_MIN (1u << 20)
#define RACY_S 2

struct ol_fdigest_seen {
	char *path;
	enum ol_err err;
	bool digested;             /* digest holds */
	bool fast_done;            /* fast holds (ol_fdigest_program) */
	enum ol_err fast_err;
	uint8_t fast[OL_DIGEST_SIZE];
	bool noted;                /* st holds (noted, or digested) */
	uint8_t digest[OL_DIGEST_SIZE];
	struct ol_fstate st;
};

static const char memo_magic[8] OL_NONSTRING = "OLFDGST1";

/* A program digested ahead, in a thread (ol_fdigest_prefetch). */
struct ol_fdigest_ahead {
	char *path;
	int fd;
	struct stat st;            /* fd's, when the thread was started */
	pthread_t thread;
	bool joined, ok;
	bool remembered;           /* the digest is the memo's: no thread ran */
	uint8_t digest[OL_DIGEST_SIZE];
};
static void ahead_join(struct ol_fdigest_ahead *a);

/* Owned by this user (or root) and writable by nobody else: a
 * directory in which only this user can make or replace a file. */
static bool private_to_user(const struct stat *st)
{
	return (st->st_uid == geteuid() || st->st_uid == 0) && !(st->st_mode & 022);
}

void ol_fdigest_init(struct ol_fdigest *m, const char *memo_dir)
{
	char *parent;
	struct stat st;
	int fd;

	memset(m, 0, sizeof(*m));
	m->memo_fd = -1;
	if (!memo_dir)
		return;
	/* The directory holding it must be the user's too, or someone could
	 * put another directory in its place. */
	if (!(parent = strdup(memo_dir)))
		return;
	if (strrchr(parent, '/') && strrchr(parent, '/') != parent)
		*strrchr(parent, '/') = '\0';
	if (lstat(parent, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    (!private_to_user(&st) && !(st.st_uid == 0 && (st.st_mode & S_ISVTX)))) {
		free(parent);
		return;
	}
	free(parent);
	if (mkdir(memo_dir, 0700) != 0 && errno != EEXIST)
		return;
	fd = open(memo_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077) ||
	    !(m->memo_dir = strdup(memo_dir))) {
		close(fd);
		return;
	}
	m->memo_fd = fd;
}

void ol_fdigest_free(struct ol_fdigest *m)
{
	ol_fdigest_flush(m);
	free(m->pending);
	for (size_t i = 0; i < m->nahead; i++) {
		ahead_join(m->ahead[i]);
		free(m->ahead[i]->path);
		free(m->ahead[i]);
	}
	free(m->ahead);
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	ol_strmap_free(&m->seen);
	if (m->memo_fd >= 0)
		close(m->memo_fd);
	free(m->memo_dir);
	memset(m, 0, sizeof(*m));
	m->memo_fd = -1;
}

/* The memo record's name: a digest of the path and everything stat says
 * that a change of content changes. */
/* How a file's content is digested: SHA-256 (inputs: collision
 * resistance matters, cache/filedigest.h), or XXH3-128 (programs without
 * a build ID: ptxas and nvlink are 37 MB each, 25 ms of SHA-256 apiece on
 * a fresh worker; a program others could make collide with another is
 * one they could have made the link run anyway). */
enum algo { CONTENT, PROGRAM };

static void memo_name_of(enum algo a, const char *path, const struct stat *st,
			 char out[2 * OL_DIGEST_SIZE + 1])
{
	struct ol_digest h;
	uint8_t d[OL_DIGEST_SIZE];

	ol_digest_init(&h);
	ol_digest_add_str(&h, a == PROGRAM ? "offlink program digest 1" : "offlink file digest 1");
	ol_digest_add_str(&h, path);
	ol_digest_add_u64(&h, (uint64_t)st->st_dev);
	ol_digest_add_u64(&h, (uint64_t)st->st_ino);
	ol_digest_add_u64(&h, (uint64_t)st->st_size);
	ol_digest_add_u64(&h, (uint64_t)st->st_mtim.tv_sec);
	ol_digest_add_u64(&h, (uint64_t)st->st_mtim.tv_nsec);
	ol_digest_add_u64(&h, (uint64_t)st->st_ctim.tv_sec);
	ol_digest_add_u64(&h, (uint64_t)st->st_ctim.tv_nsec);
	ol_digest_final(&h, d);
	ol_digest_hex(d, out);
}

void ol_fdigest_memo_name(const char *path, const struct stat *st,
			  char out[2 * OL_DIGEST_SIZE + 1])
{
	memo_name_of(CONTENT, path, st, out);
}

static bool memo_get(struct ol_fdigest *m, const char *name, uint8_t out[OL_DIGEST_SIZE])
{
	uint8_t rec[sizeof(memo_magic) + OL_DIGEST_SIZE];
	struct stat st;
	int fd;
	bool ok;

	if (m->memo_fd < 0)
		return false;
	fd = openat(m->memo_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	     st.st_size == (off_t)sizeof(rec) &&
	     pread(fd, rec, sizeof(rec), 0) == (ssize_t)sizeof(rec) &&
	     memcmp(rec, memo_magic, sizeof(memo_magic)) == 0;
	if (ok) {
		memcpy(out, rec + sizeof(memo_magic), OL_DIGEST_SIZE);
		futimens(fd, NULL); /* used: not forgotten */
	}
	close(fd);
	return ok;
}

static void memo_write(struct ol_fdigest *m, const char *name, const uint8_t d[OL_DIGEST_SIZE])
{
	uint8_t rec[sizeof(memo_magic) + OL_DIGEST_SIZE];
	char tmp[80], *path = NULL;
	uint64_t r = 0;
	int fd;

	if (m->memo_fd < 0)
		return;
	memcpy(rec, memo_magic, sizeof(memo_magic));
	memcpy(rec + sizeof(memo_magic), d, OL_DIGEST_SIZE);
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = (uint64_t)getpid() ^ (uint64_t)time(NULL) << 20;
	snprintf(tmp, sizeof(tmp), ".tmp.%016llx", (unsigned long long)r);
	/* known to the cleanup registry (and so the watchdog) before it
	 * exists: a killed link leaves no temporary here */
	if (asprintf(&path, "%s/%s", m->memo_dir, tmp) < 0 || ol_cleanup_add_file(path)) {
		free(path);
		return;
	}
	fd = openat(m->memo_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		bool ok = write(fd, rec, sizeof(rec)) == (ssize_t)sizeof(rec);

		ok = close(fd) == 0 && ok && renameat(m->memo_fd, tmp, m->memo_fd, name) == 0;
		if (!ok)
			unlinkat(m->memo_fd, tmp, 0);
	}
	ol_cleanup_forget(path);
	free(path);
}

/* A record is written later, by ol_fdigest_flush: a fresh worker makes
 * some twenty of them, and creating a file is the dearest thing its
 * lookup did (ext4 looking for a free inode).  What is recorded was
 * decided when the file was read; writing it later changes nothing (the
 * name holds the file's state). */
static void memo_put(struct ol_fdigest *m, const char *name, const uint8_t d[OL_DIGEST_SIZE])
{
	struct ol_fdigest_record *v;

	if (m->memo_fd < 0)
		return;
	v = ol_grow(m->pending, m->npending, &m->cappending, sizeof(*m->pending), 16);
	if (!v)
		return; /* (not remembered: digested again next time) */
	m->pending = v;
	memcpy(v[m->npending].name, name, sizeof(v->name));
	memcpy(v[m->npending].digest, d, OL_DIGEST_SIZE);
	m->npending++;
}

void ol_fdigest_flush(struct ol_fdigest *m)
{
	for (size_t i = 0; i < m->npending; i++)
		memo_write(m, m->pending[i].name, m->pending[i].digest);
	m->npending = 0;
}

/* A program digest: XXH3-128 of the content, in out's first 16 bytes
 * (big-endian, as XXH's canonical form), the rest zero. */
static void program_digest(XXH128_hash_t h, uint8_t out[OL_DIGEST_SIZE])
{
	XXH128_canonical_t c;

	XXH128_canonicalFromHash(&c, h);
	memset(out, 0, OL_DIGEST_SIZE);
	memcpy(out, c.digest, sizeof(c.digest));
}

/* A large program mapped to be digested (here, and by the threads that
 * digest ahead).  Its pages fault in as the hash reaches them, not all at
 * once (MAP_POPULATE, not even faster alone: 6.8-7.6 ms against 6.2-6.5
 * for ptxas's 37 MB here, one thread): filling 9,000 page-table entries holds the process's mmap
 * lock for 3-4 ms, and the other threads' mmap calls (libcurl loading,
 * the main thread's mappings) wait behind it, where a fault takes only its
 * own mapping's lock.  Paired fresh-worker links: 3-6 ms less before ld. */
static void *map_program(int fd, size_t size)
{
	return mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
}

/* A large program (ptxas, nvlink: 37 MB each) digested from a mapping:
 * about half the time of reading it through a buffer, on a link that
 * remembers nothing (a fresh worker).  The mapping is watched: a program
 * that shrinks while it is digested stops the link with its name
 * (os/cleanup.h), as any input does.  False: not mapped, read it
 * instead. */
static bool hash_mapped(struct ol_fdigest *m, int fd, const char *path, size_t size,
			uint8_t out[OL_DIGEST_SIZE])
{
	void *p;

	if (size < MAP_MIN)
		return false;
	p = map_program(fd, size);
	if (p == MAP_FAILED)
		return false;
	if (ol_cleanup_watch_mapping(p, size, path)) {
		munmap(p, size);
		return false;
	}
	program_digest(xxh3_128(p, size), out);
	ol_cleanup_forget_mapping(p);
	munmap(p, size);
	m->bytes_read += size;
	return true;
}

/* Read fd to its end (size: what fstat said), digested the algo's way
 * into out. */
static enum ol_err hash_fd(struct ol_fdigest *m, int fd, const char *path, enum algo a,
			   size_t size, uint8_t out[OL_DIGEST_SIZE], struct ol_diag *d)
{
	static uint8_t *buf;
	struct ol_digest h;
	XXH3_state_t *x = NULL;
	ssize_t n;

	if (a == PROGRAM && hash_mapped(m, fd, path, size, out))
		return OL_OK;
	if (!buf && !(buf = malloc(CHUNK)))
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if (a == PROGRAM && (!(x = XXH3_createState()) || XXH3_128bits_reset(x) != XXH_OK)) {
		XXH3_freeState(x);
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	}
	ol_digest_init(&h);
	while ((n = read(fd, buf, CHUNK)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			XXH3_freeState(x);
			return ol_diag_errno(d, errno, "cannot read", path);
		}
		if (x)
			XXH3_128bits_update(x, buf, (size_t)n);
		else
			ol_digest_add(&h, buf, (size_t)n);
		m->bytes_read += (uint64_t)n;
	}
	memset(out, 0, OL_DIGEST_SIZE);
	if (x) {
		program_digest(XXH3_128bits_digest(x), out);
		XXH3_freeState(x);
	} else {
		ol_digest_final(&h, out);
	}
	return OL_OK;
}

static void state_from(const struct stat *st, struct ol_fstate *out)
{
	*out = (struct ol_fstate){
		.exists = true,
		.ok = S_ISREG(st->st_mode),
		.dev = (uint64_t)st->st_dev,
		.ino = (uint64_t)st->st_ino,
		.size = (uint64_t)st->st_size,
		.mtime_s = (int64_t)st->st_mtim.tv_sec,
		.mtime_ns = (int64_t)st->st_mtim.tv_nsec,
		.ctime_s = (int64_t)st->st_ctim.tv_sec,
		.ctime_ns = (int64_t)st->st_ctim.tv_nsec,
	};
}

void ol_fstate_of(const char *path, struct ol_fstate *out)
{
	struct stat st;

	if (stat(path, &st) == 0)
		state_from(&st, out);
	else
		*out = (struct ol_fstate){ .exists = false };
}

static bool same_state(const struct ol_fstate *a, const struct ol_fstate *b)
{
	if (a->exists != b->exists)
		return false;
	return !a->exists ||
	       (a->ok == b->ok && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
		a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns &&
		a->ctime_s == b->ctime_s && a->ctime_ns == b->ctime_ns);
}

static bool same_stat(const struct stat *a, const struct stat *b)
{
	struct ol_fstate x, y;

	state_from(a, &x);
	state_from(b, &y);
	return same_state(&x, &y);
}

/* ---- programs digested ahead, in threads ---- */


static void *ahead_main(void *arg)
{
	struct ol_fdigest_ahead *a = arg;
	size_t size = (size_t)a->st.st_size;
	void *volatile p = MAP_FAILED;
	sigjmp_buf env;

	/* The file shrinking under the mapping faults: this thread gives up
	 * (the main thread reads it again, watched, and says so). */
	if (sigsetjmp(env, 1) == 0) {
		ol_cleanup_escape_faults(&env);
		p = map_program(a->fd, size);
		if (p != MAP_FAILED) {
			program_digest(xxh3_128(p, size), a->digest);
			a->ok = true;
		}
	}
	ol_cleanup_escape_faults(NULL);
	if (p != MAP_FAILED)
		munmap(p, size);
	return NULL;
}

static bool same_stat(const struct stat *a, const struct stat *b);

void ol_fdigest_prefetch(struct ol_fdigest *m, const char *path)
{
	char name[2 * OL_DIGEST_SIZE + 1];
	struct ol_fdigest_ahead *a, **v;
	sigset_t all, old;
	struct stat st;
	int fd;

	for (size_t i = 0; i < m->nahead; i++)
		if (strcmp(m->ahead[i]->path, path) == 0)
			return;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)OL_FDIGEST_AHEAD_MIN) {
		close(fd);
		return;
	}
	if (!(v = ol_grow(m->ahead, m->nahead, &m->capahead, sizeof(*m->ahead), 4))) {
		close(fd);
		return;
	}
	m->ahead = v;
	if (!(a = calloc(1, sizeof(*a))) || !(a->path = strdup(path))) {
		free(a);
		close(fd);
		return;
	}
	a->fd = fd;
	a->st = st;
	/* remembered: kept as it is, so that the key does not read the memo
	 * a second time */
	memo_name_of(PROGRAM, path, &st, name);
	if (memo_get(m, name, a->digest)) {
		close(fd);
		a->fd = -1;
		a->joined = a->ok = a->remembered = true;
		m->ahead[m->nahead++] = a;
		return;
	}
	/* No signal but a fault reaches the thread: interrupts are the main
	 * thread's (os/cleanup.h). */
	sigfillset(&all);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGSEGV);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&a->thread, NULL, ahead_main, a) != 0) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		free(a->path);
		free(a);
		close(fd);
		return;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	m->ahead[m->nahead++] = a;
}

static void ahead_join(struct ol_fdigest_ahead *a)
{
	if (a->joined)
		return;
	pthread_join(a->thread, NULL);
	a->joined = true;
	close(a->fd);
}

/* The digest a thread made of path (or the memo gave it), if path is
 * still as it was then; *remembered: it is the memo's. */
static bool ahead_take(struct ol_fdigest *m, const char *path, const struct stat *st,
		       uint8_t out[OL_DIGEST_SIZE], bool *remembered)
{
	for (size_t i = 0; i < m->nahead; i++) {
		struct ol_fdigest_ahead *a = m->ahead[i];

		if (strcmp(a->path, path) != 0)
			continue;
		ahead_join(a);
		if (!a->ok || !same_stat(&a->st, st))
			return false;
		memcpy(out, a->digest, OL_DIGEST_SIZE);
		*remembered = a->remembered;
		if (!a->remembered)
			m->bytes_read += (uint64_t)st->st_size;
		return true;
	}
	return false;
}

static enum ol_err compute(struct ol_fdigest *m, const char *path, enum algo a,
			   uint8_t out[OL_DIGEST_SIZE], struct ol_fstate *state, struct ol_diag *d)
{
	char name[2 * OL_DIGEST_SIZE + 1];
	struct stat st, after;
	bool remembered = false, stable;
	enum ol_err rc = OL_OK;
	int fd;

	/* O_NONBLOCK: a FIFO put where a library was must not hang the link
	 * (it is refused below, never read). */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ol_fstate_of(path, state);
		return errno == ENOENT || errno == ENOTDIR
			? ol_diag_set(d, OL_E_NOT_FOUND, NULL, "%s: no such file", path)
			: ol_diag_errno(d, errno, "cannot open", path);
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		ol_fstate_of(path, state);
		state->ok = false;
		close(fd);
		return ol_diag_set(d, OL_E_UNSUPPORTED, NULL, "%s: not a regular file", path);
	}
	state_from(&st, state);
	/* A file only root can change (the system's libraries, start files)
	 * gets the fast digest too: a colliding one would have to be root's
	 * as well, and whoever can plant that needs no collision. */
	if (a == CONTENT && st.st_uid == 0 && !(st.st_mode & 022))
		a = PROGRAM;
	memo_name_of(a, path, &st, name);
	/* a thread digested it (or the memo gave it), else the memo, else
	 * the file itself */
	if (!(a == PROGRAM && ahead_take(m, path, &st, out, &remembered))) {
		if (memo_get(m, name, out))
			remembered = true;
		else
			rc = hash_fd(m, fd, path, a, (size_t)st.st_size, out, d);
	}
	if (remembered) {
		close(fd);
		return OL_OK;
	}
	stable = !rc && fstat(fd, &after) == 0 && same_stat(&st, &after);
	if (!rc && !stable)
		state->unstable = true; /* what was read is not known */
	if (stable && time(NULL) - st.st_mtim.tv_sec > RACY_S &&
	    time(NULL) - st.st_ctim.tv_sec > RACY_S)
		memo_put(m, name, out);
	close(fd);
	return rc;
}

/* path's record, made (not yet digested, its state read) when new;
 * NULL when out of memory. */
static struct ol_fdigest_seen *record(struct ol_fdigest *m, const char *path, size_t *index)
{
	uintptr_t *slot = ol_strmap_get(&m->seen, path, strlen(path));
	struct ol_fdigest_seen *v;
	char *copy;

	if (slot) {
		*index = *slot - 1;
		return &m->v[*index];
	}
	v = ol_grow(m->v, m->n, &m->cap, sizeof(*m->v), 16);
	copy = strdup(path);
	if (!v || !copy) {
		free(copy);
		return NULL;
	}
	m->v = v;
	if (!(slot = ol_strmap_put(&m->seen, copy, strlen(copy)))) {
		free(copy);
		return NULL;
	}
	*slot = m->n + 1;
	*index = m->n;
	v = &m->v[m->n++];
	memset(v, 0, sizeof(*v));
	v->path = copy;
	return v;
}

enum ol_err ol_fdigest_file_at(struct ol_fdigest *m, const char *path,
			       uint8_t out[OL_DIGEST_SIZE], size_t *index, struct ol_diag *d)
{
	struct ol_fdigest_seen *s = record(m, path, index);
	struct ol_fstate was;
	bool noted;

	memset(out, 0, OL_DIGEST_SIZE);
	if (!s)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if (s->digested) {
		memcpy(out, s->digest, OL_DIGEST_SIZE);
		if (s->err)
			return ol_diag_set(d, s->err, NULL, "%s: %s", path,
					   s->err == OL_E_NOT_FOUND ? "no such file"
					   : "not a readable regular file");
		return OL_OK;
	}
	/* Noted before, digested now: the state it was noted in stands, and
	 * a file that changed in between is one whose content is not known. */
	noted = s->noted;
	was = s->st;
	s->err = compute(m, path, CONTENT, s->digest, &s->st, d);
	s->digested = s->noted = true;
	if (noted && !same_state(&was, &s->st)) {
		s->st = was;
		s->st.unstable = true;
	}
	memcpy(out, s->digest, OL_DIGEST_SIZE);
	return s->err;
}

enum ol_err ol_fdigest_file(struct ol_fdigest *m, const char *path,
			    uint8_t out[OL_DIGEST_SIZE], struct ol_diag *d)
{
	size_t index;

	return ol_fdigest_file_at(m, path, out, &index, d);
}

enum ol_err ol_fdigest_program(struct ol_fdigest *m, const char *path,
			       uint8_t out[OL_DIGEST_SIZE], size_t *index, struct ol_diag *d)
{
	struct ol_fdigest_seen *s = record(m, path, index);
	struct ol_fstate st;

	memset(out, 0, OL_DIGEST_SIZE);
	if (!s)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	if (!s->fast_done) {
		s->fast_err = compute(m, path, PROGRAM, s->fast, &st, d);
		s->fast_done = true;
		if (!s->noted) {
			s->st = st;
			s->noted = true;
		} else if (!same_state(&s->st, &st)) {
			s->st.unstable = true;
		}
	}
	memcpy(out, s->fast, OL_DIGEST_SIZE);
	if (s->fast_err)
		return ol_diag_set(d, s->fast_err, NULL, "%s: %s", path,
				   s->fast_err == OL_E_NOT_FOUND ? "no such file"
				   : "not a readable regular file");
	return OL_OK;
}

bool ol_fdigest_note(struct ol_fdigest *m, const char *path, const struct stat *st,
		     size_t *index)
{
	struct ol_fdigest_seen *s = record(m, path, index);

	if (!s)
		return false;
	if (!s->digested && !s->noted) {
		if (st)
			state_from(st, &s->st);
		else
			ol_fstate_of(path, &s->st);
		s->noted = true;
	}
	return true;
}

const char *ol_fdigest_path(const struct ol_fdigest *m, size_t index)
{
	return index < m->n ? m->v[index].path : "";
}

const struct ol_fstate *ol_fdigest_state(const struct ol_fdigest *m, size_t index)
{
	static const struct ol_fstate none = { 0 };

	return index < m->n ? &m->v[index].st : &none;
}

bool ol_fdigest_unchanged(const struct ol_fdigest *m, size_t index)
{
	struct ol_fstate now;

	if (index >= m->n)
		return false;
	if (m->v[index].st.unstable)
		return false; /* it changed while it was read */
	ol_fstate_of(m->v[index].path, &now);
	return same_state(&m->v[index].st, &now) ||
	       (!m->v[index].st.exists && !now.exists);
}

bool ol_fdigest_changed_since(const struct ol_fdigest *m, size_t index, double t)
{
	const struct ol_fstate *s;

	if (index >= m->n)
		return true;
	s = &m->v[index].st;
	if (!s->exists)
		return false;
	/* A file system that keeps whole seconds (ext3, FAT, some network
	 * ones) rounds a change down: compare seconds there. */
	if (!s->ctime_ns && !s->mtime_ns)
		return s->ctime_s >= (int64_t)t || s->mtime_s >= (int64_t)t;
	return (double)s->ctime_s + (double)s->ctime_ns / 1e9 >= t ||
	       (double)s->mtime_s + (double)s->mtime_ns / 1e9 >= t;
}

void ol_fdigest_forget_old(struct ol_fdigest *m, long max_age_s)
{
	time_t now = time(NULL);
	DIR *dir;
	struct dirent *e;
	int fd;

	if (m->memo_fd < 0 || (fd = dup(m->memo_fd)) < 0)
		return;
	if (!(dir = fdopendir(fd))) {
		close(fd);
		return;
	}
	while ((e = readdir(dir))) {
		struct stat st;

		if (e->d_name[0] == '.' && strncmp(e->d_name, ".tmp.", 5) != 0)
			continue;
		if (fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && now - st.st_mtime > max_age_s)
			unlinkat(dirfd(dir), e->d_name, 0);
	}
	closedir(dir);
}
