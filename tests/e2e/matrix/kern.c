/* Kernels in a library: the program's own objects have no device code. */
#include <omp.h>
int scale(int *a, int n)
{
	int initial = 1;
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) map(from: initial)
	for (int i = 0; i < n; i++) {
		a[i] *= 3;
		if (i == 0)
			initial = omp_is_initial_device();
	}
	return initial;
}
