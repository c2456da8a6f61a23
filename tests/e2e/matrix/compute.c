#include <omp.h>
extern int shared_to;
#pragma omp declare target to(shared_to)
extern int shared_link[4];
#pragma omp declare target link(shared_link)
int dev_add(int a, int b);
#pragma omp declare target to(dev_add)
int compute(int *initial)
{
	int sum = 0;
#pragma omp target map(tofrom: sum) map(to: shared_link[0:4]) map(from: initial[0:1])
	{
		for (int i = 0; i < 4; i++)
			sum = dev_add(sum, shared_link[i]);
		initial[0] = omp_is_initial_device();
	}
	return sum;
}
