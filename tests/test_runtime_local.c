/* Where a thread's local-memory word lies (runtime/cgp_rt_local.h, docs/model.md "Local memory"):
   word w of lane l of warp W at base + W * 16 MiB + (w * 32 + l) * 4. Each case by hand. */
#include <criterion/criterion.h>

#include "cgp_rt_local.h"

#define MIB (UINT64_C(1) << 20)

Test(local, first_word_of_lane_zero_is_the_region_base) {
  cr_expect_eq(rt_local_address(0, 0, 0, 4), UINT64_C(1) << 60);
}

Test(local, consecutive_lanes_hold_consecutive_words) {
  /* word 2 (bytes 8..11) of lane 5: (2 * 32 + 5) * 4 = 276 */
  cr_expect_eq(rt_local_address(0, 5, 8, 4) - (UINT64_C(1) << 60), 276);
  /* a warp at one word: lanes 0..31 at 128 .. 252 + 4, one 128-byte line */
  cr_expect_eq(rt_local_address(0, 0, 4, 4) - (UINT64_C(1) << 60), 128);
  cr_expect_eq(rt_local_address(0, 31, 4, 4) - (UINT64_C(1) << 60), 252);
}

Test(local, each_warp_has_its_own_region) {
  /* warp 3: 3 * 32 threads * 512 KiB = 48 MiB on; word 1 of lane 31: (32 + 31) * 4 = 252 */
  cr_expect_eq(rt_local_address(3, 31, 4, 4) - (UINT64_C(1) << 60), 48 * MIB + 252);
  cr_expect_eq(rt_local_address(RT_LOCAL_SLOTS, 0, 0, 4), rt_local_address(0, 0, 0, 4));
}

Test(local, a_byte_stays_within_its_word_and_a_double_is_its_own_unit) {
  /* byte 5 = word 1, byte 1, of lane 2: (32 + 2) * 4 + 1 = 137 */
  cr_expect_eq(rt_local_address(0, 2, 5, 1) - (UINT64_C(1) << 60), 137);
  /* double 2 (bytes 16..23) of lane 1: (2 * 32 + 1) * 8 = 520 */
  cr_expect_eq(rt_local_address(0, 1, 16, 8) - (UINT64_C(1) << 60), 520);
}

Test(local, the_local_space_lies_above_every_user_array) {
  /* gpu_addr spreads a user address below 2^48 by 16: below 2^52 */
  cr_expect_gt(rt_local_address(0, 0, 0, 4), (UINT64_C(1) << 52));
  /* the last slot's last byte does not wrap */
  uint64_t top = rt_local_address(RT_LOCAL_SLOTS - 1, 31, RT_LOCAL_THREAD_BYTES - 4, 4) + 3;
  cr_expect_gt(top, rt_local_address(0, 0, 0, 4));
}
