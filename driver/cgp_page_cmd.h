/* cgp_page_cmd.h: `cgpredict page OUT.html REPORT.json [REPORT.json ...]`, one self-contained page
   for one report or several (a suite of programs: PolyBench's). */
#ifndef CGP_PAGE_CMD_H
#define CGP_PAGE_CMD_H

/* argv: the arguments after `page`. Returns the exit status (0, 1 failure, 2 usage). */
int cgp_page_cmd(int argc, char **argv);

#endif
