#include <omp.h>
#include <vector>
// device code in a static library: a target region and a declare-target
// function the program's own region calls
#pragma omp declare target
int twice(int x) { return 2 * x; }
#pragma omp end declare target
int static_sum(int n, int *on_device)
{
  std::vector<int> v(n, 1);
  int *p = v.data(), s = 0, dev = 0;
#pragma omp target map(to: p[0:n]) map(tofrom: s) map(from: dev)
  {
    for (int i = 0; i < n; i++)
      s += twice(p[i]);
    dev = !omp_is_initial_device();
  }
  *on_device = dev;
  return s;
}
