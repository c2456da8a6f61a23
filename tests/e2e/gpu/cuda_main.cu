/* Host TU: runs the launches of both kernel TUs and reads the managed
 * variable. */
#include "cuda_decls.h"

void launch_k1(void);
void launch_k2(void);
extern int *managed_value; /* set by the runtime at registration */

int main()
{
	int n = -1;

	printf("devices: %d (count %d)\n", cudaGetDeviceCount(&n), n);
	launch_k1();
	launch_k2();
	printf("managed_value: %d\n", managed_value ? *managed_value : -1);
	return 0;
}
