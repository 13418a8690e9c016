/* A shell job leading its own process group (as a shell with job control starts it) that has the
 * terminal's foreground, on a pty of its own (zdtm_pty). Restored with --shell-job by a crshim on another
 * pty: it leads its group in crshim's session, and its group has that terminal's foreground (crshim gives
 * it away before the job runs, like a shell's `fg`). Also all that shell_job_tty checks. */
#define SHELL_JOB_OWN_PGRP 1
#include "shell_job_tty.c"
