/* Building the JSON log records of registrations and launches. */
#include "offstub.h"

#include "format/spirv_container.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void record_open(struct record *r, const char *runtime)
{
	memset(r, 0, sizeof(*r));
	r->prelinked = -1;
	r->f = open_memstream(&r->text, &r->len);
	if (!r->f)
		return;
	fputs("{\"runtime\": ", r->f);
	json_string(r->f, runtime);
	fputs(", \"pid\": ", r->f);
	fprintf(r->f, "%ld", (long)getpid());
	fputs(", \"images\": [", r->f);
}

void record_image(struct record *r, const void *start, size_t size,
		  const char *container_kind, const char *declared_arch,
		  const char *declared_triple)
{
	unsigned machine = 0, flags = 0;
	struct ol_spirv_container spv;
	const char *arch = image_arch(start, size, declared_triple, declared_arch,
				      &machine, &flags);

	if (!r->f)
		return;
	fprintf(r->f, "%s{\"size\": %zu, \"container\": ", r->nimages++ ? ", " : "", size);
	json_string(r->f, container_kind);
	if (arch)
		fprintf(r->f, ", \"elf_machine\": %u, \"elf_flags\": \"0x%x\", \"arch\": ",
			machine, flags);
	else
		fputs(", \"elf_machine\": null, \"arch\": ", r->f);
	json_string(r->f, arch ? arch : (declared_arch ? declared_arch : ""));
	fputs(", \"triple\": ", r->f);
	json_string(r->f, declared_triple ? declared_triple : "");
	fprintf(r->f, ", \"digest\": \"%016llx\"", (unsigned long long)image_digest(start, size));
	if (machine == 190) {
		const char *names[512];
		size_t n = image_kernels(start, size, names, sizeof(names) / sizeof(names[0]));

		fputs(", \"kernels\": [", r->f);
		for (size_t i = 0; i < n; i++) {
			fputs(i ? ", " : "", r->f);
			json_string(r->f, names[i]);
		}
		fputc(']', r->f);
	}
	if (image_spirv(start, size, &spv)) {
		fputs(", \"spirv\": {\"notes_version\": ", r->f);
		json_string(r->f, spv.version);
		fprintf(r->f, ", \"images\": %lu, \"modules\": %zu, \"module_size\": %llu, "
			      "\"version\": \"%u.%u\"}",
			spv.images, spv.nmodules, (unsigned long long)spv.module_size,
			spv.spirv_major, spv.spirv_minor);
	}
	fputc('}', r->f);
}

void record_prelinked(struct record *r, size_t n)
{
	r->prelinked = (long)n;
}

/* The images' end and the entries' start ("prelinked" between them). */
static void end_images(struct record *r)
{
	fputs("]", r->f);
	if (r->prelinked >= 0)
		fprintf(r->f, ", \"prelinked\": %ld", r->prelinked);
	fputs(", \"entries\": [", r->f);
}

void record_entry(struct record *r, const char *name, uint64_t size,
		  uint32_t flags, const char *kind, int ext, int constant)
{
	if (!r->f)
		return;
	if (r->nentries++ == 0)
		end_images(r);
	else
		fputs(", ", r->f);
	fputs("{\"name\": ", r->f);
	json_string(r->f, name);
	fprintf(r->f, ", \"size\": %llu, \"flags\": %u, \"kind\": ",
		(unsigned long long)size, flags);
	json_string(r->f, kind);
	if (ext >= 0)
		fprintf(r->f, ", \"extern\": %d, \"constant\": %d", ext, constant);
	fputc('}', r->f);
}

void record_write(struct record *r)
{
	if (!r->f)
		return;
	if (r->nentries == 0)
		end_images(r);
	fputs("]}\n", r->f);
	fclose(r->f);
	r->f = NULL;
	stub_log_line(r->text, r->len);
	free(r->text);
	r->text = NULL;
}

void record_launch(const char *runtime, const char *name, const unsigned grid[3],
		   const unsigned block[3])
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	fputs("{\"runtime\": ", f);
	json_string(f, runtime);
	fprintf(f, ", \"pid\": %ld, \"launch\": ", (long)getpid());
	json_string(f, name);
	fprintf(f, ", \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u]}\n", grid[0], grid[1],
		grid[2], block[0], block[1], block[2]);
	fclose(f);
	stub_log_line(text, len);
	free(text);
}
