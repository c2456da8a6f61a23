#include "common/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ol_arena_chunk {
	struct ol_arena_chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char mem[];
};

enum { CHUNK_DEFAULT = 64 * 1024 };

static struct ol_arena_chunk *chunk_new(size_t cap)
{
	struct ol_arena_chunk *c;

	if (cap > SIZE_MAX - sizeof(*c))
		return NULL;
	c = malloc(sizeof(*c) + cap);
	if (!c)
		return NULL;
	c->next = NULL;
	c->used = 0;
	c->cap = cap;
	return c;
}

void *ol_arena_alloc(struct ol_arena *a, size_t size)
{
	struct ol_arena_chunk *c = a->head;
	size_t need = (size + 15) & ~(size_t)15;
	void *p;

	if (need < size)
		return NULL;
	if (!c || c->cap - c->used < need) {
		/* Large requests get a chunk of their own behind the head so
		 * the head's free space is not wasted. */
		size_t cap = need > CHUNK_DEFAULT / 4 ? need : CHUNK_DEFAULT;

		c = chunk_new(cap);
		if (!c)
			return NULL;
		if (cap == need && a->head) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	p = c->mem + c->used;
	c->used += need;
	memset(p, 0, size);
	return p;
}

void *ol_arena_array(struct ol_arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return ol_arena_alloc(a, n * size);
}

char *ol_arena_strndup(struct ol_arena *a, const char *s, size_t len)
{
	char *p;

	if (len == SIZE_MAX)
		return NULL;
	p = ol_arena_alloc(a, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *ol_arena_strdup(struct ol_arena *a, const char *s)
{
	return s ? ol_arena_strndup(a, s, strlen(s)) : NULL;
}

char *ol_arena_printf(struct ol_arena *a, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	p = ol_arena_alloc(a, (size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void ol_arena_free(struct ol_arena *a)
{
	struct ol_arena_chunk *c = a->head;

	while (c) {
		struct ol_arena_chunk *next = c->next;

		free(c);
		c = next;
	}
	a->head = NULL;
}
