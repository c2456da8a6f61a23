/* The other TU of twotu_a.c: the function, the global, a region of its own. */
#pragma omp declare target
int scale = 6;
int times(int x) { return x * scale; }
#pragma omp end declare target
int run_b(void)
{
  int r = 0;
#pragma omp target map(from: r)
  r = times(2);
  return r;
}
