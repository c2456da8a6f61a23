/* A plain C program using omp_lib.c's pre-linked object. */
#include <stdio.h>

int lib_scale(int *a, int n, int by);

int main(void)
{
	int a[4] = { 1, 2, 3, 4 };
	int initial = lib_scale(a, 4, 3);

	printf("initial=%d a=%d,%d,%d,%d\n", initial, a[0], a[1], a[2], a[3]);
	return 0;
}
