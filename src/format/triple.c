#include "format/triple.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const char *const cpu_arches[] = {
	"x86_64", "i386", "i686", "aarch64", "aarch64_be", "ppc64", "ppc64le",
	"powerpc64", "powerpc64le", "s390x", "systemz", "riscv64",
	"loongarch64", NULL,
};

bool ol_triple_is_cpu(const char *triple)
{
	size_t n = strcspn(triple, "-");

	for (const char *const *a = cpu_arches; *a; a++)
		if (strlen(*a) == n && strncmp(triple, *a, n) == 0)
			return true;
	return false;
}

bool ol_triple_is_spirv(const char *triple)
{
	return strncmp(triple, "spirv", 5) == 0;
}

bool ol_triple_is_nvptx(const char *triple)
{
	return strncmp(triple, "nvptx", 5) == 0;
}

size_t ol_amdgpu_arch_len(const char *s)
{
	size_t n;

	if (strncmp(s, "amdgcn", 6) == 0)
		n = 6;
	else if (strncmp(s, "amdgpu", 6) == 0) {
		n = 6;
		while (isdigit((unsigned char)s[n]))
			n++;
		/* a version: the major, then '.' and the minor with its
		 * stepping, a digit or a letter (9.0a, 10.30, 9.4) */
		if (n > 6 && s[n] == '.' && isalnum((unsigned char)s[n + 1])) {
			n++;
			while (isalnum((unsigned char)s[n]))
				n++;
		}
	} else {
		return 0;
	}
	return s[n] == '-' || s[n] == '\0' ? n : 0;
}

bool ol_triple_is_amdgpu(const char *triple)
{
	return ol_amdgpu_arch_len(triple) != 0;
}

bool ol_triple_scope_covers(const char *scope, size_t n, const char *triple)
{
	size_t sa, ta;
	char key[256];

	if (strlen(triple) == n && strncmp(scope, triple, n) == 0)
		return true;
	if (n >= sizeof(key))
		return false;
	memcpy(key, scope, n);
	key[n] = '\0';
	sa = ol_amdgpu_arch_len(key);
	ta = ol_amdgpu_arch_len(triple);
	if (!sa || !ta || strcmp(key + sa, triple + ta) != 0)
		return false;
	return sa == 6 || (sa == ta && strncmp(key, triple, sa) == 0);
}

bool ol_triple_as_amdgcn(const char *triple, char *out, size_t len)
{
	size_t a = ol_amdgpu_arch_len(triple);
	int n = a ? snprintf(out, len, "amdgcn%s", triple + a) : snprintf(out, len, "%s", triple);

	return n >= 0 && (size_t)n < len;
}
