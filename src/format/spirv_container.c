/* Writing the SPIR-V container (spirv_container.h): every byte but the
 * module's is written here, the module is referenced where it lies. */
#include "format/spirv_container.h"

#include <string.h>

#include "common/diag.h"
#include "common/le.h"
#include "common/pieces.h"

#define OWNER "INTELONEOMPOFFLOAD"

/* The section names, and where each starts in .shstrtab. */
static const char shstrtab[] = "\0.note.inteloneompoffload\0.shstrtab\0.strtab\0"
			       "__openmp_offload_spirv_0";
enum { NAME_NOTE = 1, NAME_SHSTRTAB = 26, NAME_STRTAB = 36, NAME_MODULE = 44 };
enum { EHDR = 64, SHDR = 64, NSECTIONS = 5 };

static enum ol_err note(struct ol_buf *b, uint32_t type, const char *desc, size_t len)
{
	enum ol_err rc;

	if ((rc = ol_buf_le32(b, sizeof(OWNER))) || (rc = ol_buf_le32(b, (uint32_t)len)) ||
	    (rc = ol_buf_le32(b, type)) || (rc = ol_buf_append(b, OWNER, sizeof(OWNER))) ||
	    (rc = ol_buf_zeros(b, ol_align_up(sizeof(OWNER), 4) - sizeof(OWNER))) ||
	    (rc = ol_buf_append(b, desc, len)))
		return rc;
	return ol_buf_zeros(b, ol_align_up(len, 4) - len);
}

static enum ol_err section(struct ol_buf *b, uint32_t name, uint32_t type, uint64_t off,
			   uint64_t size, uint64_t align)
{
	enum ol_err rc;

	if ((rc = ol_buf_le32(b, name)) || (rc = ol_buf_le32(b, type)) ||
	    (rc = ol_buf_le64(b, 0)) /* flags */ || (rc = ol_buf_le64(b, 0)) /* address */ ||
	    (rc = ol_buf_le64(b, off)) || (rc = ol_buf_le64(b, size)) ||
	    (rc = ol_buf_le32(b, 0)) /* link */ || (rc = ol_buf_le32(b, 0)) /* info */ ||
	    (rc = ol_buf_le64(b, align)))
		return rc;
	return ol_buf_le64(b, 0); /* entry size */
}

enum ol_err ol_spirv_container_encode(const uint8_t *module, size_t len, struct ol_pieces *out,
				      struct ol_diag *d)
{
	/* version; the module's record: index 0, format 1 (SPIR-V), no
	 * compile options; one module */
	static const char record[] = "0\0" "1\0";
	struct ol_buf *b = &out->own;
	uint64_t notes_off = EHDR, notes_len, module_off, strtab_off, shstrtab_off, shoff;
	enum ol_err rc;

	if (!ol_is_spirv(module, len))
		return ol_diag_set(d, OL_E_BAD_MAGIC, "SPIR-V module",
				   "the linked device code is not a SPIR-V module (no magic 0x07230203)");
	/* ELF header, e_shoff filled in below */
	if ((rc = ol_buf_append(b, "\177ELF\2\1\1", 7)) || (rc = ol_buf_zeros(b, 9)) ||
	    (rc = ol_buf_le16(b, 3)) /* ET_DYN */ || (rc = ol_buf_le16(b, OL_EM_INTELGT)) ||
	    (rc = ol_buf_le32(b, 1)) || (rc = ol_buf_le64(b, 0)) /* entry */ ||
	    (rc = ol_buf_le64(b, 0)) /* phoff */ || (rc = ol_buf_le64(b, 0)) /* shoff */ ||
	    (rc = ol_buf_le32(b, 0)) /* flags */ || (rc = ol_buf_le16(b, EHDR)) ||
	    (rc = ol_buf_le16(b, 0)) || (rc = ol_buf_le16(b, 0)) /* no program headers */ ||
	    (rc = ol_buf_le16(b, SHDR)) || (rc = ol_buf_le16(b, NSECTIONS)) ||
	    (rc = ol_buf_le16(b, NSECTIONS - 1)))
		return ol_diag_set(d, rc, NULL, NULL);
	if ((rc = note(b, 1, "1.0", 3)) || (rc = note(b, 3, record, sizeof(record))) ||
	    (rc = note(b, 2, "1", 1)))
		return ol_diag_set(d, rc, NULL, NULL);
	notes_len = b->len - notes_off;
	module_off = b->len;
	strtab_off = module_off + len;
	shstrtab_off = strtab_off + 1;
	shoff = ol_align_up(shstrtab_off + sizeof(shstrtab), 8);
	ol_put_le64(b->data + 40, shoff);
	if ((rc = ol_pieces_ref(out, module, len)) || (rc = ol_buf_zeros(b, 1)) ||
	    (rc = ol_buf_append(b, shstrtab, sizeof(shstrtab))) ||
	    (rc = ol_buf_zeros(b, (size_t)(shoff - shstrtab_off - sizeof(shstrtab)))) ||
	    (rc = ol_buf_zeros(b, SHDR)) ||
	    (rc = section(b, NAME_NOTE, 7 /* SHT_NOTE */, notes_off, notes_len, 0)) ||
	    (rc = section(b, NAME_MODULE, 1 /* SHT_PROGBITS */, module_off, len, 0)) ||
	    (rc = section(b, NAME_STRTAB, 3 /* SHT_STRTAB */, strtab_off, 1, 1)) ||
	    (rc = section(b, NAME_SHSTRTAB, 3, shstrtab_off, sizeof(shstrtab), 1)) ||
	    (rc = ol_pieces_finish(out)))
		return ol_diag_set(d, rc, NULL, NULL);
	return OL_OK;
}
