/* The main job's example: a SAXPY offloaded with OpenMP.  Linked by
 * offlink (clang-19 -B build/compat), it runs on libomptarget's host
 * device, which executes target regions in a separate "device" image. */
#include <omp.h>
#include <stdio.h>

#define N 1000000

static float x[N], y[N];

int main(void)
{
	const float a = 2.0f;
	int on_host = 1, devices = omp_get_num_devices();

	for (int i = 0; i < N; i++) {
		x[i] = (float)i;
		y[i] = 1.0f;
	}
#pragma omp target teams distribute parallel for map(to: x[0:N]) map(tofrom: y[0:N]) map(from: on_host)
	for (int i = 0; i < N; i++) {
		y[i] = a * x[i] + y[i];
		if (i == 0)
			on_host = omp_is_initial_device();
	}
	printf("devices available: %d\n", devices);
	printf("target region ran on the %s\n", on_host ? "host (fallback)" : "offload device");
	printf("y[0] = %.1f, y[N-1] = %.1f (expected 1.0 and %.1f)\n", y[0], y[N - 1],
	       2.0 * (N - 1) + 1.0);
	return on_host || y[N - 1] != 2.0f * (N - 1) + 1.0f;
}
