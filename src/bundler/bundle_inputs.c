/* Reading the bundles of an input, whatever container holds them. */
#include "bundler/bundler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "extract/elf_file.h"
#include "format/bundle_seq.h"

bool is_host_object(const uint8_t *p, size_t len)
{
	return ol_is_elf(p, len) && len >= 18 && p[5] == 1 && (p[16] | p[17] << 8) == 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- -type=o: sections named __CLANG_OFFLOAD_BUNDLE__<id> ---- */

struct sections {
	struct loaded *l;
	size_t cap;
};

static enum ol_err on_section(void *ctx, const struct ol_elf_section *s,
			      struct ol_diag *d)
{
	struct sections *c = ctx;
	struct loaded *l = c->l;
	struct ol_bundle_entry *e;

	if (strncmp(s->name, OL_BUNDLE_MAGIC, OL_BUNDLE_MAGIC_LEN) != 0 || !s->data)
		return OL_OK;
	if (l->bundle.n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 8;
		struct ol_bundle_entry *n = realloc(l->bundle.entries, cap * sizeof(*n));
		char **names = realloc(l->section_names, cap * sizeof(*names));

		if (n)
			l->bundle.entries = n;
		if (names)
			l->section_names = names;
		if (!n || !names)
			return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
		c->cap = cap;
	}
	l->section_names[l->bundle.n] = strdup(s->name);
	if (!l->section_names[l->bundle.n])
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	e = &l->bundle.entries[l->bundle.n++];
	e->id = s->name + OL_BUNDLE_MAGIC_LEN;
	e->id_len = strlen(e->id);
	e->data = s->data;
	e->size = s->size;
	return OL_OK;
}

static enum ol_err object_sections(struct loaded *l, uint8_t *p, size_t len,
				   struct ol_diag *d)
{
	struct sections c = { l, 0 };
	struct ol_elf e;
	enum ol_err rc;

	if (ol_elf_open(&e, p, len, d))
		return d->code;
	rc = ol_elf_for_each_section(&e, on_section, &c, d);
	ol_elf_close(&e);
	/* Entry IDs point into section names owned by libelf: re-point them
	 * at our copies before the ELF handle goes. */
	for (size_t i = 0; i < l->bundle.n; i++)
		l->bundle.entries[i].id = l->section_names[i] + OL_BUNDLE_MAGIC_LEN;
	l->object = true;
	return rc;
}

static enum ol_err decompress(const struct bundler *b, struct loaded *l,
			      struct ol_diag *d)
{
	struct ol_ccob_info info;
	double t0 = now();

	if (ol_ccob_decode(l->data, l->len, &l->inflated, &info, d))
		return d->code;
	if (b->verbose)
		print_decompress_stats(&info, now() - t0);
	l->data = l->inflated.data;
	l->len = l->inflated.len;
	return OL_OK;
}

static enum ol_err parse_ids(struct loaded *l, struct ol_diag *d)
{
	l->ids = calloc(l->bundle.n ? l->bundle.n : 1, sizeof(*l->ids));
	if (!l->ids)
		return ol_diag_set(d, OL_E_NOMEM, NULL, NULL);
	for (size_t i = 0; i < l->bundle.n; i++) {
		const struct ol_bundle_entry *e = &l->bundle.entries[i];

		if (ol_bundle_id_parse(e->id, e->id_len, &l->ids[i], d)) {
			ol_diag_prefix(d, "bundle entry %zu", i);
			return d->code;
		}
	}
	return OL_OK;
}

enum ol_err load_bundles(const struct bundler *b, const char *path,
			 const uint8_t *p, size_t len, struct loaded *l,
			 struct ol_diag *d)
{
	const char *comment = ol_bundle_text_comment(b->type);

	uint8_t *bytes;

	memset(l, 0, sizeof(*l));
	if (!p) { /* a file: map it (and own the mapping) */
		if (ol_map_file_fd(path, &l->map, d))
			return d->code;
		p = l->map.data;
		len = l->map.len;
	}
	/* libelf's interface wants writable bytes; it never writes them. */
	bytes = (uint8_t *)(uintptr_t)p;
	l->data = bytes;
	l->len = len;
	if (ol_is_ccob(l->data, l->len) && decompress(b, l, d))
		return d->code;
	if (comment) {
		if (ol_bundle_decode_text(l->data, l->len, comment, &l->bundle, d))
			return d->code;
	} else if (!l->inflated.data &&
		   (strcmp(b->type, "o") == 0 || strcmp(b->type, "a") == 0) &&
		   is_host_object(l->data, l->len)) {
		/* -type=o inputs and the members of -type=a archives */
		if (object_sections(l, bytes, len, d))
			return d->code;
	} else if (ol_is_binary_bundle(l->data, l->len)) {
		if (ol_bundle_decode_binary(l->data, l->len, &l->bundle, d))
			return d->code;
	}
	return parse_ids(l, d);
}

enum ol_err load_sequence(const struct bundler *b, const char *path, struct bundle_seq *s,
			  struct ol_diag *d)
{
	size_t n = 0;
	const uint8_t *p;

	memset(s, 0, sizeof(*s));
	if (ol_map_file_fd(path, &s->map, d))
		return d->code;
	p = s->map.data;
	if (!ol_bundle_text_comment(b->type) &&
	    !(((strcmp(b->type, "o") == 0 || strcmp(b->type, "a") == 0) &&
	       is_host_object(p, s->map.len))) &&
	    ol_bundle_spans(p, s->map.len, &s->spans, &n, d))
		return d->code;
	/* (n = 0: one, a text bundle, a host object, or no bundle at all) */
	s->n = n ? n : 1;
	if (!n) {
		free(s->spans);
		s->spans = NULL;
	}
	return OL_OK;
}

enum ol_err seq_load(const struct bundler *b, const char *path, const struct bundle_seq *s,
		     size_t k, struct loaded *l, struct ol_diag *d)
{
	size_t off = s->spans ? s->spans[k].offset : 0;
	size_t len = s->spans ? s->spans[k].size : s->map.len;
	/* (an empty file maps to no data) */
	const uint8_t *p = s->map.data ? s->map.data + off : (const uint8_t *)"";

	if (!load_bundles(b, path, p, len, l, d))
		return OL_OK;
	if (s->n > 1) {
		ol_diag_prefix(d, "bundle %zu (at offset %zu)", k, off);
		if (d->has_offset)
			d->offset += off;
	}
	return d->code;
}

void bundle_seq_free(struct bundle_seq *s)
{
	free(s->spans);
	ol_unmap(&s->map);
	memset(s, 0, sizeof(*s));
}

void loaded_free(struct loaded *l)
{
	for (size_t i = 0; l->section_names && i < l->bundle.n; i++)
		free(l->section_names[i]);
	free(l->section_names);
	free(l->ids);
	ol_bundle_free(&l->bundle);
	ol_buf_free(&l->inflated);
	ol_unmap(&l->map);
}

/* ---- -verbose ---- */

static void rates(const struct ol_ccob_info *i, double secs, const char *what)
{
	double mb = (double)i->uncompressed_size / (1024.0 * 1024.0);

	fprintf(stderr, "Compression rate: %.2f\n",
		i->compressed_size ? (double)i->uncompressed_size / (double)i->compressed_size : 0.0);
	fprintf(stderr, "Compression ratio: %.2f%%\n",
		i->uncompressed_size ? 100.0 * (double)i->compressed_size / (double)i->uncompressed_size : 0.0);
	fprintf(stderr, "%s speed: %.2f MB/s\n", what, secs > 0 ? mb / secs : 0.0);
}

void print_compress_stats(const struct ol_ccob_info *i, int level, double secs)
{
	char hash[32];

	ol_ccob_hash_text(i->hash, hash, sizeof(hash));
	fprintf(stderr, "Compressed bundle format version: %u\n", i->version);
	fprintf(stderr, "Total file size (including headers): %llu bytes\n",
		(unsigned long long)i->total_size);
	fprintf(stderr, "Compression method used: %s\n", ol_compression_name(i->method));
	fprintf(stderr, "Compression level: %d\n", level);
	fprintf(stderr, "Binary size before compression: %llu bytes\n",
		(unsigned long long)i->uncompressed_size);
	fprintf(stderr, "Binary size after compression: %llu bytes\n",
		(unsigned long long)i->compressed_size);
	rates(i, secs, "Compression");
	fprintf(stderr, "Truncated MD5 hash: %s\n", hash);
}

void print_decompress_stats(const struct ol_ccob_info *i, double secs)
{
	char stored[32], computed[32];

	ol_ccob_hash_text(i->hash, stored, sizeof(stored));
	ol_ccob_hash_text(i->computed, computed, sizeof(computed));
	fprintf(stderr, "Compressed bundle format version: %u\n", i->version);
	if (i->version >= 2)
		fprintf(stderr, "Total file size (from header): %llu bytes\n",
			(unsigned long long)i->total_size);
	fprintf(stderr, "Decompression method: %s\n", ol_compression_name(i->method));
	fprintf(stderr, "Size before decompression: %llu bytes\n",
		(unsigned long long)i->compressed_size);
	fprintf(stderr, "Size after decompression: %llu bytes\n",
		(unsigned long long)i->uncompressed_size);
	rates(i, secs, "Decompression");
	fprintf(stderr, "Stored hash: %s\n", stored);
	fprintf(stderr, "Recalculated hash: %s\n", computed);
	fprintf(stderr, "Hashes match: %s\n", memcmp(i->hash, i->computed, 8) ? "No" : "Yes");
}
