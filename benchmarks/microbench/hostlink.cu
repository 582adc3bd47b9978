/* The host link: what copying a kernel's arrays to the GPU and back costs.
   - Bandwidth: 256 MB copied host-to-device and device-to-host with cudaMemcpy, from pinned
     (cudaMallocHost) and from pageable (malloc) host memory; best of 5.
   - Latency: a 4-byte cudaMemcpy each way, median of 1000: the fixed cost of one transfer. */
#include "mb.cuh"

static double copy_ms(void *dst, const void *src, size_t n, cudaMemcpyKind kind, int reps, bool median) {
  std::vector<double> t;
  for (int r = 0; r < reps; r++) {
    double t0 = mb_now_s();
    MB_CHECK(cudaMemcpy(dst, src, n, kind));
    t.push_back((mb_now_s() - t0) * 1e3);
  }
  return median ? mb_median(t) : mb_min(t);
}

int main(void) {
  mb_props();
  const size_t n = 256ull << 20;
  void *d, *pinned, *pageable;
  MB_CHECK(cudaMalloc(&d, n));
  MB_CHECK(cudaMallocHost(&pinned, n));
  pageable = malloc(n);
  memset(pinned, 1, n);
  memset(pageable, 1, n);
  char how[256];
  const char *names[] = {"pinned", "pageable"};
  void *hosts[] = {pinned, pageable};
  for (int h = 0; h < 2; h++) {
    char key[96];
    snprintf(key, sizeof key, "host_to_device_bytes_per_s_%s", names[h]);
    snprintf(how, sizeof how, "hostlink.cu: cudaMemcpy of 256 MB from %s host memory to the GPU, host clock, best of 5", names[h]);
    mb_emit(key, n / (copy_ms(d, hosts[h], n, cudaMemcpyHostToDevice, 5, false) * 1e-3), "B/s", how);
    snprintf(key, sizeof key, "device_to_host_bytes_per_s_%s", names[h]);
    snprintf(how, sizeof how, "hostlink.cu: cudaMemcpy of 256 MB from the GPU to %s host memory, host clock, best of 5", names[h]);
    mb_emit(key, n / (copy_ms(hosts[h], d, n, cudaMemcpyDeviceToHost, 5, false) * 1e-3), "B/s", how);
  }
  mb_emit("host_to_device_latency_us", copy_ms(d, pinned, 4, cudaMemcpyHostToDevice, 1000, true) * 1e3, "us",
          "hostlink.cu: cudaMemcpy of 4 bytes from pinned host memory to the GPU, host clock, median of 1000");
  mb_emit("device_to_host_latency_us", copy_ms(pinned, d, 4, cudaMemcpyDeviceToHost, 1000, true) * 1e3, "us",
          "hostlink.cu: cudaMemcpy of 4 bytes from the GPU to pinned host memory, host clock, median of 1000");
  return 0;
}
