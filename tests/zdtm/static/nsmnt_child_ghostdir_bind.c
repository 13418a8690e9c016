/* nsmnt_child_ghostdir with the child holding the removed directory on a second mount of its namespace too
 * (a bind of that tmpfs, fd 8): after restore fd 8 is the inode of fd 7 on that other mount (before, mode
 * cuns refused it at dump with one line: the child made the directory again once per mount). */
#define NSMNT_DIR_BIND 1
#include "nsmnt_child_ghostdir.c"
