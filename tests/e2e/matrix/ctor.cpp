// A device-side global constructor runs when the image is loaded.
#include <cstdio>
#include <omp.h>
struct Counter {
	int v;
	Counter() : v(41) { v++; }
};
#pragma omp declare target
Counter dev_counter;
int twice(int x) { return 2 * x; }
#pragma omp end declare target
int main()
{
	int got = 0, initial = 1;
#pragma omp target map(from: got, initial)
	{
		got = twice(dev_counter.v);
		initial = omp_is_initial_device();
	}
	std::printf("initial=%d counter=%d\n", initial, got);
}
