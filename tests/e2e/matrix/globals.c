/* Declare-target globals (to and link) and a device function, defined
 * here and used from compute.c. */
int shared_to = 7;
#pragma omp declare target to(shared_to)
int shared_link[4] = { 1, 2, 3, 4 };
#pragma omp declare target link(shared_link)
int dev_add(int a, int b) { return a + b + shared_to; }
#pragma omp declare target to(dev_add)
