/* fdt_shared_orphan with X in a session of its own (setsid once C and Y are made) while Y stays in the
 * test's: X, which would clone Y (CLONE_PARENT | CLONE_FILES), would make it in X's session. The dump must
 * refuse it with one line and the tree keep running, X and Y still sharing one table. */
#define FDT_OWN_SID 1
#include "fdt_shared_orphan.c"
