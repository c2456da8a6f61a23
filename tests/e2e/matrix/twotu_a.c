/* Two TUs compiled with -c: a target region calling a declare-target
 * function of the other TU, which reads a declare-target global. */
#include <omp.h>
#include <stdio.h>
#pragma omp declare target
int times(int x);
#pragma omp end declare target
int run_b(void);
int main(void)
{
  int r = 0, initial = 1;
#pragma omp target map(from: r, initial)
  {
    r = times(7);
    initial = omp_is_initial_device();
  }
  printf("initial=%d r=%d b=%d\n", initial, r, run_b());
  return 0;
}
