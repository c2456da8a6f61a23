/* Growing arrays by doubling, the one idiom every list in offlink uses. */
#ifndef OFFLINK_COMMON_GROW_H
#define OFFLINK_COMMON_GROW_H

#include <stddef.h>

/* Room for one more element in items, which holds n of *cap elements of
 * `size` bytes each: returns items itself while n < *cap, else a copy
 * twice as big (`first` elements when empty) with *cap updated.  NULL when
 * out of memory (or the size overflows); items is then unchanged and
 * still the caller's.  Use as
 *     p = ol_grow(v->items, v->n, &v->cap, sizeof(*v->items), 16);
 *     if (!p) ...fail...;
 *     v->items = p;  */
void *ol_grow(void *items, size_t n, size_t *cap, size_t size, size_t first);

#endif
