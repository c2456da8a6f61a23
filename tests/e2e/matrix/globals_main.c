#include <stdio.h>
extern int shared_to;
#pragma omp declare target to(shared_to)
int compute(int *initial);
int main(void)
{
	int initial = 1;
	shared_to = 100;
#pragma omp target update to(shared_to)
	int s = compute(&initial);
	printf("initial=%d sum=%d\n", initial, s);
	return 0;
}
