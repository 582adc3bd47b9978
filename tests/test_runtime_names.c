/* The report's kernel names (runtime/cgp_rt_names.c): a name two kernels share carries the
   function the source wrote each in, short (no return type, no parameters), or its place where
   that is shared too; a name no other kernel has stays as it is. Hand cases. */
#include <criterion/criterion.h>

#include "cgp_rt_internal.h"

Test(names, kernels_sharing_a_name_carry_their_function_or_their_place) {
  rt_kernel k[7] = {
      {.name = "scale", .function = "void scale<float>(float*, long)"},
      {.name = "scale", .function = "void scale<double>(double*, long)"},
      {.name = "copy", .function = "OMPStream<double>::copy()"},
      {.name = "copy", .function = "OMPStream<float>::copy()"},
      {.name = "once", .function = "main"},
      {.name = "once", .function = "main"},
      {.name = "alone", .function = "void alone(double*, long)"},
  };
  const rt_kernel *p[7];
  for (int i = 0; i < 7; i++) p[i] = &k[i];
  char names[7][RT_NAME_BYTES];
  rt_kernel_names(p, 7, names);
  const char *want[7] = {"scale [scale<float>]", "scale [scale<double>]", "copy [OMPStream<double>::copy]",
                         "copy [OMPStream<float>::copy]", "once #1", "once #2", "alone"};
  for (int i = 0; i < 7; i++) cr_expect_str_eq(names[i], want[i], "kernel %d", i);
}

/* A function the descriptor does not name (an older pass's): the place alone. */
Test(names, kernels_without_a_function_are_told_apart_by_their_place) {
  rt_kernel k[3] = {{.name = "k", .function = ""}, {.name = "k", .function = ""}, {.name = "j", .function = ""}};
  const rt_kernel *p[3] = {&k[0], &k[1], &k[2]};
  char names[3][RT_NAME_BYTES];
  rt_kernel_names(p, 3, names);
  cr_expect_str_eq(names[0], "k #1");
  cr_expect_str_eq(names[1], "k #2");
  cr_expect_str_eq(names[2], "j");
}
