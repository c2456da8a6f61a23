#include "hip_decls.h"
__device__ int twice(int x) { return 2 * x; }
__global__ void k2(int *p) { *p = twice(3); }
void launch1(int *p);
int main() { launch1(0); k2<<<1, 1>>>(0); return 0; }
