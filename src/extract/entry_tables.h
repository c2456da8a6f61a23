/* The host objects' offload entry tables: every entry's kind, the name
 * the device image must define, its size and flags.  The tables are
 * omp_offloading_entries, cuda_offloading_entries, hip_offloading_entries
 * (LLVM <= 19: 32-byte entries, the kind the section's) and
 * llvm_offload_entries (LLVM >= 20: 56-byte entries naming their kind).
 * A name is a relocation: the entry's name field points into a string
 * section; it is read from there, NUL inside the section checked. */
#ifndef OFFLINK_EXTRACT_ENTRY_TABLES_H
#define OFFLINK_EXTRACT_ENTRY_TABLES_H

#include <stdint.h>

#include "common/diag.h"
#include "extract/elf_file.h"
#include "format/offload_kinds.h"

struct ol_offload_entry {
	const char *table;          /* the section it is in */
	enum ob_offload_kind kind;
	const char *name;           /* in the object's mapping */
	uint64_t size;              /* 0: a kernel or target region */
	uint32_t flags;
};

typedef enum ol_err (*ol_entry_cb)(void *ctx, const struct ol_offload_entry *e,
				   struct ol_diag *d);

/* Call cb for each named entry of e's tables (an entry whose name field
 * is not relocated, or names "", is skipped: it names nothing to look
 * for); a name field that points outside every string is an error. */
enum ol_err ol_elf_offload_entries(struct ol_elf *e, ol_entry_cb cb, void *ctx,
				   struct ol_diag *d);

#endif
