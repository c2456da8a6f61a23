#include <omp.h>
// device code in a shared library: the library registers its own images
int shared_square(int x, int *on_device)
{
  int r = 0, dev = 0;
#pragma omp target map(from: r, dev)
  {
    r = x * x;
    dev = !omp_is_initial_device();
  }
  *on_device = dev;
  return r;
}
