/* The device calls of the CUDA and HIP runtime APIs that programs make
 * around their launches, so that they link against the stub alone.
 * Without a real runtime after the stub each says there is no device
 * (error 100 in both APIs) and allocates nothing; with one, each call is
 * passed on. */
#include "offstub.h"

#include <stdlib.h>
#include <unistd.h>

int stub_api_call(const char *runtime, const char *name, int result)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	stub_write_pending();
	f = open_memstream(&text, &len);
	if (!f)
		return result;
	fputs("{\"runtime\": ", f);
	json_string(f, runtime);
	fprintf(f, ", \"pid\": %ld, \"call\": ", (long)getpid());
	json_string(f, name);
	fprintf(f, ", \"result\": %d}\n", result);
	fclose(f);
	stub_log_line(text, len);
	free(text);
	return result;
}

static const char *error_string(int e)
{
	switch (e) {
	case 0: return "no error";
	case STUB_NO_DEVICE: return "no device (offstub: no GPU runtime is loaded)";
	default: return "unknown error (offstub)";
	}
}

/* One API call, logged: forwarded when the real runtime is there, else
 * `body` (the stand-in, name_stub). */
#define DEVICE_CALL(rt, name, params, args, body)                          \
	STUB_NEXT(int, name, params)                                       \
	static int name##_stub params body                                 \
	int name params;                                                   \
	int name params                                                    \
	{                                                                  \
		stub_write_pending();                                      \
		return stub_api_call(rt, #name, next_##name() ? next_##name() args \
							     : name##_stub args); \
	}

#define API(p)                                                                                 \
	DEVICE_CALL(#p, p##GetDeviceCount, (int *count), (count), {                                \
		if (count)                                                                     \
			*count = 0;                                                            \
		return stub_no_device();                                                                 \
	})                                                                                     \
	DEVICE_CALL(#p, p##GetLastError, (void), (), { return stub_take_last_error(); })               \
	DEVICE_CALL(#p, p##PeekAtLastError, (void), (), { return stub_peek_last_error(); })                   \
	DEVICE_CALL(#p, p##DeviceSynchronize, (void), (), { return stub_no_device(); })                     \
	DEVICE_CALL(#p, p##SetDevice, (int device), (device), {                                    \
		(void)device;                                                                  \
		return stub_no_device();                                                                 \
	})                                                                                     \
	DEVICE_CALL(#p, p##Malloc, (void **ptr, size_t size), (ptr, size), {                       \
		(void)size;                                                                    \
		if (ptr)                                                                       \
			*ptr = NULL;                                                           \
		return stub_no_device();                                                                 \
	})                                                                                     \
	DEVICE_CALL(#p, p##MallocManaged, (void **ptr, size_t size, unsigned flags),               \
		    (ptr, size, flags), {                                                      \
			    (void)size;                                                        \
			    (void)flags;                                                       \
			    if (ptr)                                                           \
				    *ptr = NULL;                                               \
			    return stub_no_device();                                                     \
		    })                                                                         \
	DEVICE_CALL(#p, p##Free, (void *ptr), (ptr), { return ptr ? stub_no_device() : 0; })                \
	DEVICE_CALL(#p, p##Memcpy, (void *dst, const void *src, size_t n, int kind),               \
		    (dst, src, n, kind), {                                                     \
			    (void)dst;                                                         \
			    (void)src;                                                         \
			    (void)n;                                                           \
			    (void)kind;                                                        \
			    return stub_no_device();                                                     \
		    })

API(cuda)
API(hip)

STUB_NEXT(const char *, cudaGetErrorString, (int))
STUB_NEXT(const char *, hipGetErrorString, (int))

const char *cudaGetErrorString(int e);
const char *hipGetErrorString(int e);

const char *cudaGetErrorString(int e)
{
	stub_api_call("cuda", "cudaGetErrorString", 0);
	return next_cudaGetErrorString() ? next_cudaGetErrorString()(e) : error_string(e);
}

const char *hipGetErrorString(int e)
{
	stub_api_call("hip", "hipGetErrorString", 0);
	return next_hipGetErrorString() ? next_hipGetErrorString()(e) : error_string(e);
}
