/* The other half of a SYCL registration (LLVM 23 on), for
 * tests/e2e/registration_forms.sh: __sycl_register_lib and
 * __sycl_unregister_lib printing each image they get (its size and first
 * bytes), and main saying when the program's own code runs, so that the
 * output shows the registration before it and the unregistration after. */
#include <stdint.h>
#include <stdio.h>

void __sycl_register_lib(const unsigned char *image, uint64_t size);
void __sycl_unregister_lib(const unsigned char *image, uint64_t size);

void __sycl_register_lib(const unsigned char *image, uint64_t size)
{
	printf("sycl register: %llu bytes, %02x%02x%02x%02x, 16-aligned %s\n",
	       (unsigned long long)size, image[0], image[1], image[2], image[3],
	       (uintptr_t)image % 16 ? "no" : "yes");
}

void __sycl_unregister_lib(const unsigned char *image, uint64_t size)
{
	printf("sycl unregister: %llu bytes, %02x%02x\n", (unsigned long long)size, image[0],
	       image[1]);
}

int main(void)
{
	printf("main\n");
	return 0;
}
