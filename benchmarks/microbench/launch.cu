/* What a launch costs. An empty kernel, launched
   - back to back, 10000 times between two events: the launch rate the GPU sustains when the host
     queues launches faster than they run (per launch: the span over the count);
   - one at a time between its own two events: what a stream sees of a lone launch;
   - with cudaDeviceSynchronize after each, timed on the host: what a program that synchronises
     after every launch (PolyBench/GPU does) pays per launch.
   Each for grids of 1 to 65536 blocks of 256 threads, so the cost of dispatching blocks shows.
   With the argument "ncu" it only launches each grid 20 times, for Nsight Compute to measure the
   kernel duration it reports (gpu__time_duration), the quantity ncu_kernels.csv holds. */
#include "mb.cuh"

__global__ void k_empty(void) {}

int main(int argc, char **argv) {
  cudaDeviceProp p = mb_props();
  int sm = p.multiProcessorCount;
  int grids[] = {1, sm, sm * 8, sm * 64, 65536};
  const char *names[] = {"1", "sm", "sm_x8", "sm_x64", "65536"};
  if (argc > 1 && strcmp(argv[1], "ncu") == 0) {
    for (int g = 0; g < 5; g++)
      for (int i = 0; i < 20; i++) k_empty<<<grids[g], 256>>>();
    MB_CHECK(cudaDeviceSynchronize());
    return 0;
  }
  cudaEvent_t a, b;
  MB_CHECK(cudaEventCreate(&a));
  MB_CHECK(cudaEventCreate(&b));
  for (int g = 0; g < 5; g++) {
    char key[96], how[512];
    for (int i = 0; i < 200; i++) k_empty<<<grids[g], 256>>>();
    MB_CHECK(cudaDeviceSynchronize());
    const int n = 10000;
    std::vector<double> runs;
    for (int r = 0; r < 3; r++) {
      MB_CHECK(cudaEventRecord(a));
      for (int i = 0; i < n; i++) k_empty<<<grids[g], 256>>>();
      MB_CHECK(cudaEventRecord(b));
      runs.push_back(mb_event_ms(a, b) * 1e3 / n);
    }
    snprintf(key, sizeof key, "launch_back_to_back_us_grid_%s", names[g]);
    snprintf(how, sizeof how,
             "launch.cu: 10000 empty kernels of %d blocks x 256 threads queued back to back between two "
             "CUDA events; span over count, median of 3",
             grids[g]);
    mb_emit(key, mb_median(runs), "us", how);

    std::vector<double> lone;
    for (int i = 0; i < 500; i++) {
      MB_CHECK(cudaEventRecord(a));
      k_empty<<<grids[g], 256>>>();
      MB_CHECK(cudaEventRecord(b));
      lone.push_back(mb_event_ms(a, b) * 1e3);
    }
    snprintf(key, sizeof key, "launch_event_us_grid_%s", names[g]);
    snprintf(how, sizeof how,
             "launch.cu: one empty kernel of %d blocks x 256 threads between two CUDA events, "
             "synchronised on the second; median of 500",
             grids[g]);
    mb_emit(key, mb_median(lone), "us", how);

    const int m = 5000;
    std::vector<double> synced;
    for (int r = 0; r < 3; r++) {
      double t0 = mb_now_s();
      for (int i = 0; i < m; i++) {
        k_empty<<<grids[g], 256>>>();
        MB_CHECK(cudaDeviceSynchronize());
      }
      synced.push_back((mb_now_s() - t0) * 1e6 / m);
    }
    snprintf(key, sizeof key, "launch_sync_us_grid_%s", names[g]);
    snprintf(how, sizeof how,
             "launch.cu: 5000 x (empty kernel of %d blocks x 256 threads, cudaDeviceSynchronize), "
             "host steady clock; per launch, median of 3",
             grids[g]);
    mb_emit(key, mb_median(synced), "us", how);
  }
  return 0;
}
