#include "common/grow.h"

#include <stdint.h>
#include <stdlib.h>

void *ol_grow(void *items, size_t n, size_t *cap, size_t size, size_t first)
{
	size_t want;
	void *p;

	if (n < *cap)
		return items;
	want = *cap ? 2 * *cap : first;
	if (want <= *cap || (size && want > SIZE_MAX / size))
		return NULL;
	p = realloc(items, want * size);
	if (p)
		*cap = want;
	return p;
}
