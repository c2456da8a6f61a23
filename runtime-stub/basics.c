/* What every part of the stub uses: the log's one write per line, JSON
 * strings, failing loudly, the real runtime's symbols and the thread's
 * last CUDA/HIP error.  It calls nothing else of the stub. */
#include "offstub.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static _Thread_local int last_error;

int stub_no_device(void)
{
	last_error = STUB_NO_DEVICE;
	return STUB_NO_DEVICE;
}

int stub_peek_last_error(void)
{
	return last_error;
}

int stub_take_last_error(void)
{
	int e = last_error;

	last_error = 0;
	return e;
}

void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void stub_fail(const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "offstub: malformed %s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	_exit(OFFSTUB_EXIT_MALFORMED);
}

void check_name(const char *what, const char *name)
{
	size_t i;

	if (!name)
		stub_fail(what, "a null name");
	for (i = 0; i < 4096 && name[i]; i++)
		if ((unsigned char)name[i] < 0x20 || (unsigned char)name[i] >= 0x7f)
			stub_fail(what, "name with byte 0x%02x at %zu", (unsigned char)name[i], i);
	if (i == 0 || i == 4096)
		stub_fail(what, "%s name", i ? "unterminated" : "empty");
}

/* Every copy of the stub -- liboffstub.so, the libcudart, libomptarget
 * and libamdhip64 named ones -- exports this one symbol beyond the
 * runtimes' (offstub.map, cudart.map), so that a copy can tell another
 * copy from a runtime. */
const char offstub_copy[] = "offlink's runtime stub";

/* Whether the object that defines p is a copy of the stub: one that
 * defines offstub_copy itself (not through its dependencies). */
static int in_a_stub(void *p)
{
	Dl_info at, marker;
	void *h, *m;
	int stub = 0;

	if (!dladdr(p, &at) || !at.dli_fname || !*at.dli_fname)
		return 0;
	if (!(h = dlopen(at.dli_fname, RTLD_LAZY | RTLD_NOLOAD)))
		return 0;
	m = dlsym(h, "offstub_copy");
	stub = m && dladdr(m, &marker) && marker.dli_fbase == at.dli_fbase;
	dlclose(h);
	return stub;
}

/* The real runtime's definition of name.  Another copy of the stub after
 * this one (liboffstub.so preloaded into a program linked with the
 * stub's libcudart) is not a runtime: each record would be logged twice
 * and each handle mapped to the other copy's. */
void *stub_next_symbol(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	return p && in_a_stub(p) ? NULL : p;
}

/* One write of the whole line with O_APPEND: lines of concurrent
 * processes (and threads) do not interleave. */
void stub_log_line(const char *text, size_t len)
{
	const char *path = getenv("OFFSTUB_LOG");
	int fd;

	if (!path || !*path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		fprintf(stderr, "offstub: cannot write the log %s\n", path);
	if (fd >= 0)
		close(fd);
}
