/* The whole runtime API of CUDA (OFFSTUB_API_CUDA, built into the
 * stand-in libcudart) or HIP (OFFSTUB_API_HIP, into libamdhip64), from
 * the lists generated from the runtimes' public headers (api_*.def).
 *
 * These copies are what programs link and run against on machines with
 * no GPU runtime, so every function a program can call must exist.  Each
 * logs the call ({"runtime", "call", "result"} under OFFSTUB_LOG), notes
 * the runtime's "no device" error as the last error, and returns it;
 * functions that return something else return what says "nothing here"
 * (a string naming the stub, -1), and the channel-descriptor constructor,
 * a pure function, returns its descriptor.
 *
 * The definitions take no parameters: the callers' arguments are ignored
 * (on the SysV and AAPCS64 calling conventions the caller owns its
 * arguments), so the stub needs none of the runtimes' types.  They are
 * weak: the calls the stub implements itself (device_api.c, cuda_hip.c:
 * device count, allocation, copies, errors, registration, launches) take
 * precedence.  Not in liboffstub.so: preloaded before a real runtime it
 * must let the program's calls reach that runtime. */
#include "offstub.h"

#if defined(OFFSTUB_API_CUDA)
#define RUNTIME "cuda"
#elif defined(OFFSTUB_API_HIP)
#define RUNTIME "hip"
#else
#error "define OFFSTUB_API_CUDA or OFFSTUB_API_HIP"
#endif

#define API_ERR(name)                                                  \
	int name(void);                                                \
	__attribute__((weak)) int name(void)                           \
	{                                                              \
		return stub_api_call(RUNTIME, #name, stub_no_device()); \
	}
#define API_INT(name)                                    \
	int name(void);                                  \
	__attribute__((weak)) int name(void)             \
	{                                                \
		return stub_api_call(RUNTIME, #name, -1); \
	}
#define API_STR(name)                                                 \
	const char *name(void);                                       \
	__attribute__((weak)) const char *name(void)                  \
	{                                                             \
		stub_api_call(RUNTIME, #name, 0);                     \
		return "offstub: no " RUNTIME " runtime is loaded";   \
	}
/* cudaChannelFormatDesc / hipChannelFormatDesc: four bit counts and a
 * format kind, built from the arguments. */
struct channel_desc {
	int x, y, z, w;
	int kind;
};
#define API_CHANNEL(name)                                                           \
	struct channel_desc name(int x, int y, int z, int w, int kind);              \
	__attribute__((weak)) struct channel_desc name(int x, int y, int z, int w, int kind) \
	{                                                                           \
		stub_api_call(RUNTIME, #name, 0);                                   \
		return (struct channel_desc){ x, y, z, w, kind };                   \
	}

#if defined(OFFSTUB_API_CUDA)
#include "api_cuda.def"
#else
#include "api_hip.def"
#endif
