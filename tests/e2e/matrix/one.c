/* One TU: a target region, run on the device (not the host fallback). */
#include <omp.h>
#include <stdio.h>
int main(void)
{
	int initial = 1, r = 0;
#pragma omp target map(from: initial, r)
	{
		r = 6 * 7;
		initial = omp_is_initial_device();
	}
	printf("initial=%d r=%d\n", initial, r);
	return 0;
}
