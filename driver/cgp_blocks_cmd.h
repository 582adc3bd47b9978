/* cgp_blocks_cmd.h: `cgpredict blocks -- PROGRAM [ARGS...]`, each kernel's best block shape among the
   usual candidates, from one run of the program per candidate (docs/model.md section 8d). */
#ifndef CGP_BLOCKS_CMD_H
#define CGP_BLOCKS_CMD_H

/* argv: the arguments after `blocks`. Returns the exit status (0, 1 failure, 2 usage). */
int cgp_blocks_cmd(int argc, char **argv);

#endif
