/* nsmnt_child_ghostmnt with fd 8 held by a child of the child, forked once the child's mount namespace
 * stands (it inherits it): after restore the same (the child checks its child's fd through /proc). Mode cuns:
 * crshim links the ghost for that process's open too, at its namespace maker's stand
 * (rst_ghost_link_nested); before, the dump refused it ("one of a process that did not make its
 * namespace"). */
#define NSMNT_KID_FD 1
#include "nsmnt_child_ghostmnt.c"
