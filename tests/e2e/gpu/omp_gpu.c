/* OpenMP offloading for GPUs and the host device: two target regions and
 * a declare-target table, so the entry table has kernels and a global. */
#include <omp.h>
#include <stdio.h>

int table[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
#pragma omp declare target(table)

int main(void)
{
	int initial = 1, sum = 0, n = 0;

#pragma omp target map(from: initial) map(tofrom: sum)
	{
		initial = omp_is_initial_device();
		for (int i = 0; i < 8; i++)
			sum += table[i];
	}
#pragma omp target teams distribute parallel for reduction(+: n)
	for (int i = 0; i < 100; i++)
		n += i;
	printf("initial=%d sum=%d n=%d\n", initial, sum, n);
	return 0;
}
