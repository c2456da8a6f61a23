#include "format/bundle_id.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "format/target_id.h"
#include "format/triple.h"

/* Architectures LLVM's Triple knows (the ones offloading meets); an
 * unknown one makes the whole triple unknown, as in LLVM. */
static const char *const known_arches[] = {
	"x86_64", "amd64", "i386", "i486", "i586", "i686", "aarch64",
	"aarch64_be", "arm64", "arm", "armeb", "thumb", "thumbeb", "nvptx",
	"nvptx64", "amdgcn", "r600", "spirv", "spirv32", "spirv64", "ppc",
	"ppcle", "ppc64", "ppc64le", "powerpc", "powerpc64", "powerpc64le",
	"s390x", "systemz", "riscv32", "riscv64", "loongarch32", "loongarch64",
	"mips", "mipsel", "mips64", "mips64el", "sparc", "sparcv9", "wasm32",
	"wasm64", "hexagon", "ve", "bpf", "bpfel", "bpfeb", NULL,
};

static bool known_arch(const char *a)
{
	for (const char *const *k = known_arches; *k; k++)
		if (strcmp(a, *k) == 0)
			return true;
	/* LLVM 24's AMD GPU spellings: amdgpu, amdgpu9, amdgpu9.0a, ... */
	if (ol_amdgpu_arch_len(a) == strlen(a))
		return true;
	return strncmp(a, "armv", 4) == 0 || strncmp(a, "thumbv", 6) == 0;
}

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

bool ol_is_offload_arch(const char *s, size_t n)
{
	if (n > 3 && strncmp(s, "sm_", 3) == 0)
		return all_digits(s + 3, n - 3) ||
		       (n > 4 && s[n - 1] == 'a' && all_digits(s + 3, n - 4));
	if (n > 3 && strncmp(s, "gfx", 3) == 0) {
		for (size_t i = 3; i < n; i++)
			if (!isalnum((unsigned char)s[i]))
				return false;
		return true;
	}
	return (n == 11 && strncmp(s, "amdgcnspirv", 11) == 0) ||
	       (n == 7 && strncmp(s, "generic", 7) == 0);
}

static bool copy_field(char *dst, size_t cap, const char *src, size_t n)
{
	if (n >= cap)
		return false;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return true;
}

/* arch-vendor-os-env: the first three '-' fields, the rest as env. */
static bool split_triple(const char *t, size_t n, struct ol_bundle_id *id)
{
	char *fields[] = { id->arch, id->vendor, id->os };
	size_t caps[] = { sizeof(id->arch), sizeof(id->vendor), sizeof(id->os) };
	size_t at = 0;

	for (int f = 0; f < 3; f++) {
		const char *dash = at <= n ? memchr(t + at, '-', n - at) : NULL;
		size_t len = dash ? (size_t)(dash - (t + at)) : n - at;

		if (!copy_field(fields[f], caps[f], t + at, at <= n ? len : 0))
			return false;
		at = dash ? (size_t)(dash - t) + 1 : n + 1;
	}
	return copy_field(id->env, sizeof(id->env), t + (at <= n ? at : n),
			  at <= n ? n - at : 0);
}

enum ol_err ol_bundle_id_parse(const char *s, size_t len, struct ol_bundle_id *out,
			       struct ol_diag *d)
{
	const char *colon = memchr(s, ':', len), *dash, *last;
	size_t head = colon ? (size_t)(colon - s) : len, triple_len;
	const char *triple;

