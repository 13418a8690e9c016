/* nsmnt_child_setns_zombie_deep with the maker B1 reaped by B (gone, not a zombie): refused at dump all the
 * same. */
#define NSMNT_SX_REAPED 1
#include "nsmnt_child_setns_zombie_deep.c"
