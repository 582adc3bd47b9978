/* cgp_build.h: `cgpredict build`: run a C compiler command line with the marked sources
   instrumented and the runtime linked in. */
#ifndef CGP_BUILD_H
#define CGP_BUILD_H

/* cmd[0] is the user's compiler, the rest its arguments. Returns the exit status to use. */
int cgp_build(int argc, char **cmd);

/* 1 if a command named `cmd` is a compiler cgp_build takes: cc, gcc, clang, c89, c99, or the C++
   drivers c++, g++, clang++, with a target prefix (x86_64-linux-gnu-gcc) or a version suffix
   (gcc-12, clang-14) or both. */
int cgp_is_c_compiler(const char *cmd);
/* 1 if it is one of the C++ drivers: a .c source it compiles is C++ (as g++ compiles it). */
int cgp_is_cxx_compiler(const char *cmd);

/* Any other build command (make, a script, ...; cmd NULL-terminated): run it with a directory
   first on PATH whose cc, gcc, clang, c89, c99, c++, g++ and clang++ are links to `self` (this
   cgpredict), so that every C and C++ compile and link the build makes goes through cgp_build,
   even from a Makefile that names gcc or g++ itself; the directory is removed on every exit. Returns the command's status. */
int cgp_build_tool(char **cmd);

/* cgpredict run under one of those names (argv[0], with CGPREDICT_WRAP_DIR set): cgp_build with
   the compiler of that name found on PATH past the wrapper directory. */
int cgp_wrapped_compiler(int argc, char **argv);
int cgp_is_wrapped_name(const char *argv0);
/* Run as cgpredict-cc or cgpredict-c++ (the links the build makes beside cgpredict): the driver
   it stands for, "cc" or "c++"; NULL otherwise. */
const char *cgp_one_word_driver(const char *argv0);

#endif
