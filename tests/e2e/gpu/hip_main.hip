/* Host TU: runs the launches of both kernel TUs and reads the managed
 * variables through the pointers registration filled in. */
#include "hip_decls.h"

void launch_k1(void);
void launch_k2(void);
extern __managed__ int managed_value;
extern __managed__ double managed_pair[2];

int main()
{
	int n = -1;

	printf("devices: %d (count %d)\n", hipGetDeviceCount(&n), n);
	launch_k1();
	launch_k2();
	printf("managed_value: %d\n", managed_value);
	printf("managed_pair: %g %g\n", managed_pair[0], managed_pair[1]);
	return 0;
}
