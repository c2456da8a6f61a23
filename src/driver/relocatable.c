/* finish_relocatable: see docs/design.md, "Relocatable links". */
#include "driver/phases.h"

enum ol_err ol_finish_relocatable(struct ol_link *l)
{
	(void)l;
	return OL_OK;
}
