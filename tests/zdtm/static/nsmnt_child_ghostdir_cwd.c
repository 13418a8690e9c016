/* nsmnt_child_ghostdir with the child's cwd in the removed directory too: after restore its cwd is the
 * inode of its fd 7 (before, mode cuns refused it at dump with one line: the child made the directory again
 * for its fd, and its cwd would have been another inode). */
#define NSMNT_DIR_CWD 1
#include "nsmnt_child_ghostdir.c"
