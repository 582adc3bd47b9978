/* cgp_compare.h: `cgpredict compare REPORT.json SOURCE.c [--fpga NAME] [--json] [-- FLAGS...]`:
   GPU predictions of a run against the FPGA estimate, per kernel, and the faster accelerator
   (docs/model.md 11.12). */
#ifndef CGP_COMPARE_H
#define CGP_COMPARE_H

/* argv: the arguments after `compare`. Returns the exit status (0, 1 failure, 2 usage). */
int cgp_compare_cmd(int argc, char **argv);

#endif
