/* What the host objects' offload entry tables say that the entries
 * themselves cannot: for a managed variable in LLVM 19's 32-byte entries,
 * the entry's address is the variable's initial value ("x.managed") and
 * the pointer the runtime fills in is another global ("x").  LLVM 20's
 * 56-byte entries carry that pointer (AuxAddr); for the older ones it is
 * found here, from the entry's relocation and the symbol table. */
#ifndef OFFLINK_EXTRACT_OFFLOAD_ENTRIES_H
#define OFFLINK_EXTRACT_OFFLOAD_ENTRIES_H

#include "common/diag.h"
#include "extract/elf_file.h"

typedef enum ol_err (*ol_managed_cb)(void *ctx, const char *section,
				     const char *init_symbol,
				     const char *pointer_symbol,
				     struct ol_diag *d);

/* Call cb for each managed variable of the object's cuda_ or
 * hip_offloading_entries; pointer_symbol is NULL when the object has no
 * global of the expected name (a static managed variable). */
enum ol_err ol_elf_managed_vars(struct ol_elf *e, ol_managed_cb cb, void *ctx,
				struct ol_diag *d);

#endif
