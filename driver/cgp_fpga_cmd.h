/* cgp_fpga_cmd.h: `cgpredict fpga FILE.c [--device NAME] [--json] [-- FLAGS...]`, the FPGA
   estimate of a source's marked nests from the compiler alone (docs/model.md 11.9). */
#ifndef CGP_FPGA_CMD_H
#define CGP_FPGA_CMD_H

/* argv: the arguments after `fpga`. Returns the exit status (0, 1 failure, 2 usage). */
int cgp_fpga_cmd(int argc, char **argv);

#endif
