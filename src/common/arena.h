/* A bump allocator for objects that live as long as one run (a link, a
 * listing): images, origins, names.  Everything is freed at once. */
#ifndef OFFLINK_COMMON_ARENA_H
#define OFFLINK_COMMON_ARENA_H

#include <stddef.h>

struct ol_arena_chunk;

struct ol_arena {
	struct ol_arena_chunk *head;
};

/* Zeroed memory for size bytes, 16-aligned; NULL when out of memory. */
void *ol_arena_alloc(struct ol_arena *a, size_t size);
/* Zeroed array of n elements of size each; NULL on overflow or OOM. */
void *ol_arena_array(struct ol_arena *a, size_t n, size_t size);
/* Copy of s (NULL stays NULL). */
char *ol_arena_strdup(struct ol_arena *a, const char *s);
/* Copy of the first len bytes of s, NUL-terminated. */
char *ol_arena_strndup(struct ol_arena *a, const char *s, size_t len);
/* printf into arena memory. */
char *ol_arena_printf(struct ol_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Free every chunk. */
void ol_arena_free(struct ol_arena *a);

#endif
