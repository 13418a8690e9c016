/* fork00 restored with --restore-sibling: the root is created with CLONE_PARENT (a child of the
 * process that started crshim, as CRIU does for runc), the tree below it as usual. */
#include "fork00.c"
