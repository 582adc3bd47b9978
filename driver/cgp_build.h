/* cgp_build.h: `cgpredict build`: run a C compiler command line with the marked sources
   instrumented and the runtime linked in. */
#ifndef CGP_BUILD_H
#define CGP_BUILD_H

/* cmd[0] is the user's compiler, the rest its arguments. Returns the exit status to use. */
int cgp_build(int argc, char **cmd);

#endif
