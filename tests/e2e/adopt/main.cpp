#include <cstdio>
#include <omp.h>
int static_sum(int n, int *on_device);
int shared_square(int x, int *on_device);
extern "C" const char *helper_name(void);
#pragma omp declare target
int twice(int x);
#pragma omp end declare target
int main()
{
  int d1 = 0, d2 = 0, d3 = 0, r = 0;
  int s = static_sum(10, &d1);
  int q = shared_square(7, &d2);
#pragma omp target map(from: r, d3)
  {
    r = twice(21);
    d3 = !omp_is_initial_device();
  }
  std::printf("%s: static=%d shared=%d main=%d on_device=%d%d%d\n", helper_name(), s, q, r, d1, d2, d3);
  return 0;
}
