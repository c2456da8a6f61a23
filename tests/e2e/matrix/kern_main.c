#include <stdio.h>
int scale(int *a, int n);
int main(void)
{
	int a[4] = { 1, 2, 3, 4 };
	int initial = scale(a, 4);
	printf("initial=%d a=%d,%d,%d,%d\n", initial, a[0], a[1], a[2], a[3]);
	return 0;
}
