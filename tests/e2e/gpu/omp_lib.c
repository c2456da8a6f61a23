/* A library function that offloads, for pre-linking with -r. */
#include <omp.h>

int lib_scale(int *a, int n, int by)
{
	int initial = 1;

#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) map(from: initial)
	for (int i = 0; i < n; i++) {
		a[i] *= by;
		if (i == 0)
			initial = omp_is_initial_device();
	}
	return initial;
}
