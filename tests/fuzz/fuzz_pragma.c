/* libFuzzer harness: the pragma clause parser (cgp_pragma_parse) on arbitrary text. It must
   accept or refuse without crashing; what it accepts must satisfy the documented limits, and a
   refusal must say why and point inside the text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgp_pragma.h"

static int valid_utf8_string(const char *s, size_t cap) {
  const char *end = memchr(s, '\0', cap);
  if (!end) return 0;
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    int n = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 : 0;
    if (!n) return 0;
    for (int i = 1; i < n; i++) if ((p[i] & 0xC0) != 0x80) return 0;
    p += n;
  }
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static cgp_kernel_pragma k;
  memset(&k, 0, sizeof k);
  size_t at = (size_t)-1;
  char err[512];
  if (cgp_pragma_parse((const char *)data, size, &k, &at, err, sizeof err) != 0) {
    if (!err[0] || at > size) abort();
    return 0;
  }
  if (!valid_utf8_string(k.name, sizeof k.name) || k.dims > 3 || k.nshared > CGP_PRAGMA_MAX_SHARED) abort();
  for (unsigned i = 0; i < k.nshared; i++)
    if (!valid_utf8_string(k.shared[i], sizeof k.shared[i]) || !k.shared[i][0]) abort();
  if (k.block[0] && (uint64_t)k.block[0] * k.block[1] * k.block[2] > 1024) abort();
  if (k.tile && !k.nshared) abort();
  /* fpga(...): at most 8 directives, each named, its numbers within their documented ranges */
  if (k.fpga < CGP_FPGA_UNSET || k.fpga > CGP_FPGA_BASELINE || k.n_knobs > CGP_PRAGMA_MAX_KNOBS) abort();
  if ((k.fpga == CGP_FPGA_LIST) != (k.n_knobs > 0)) abort();
  for (unsigned i = 0; i < k.n_knobs; i++) {
    const cgp_fpga_knob *kn = &k.knobs[i];
    if (!valid_utf8_string(kn->name, sizeof kn->name) || !kn->name[0] || kn->at >= size) abort();
    if (kn->kind == CGP_KNOB_UNROLL && (kn->factor < 1 || kn->factor > 1024)) abort();
    if (kn->kind == CGP_KNOB_PARTITION && (kn->part < 1 || kn->part > 3 || kn->dim < 1 || kn->dim > 4 ||
                                           (kn->part == 3) != (kn->factor == 0)))
      abort();
  }
  return 0;
}
