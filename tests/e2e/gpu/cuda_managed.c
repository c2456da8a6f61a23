/* The host side of a CUDA managed variable as clang 19 would emit it if it
 * honoured __managed__ in CUDA (it does in HIP): the initial value
 * "managed_value.managed", the pointer "managed_value" the runtime fills
 * in, and a 32-byte entry of type 1 (managed) whose address is the
 * initial value.  offlink finds the pointer through the entry's
 * relocation, as for HIP. */
struct offload_entry {
	void *addr;
	const char *name;
	unsigned long size;
	int flags;
	int data;
};

int managed_init __asm__("managed_value.managed") = 7;
int *managed_pointer __asm__("managed_value");

static const char managed_name[] = "managed_value";

__attribute__((section("cuda_offloading_entries"), used, aligned(8)))
static const struct offload_entry managed_entry = {
	&managed_init, managed_name, sizeof(int), 1 /* managed */, 0,
};
