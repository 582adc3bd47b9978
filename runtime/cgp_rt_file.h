/* cgp_rt_file.h: how the runtime fails without harming the program it runs in. */
#ifndef CGP_RT_FILE_H
#define CGP_RT_FILE_H

/* The tool failed (the report could not be computed or written): print `what` on stderr, after
   flushing the program's stdout, and remember the failure. Never exits: the program's atexit
   handlers, buffered output and exit status are left as they would be without cgpredict, unless
   CGPREDICT_STRICT=1 asks for a zero exit status to become 1 (after every handler has run and
   all streams are flushed). */
void rt_tool_failure(const char *what);
/* Nonzero once rt_tool_failure was called. */
int rt_tool_failed(void);

#endif
