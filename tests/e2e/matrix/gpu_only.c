/* OpenMP for GPUs only (two NVPTX architectures, or AMDGPU), with no
 * device runtime installed: the two entry points a target region calls
 * are defined here, for the devices only, so that each image links (with
 * LLVM's wrapper as with offlink).  No GPU runs it: the stub logs what
 * is registered and the region runs on the host. */
#include <stdio.h>
#pragma omp begin declare target device_type(nohost)
int __kmpc_target_init(void *kernel_environment, void *launch_environment)
{
  (void)kernel_environment;
  (void)launch_environment;
  return -1;
}
void __kmpc_target_deinit(void) {}
#pragma omp end declare target
int counter = 2;
#pragma omp declare target(counter)
int main(void) {
  int r = 0;
#pragma omp target map(tofrom: r)
  r = 40 + counter;
  printf("r=%d\n", r);
  return 0;
}
