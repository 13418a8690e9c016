/* nsmnt_child_ghostname2 with the first file deleted in a directory left (b/f) and the second in one removed
 * too (b/d/f): the second must not be given the first's name. */
#define NSMNT_GN_NAMED 1
#include "nsmnt_child_ghostname2.c"
