/* OL_NONSTRING marks a char array that holds bytes, not a C string (a
 * file magic that fills its array, no NUL): gcc 15 and later warn about
 * such initializers otherwise (-Wunterminated-string-initialization).
 * Compilers without the attribute (clang up to 20) get nothing. */
#ifndef OFFLINK_COMMON_NONSTRING_H
#define OFFLINK_COMMON_NONSTRING_H

#if defined(__has_attribute)
#if __has_attribute(nonstring)
#define OL_NONSTRING __attribute__((nonstring))
#endif
#endif
#ifndef OL_NONSTRING
#define OL_NONSTRING
#endif

#endif
