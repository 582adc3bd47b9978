/* libFuzzer harness: the device loader on arbitrary bytes. cgp_device_load_file reads a path,
   so each input is written to a memfd and loaded through /proc/self/fd. A load either succeeds
   with a device whose checked fields hold, or fails with a message; it must never crash. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cgp_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int fd = -1;
  static char path[64];
  if (fd < 0) {
    fd = memfd_create("cgp-fuzz-device", 0);
    if (fd < 0) abort();
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  }
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size) abort();
  cgp_device dev;
  char err[1024];
  err[0] = '\0';
  if (cgp_device_load_file(path, &dev, err, sizeof err) != 0) {
    if (!err[0]) abort();                      /* a failure always says why */
  } else {
    if (memchr(dev.name, '\0', sizeof dev.name) == NULL) abort();
    if (dev.warp_size == 0 || dev.l2_line_bytes == 0) abort();
  }
  return 0;
}
