/* The one rendering of untrusted text.
 *
 * Triples, archs, archive member names, symbol names and paths come from
 * files offlink did not write.  Wherever such text is put into something
 * that is read again by a program -- a C comment or string literal of the
 * generated registration source, an assembler string inside it, a message
 * on the user's terminal -- it goes through ol_escape, which keeps a small
 * set of harmless bytes and writes every other byte as a three-digit octal
 * escape "\ooo".  The result:
 *   - cannot end a C comment or start one ('*' is escaped), cannot splice
 *     lines ('\' only appears as the start of an escape, never at a line
 *     end), cannot form a trigraph ('?' is escaped), holds no newline;
 *   - is a C string literal body and an assembler (gas and LLVM MC) string
 *     body that stand for exactly the original bytes;
 *   - escaped again, is a C string literal whose value is the assembler
 *     string (asm blocks inside generated C);
 *   - prints as plain ASCII: no terminal control sequences. */
#ifndef OFFLINK_COMMON_ESCAPE_H
#define OFFLINK_COMMON_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

/* True for the bytes ol_escape copies unchanged. */
bool ol_escape_keeps(unsigned char c);

/* Append the escaped rendering of the n bytes at s to out. */
enum ol_err ol_escape(struct ol_buf *out, const char *s, size_t n);

/* Append the escaped rendering of the NUL-terminated string s. */
enum ol_err ol_escape_str(struct ol_buf *out, const char *s);

/* The escaped rendering of s as a new string (malloc'd), or NULL when
 * memory runs out. */
char *ol_escape_dup(const char *s);

/* Bytes in the UTF-8 sequence starting at s[0] (of n), if it is a
 * well-formed one for a code point of U+00A0 or above (no C1 control, no
 * overlong form, no surrogate, nothing past U+10FFFF); else 0. */
size_t ol_utf8_printable(const unsigned char *s, size_t n);

/* Text for a terminal: a message or a listing that may quote untrusted
 * names.  Printable ASCII and well-formed UTF-8 (a path in any language)
 * stay as they are; control bytes (C0, DEL, and C1 whether raw or
 * UTF-8-encoded) and malformed UTF-8 become "\ooo", so no input can move
 * the cursor, retitle the window or hide text.  Appended to out. */
enum ol_err ol_escape_terminal(struct ol_buf *out, const char *s, size_t n);

/* True when the n bytes at s are a non-empty run of [A-Za-z0-9_]: text
 * from a file that may be written into generated source as it is, as part
 * of an identifier (nvcc's module IDs). */
bool ol_identifier_chars(const char *s, size_t n);

/* Longest piece of a triple or arch offlink puts in a file name. */
#define OL_NAME_PART_MAX 64

/* A piece of a file name made from untrusted text (a triple, an arch):
 * bytes outside [A-Za-z0-9._+:-] become '_', so it holds no '/' and no
 * control byte; a leading '.' becomes '_' too, so the name is never
 * hidden, "." or "..".  Appended to out; at most max bytes of s are used,
 * so a long triple cannot exceed NAME_MAX. */
enum ol_err ol_file_name_part(struct ol_buf *out, const char *s, size_t max);

#endif