	memset(out, 0, sizeof(*out));
	dash = memchr(s, '-', head);
	if (!dash || !copy_field(out->kind, sizeof(out->kind), s, (size_t)(dash - s)))
		return ol_diag_set(d, OL_E_BAD_TARGET, NULL, "invalid target '%.*s'",
				   (int)len, s);
	if (strcmp(out->kind, "host") && strcmp(out->kind, "openmp") &&
	    strcmp(out->kind, "hip") && strcmp(out->kind, "hipv4"))
		return ol_diag_set(d, OL_E_BAD_TARGET, NULL,
				   "invalid target '%.*s', unknown offloading kind '%s'",
				   (int)len, s, out->kind);
	triple = dash + 1;
	triple_len = head - (size_t)(triple - s);
	/* The last '-' component is a target ID when it names a processor. */
	last = triple + triple_len;
	while (last > triple && last[-1] != '-')
		last--;
	if (last > triple && last == triple + triple_len) {
		/* A trailing '-' is an empty target ID, as in the standard
		 * form "host-x86_64-unknown-linux-gnu-". */
		triple_len--;
	} else if (last > triple &&
		   ol_is_offload_arch(last, (size_t)(triple + triple_len - last))) {
		if (!copy_field(out->target_id, sizeof(out->target_id), last,
				len - (size_t)(last - s)))
			return ol_diag_set(d, OL_E_BAD_TARGET, NULL, "target ID too long");
		triple_len = (size_t)(last - 1 - triple);
	} else if (colon) {
		return ol_diag_set(d, OL_E_BAD_TARGET, NULL,
				   "invalid target '%.*s': features without a processor",
				   (int)len, s);
	}
	if (!split_triple(triple, triple_len, out))
		return ol_diag_set(d, OL_E_BAD_TARGET, NULL, "invalid target '%.*s'",
				   (int)len, s);
	if (!known_arch(out->arch))
		return ol_diag_set(d, OL_E_BAD_TARGET, NULL,
				   "invalid target '%.*s', unknown target triple '%s-%s-%s-%s'",
				   (int)len, s, out->arch, out->vendor, out->os, out->env);
	snprintf(out->text, sizeof(out->text), "%s-%s-%s-%s-%s-%s", out->kind,
		 out->arch, out->vendor, out->os, out->env, out->target_id);
	return OL_OK;
}

bool ol_bundle_id_is_host(const struct ol_bundle_id *id)
{
	return strcmp(id->kind, "host") == 0;
}

static bool is_hip(const char *k)
{
	return strcmp(k, "hip") == 0 || strcmp(k, "hipv4") == 0;
}

static bool kinds_compatible(const char *a, const char *b, bool hip_openmp)
{
	if (strcmp(a, b) == 0 || (is_hip(a) && is_hip(b)))
		return true;
	return hip_openmp && ((is_hip(a) && strcmp(b, "openmp") == 0) ||
			      (is_hip(b) && strcmp(a, "openmp") == 0));
}

/* Triple components compare as LLVM's enums do: "" and "unknown" alike. */
static bool same_component(const char *a, const char *b)
{
	if (!*a)
		a = "unknown";
	if (!*b)
		b = "unknown";
	return strcmp(a, b) == 0;
}

/* (AMD's GPUs under either spelling are one architecture, as LLVM 24's
 * bundler has it: the processor in the target ID tells them apart) */
static bool same_arch(const char *a, const char *b)
{
	return strcmp(a, b) == 0 || (ol_triple_is_amdgpu(a) && ol_triple_is_amdgpu(b));
}

static bool triples_compatible(const struct ol_bundle_id *a,
			       const struct ol_bundle_id *b)
{
	return same_arch(a->arch, b->arch) && same_component(a->vendor, b->vendor) &&
	       same_component(a->os, b->os) && same_component(a->env, b->env);
}

bool ol_bundle_id_compatible(const struct ol_bundle_id *code,
			     const struct ol_bundle_id *target, bool hip_openmp)
{
	struct ol_target_id c, t;
	struct ol_diag d;

	if (!kinds_compatible(code->kind, target->kind, hip_openmp) ||
	    !triples_compatible(code, target))
		return false;
	if (strcmp(code->target_id, target->target_id) == 0)
		return true;
	ol_diag_clear(&d);
	if (ol_target_id_parse(code->target_id, &c, &d) ||
	    ol_target_id_parse(target->target_id, &t, &d))
		return false;
	/* LLVM compares processors exactly here ("generic" is not special). */
	if (strcmp(c.processor, t.processor) != 0 || c.nfeatures > t.nfeatures)
		return false;
	return ol_target_id_serves(&c, &t);
}
