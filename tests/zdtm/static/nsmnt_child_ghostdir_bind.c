/* nsmnt_child_ghostdir with the child holding the removed directory on a second mount of its namespace too
 * (a bind of that tmpfs, fd 8): after restore fd 8 is the inode of fd 7 on that other mount; mode cuns
 * refuses it at dump with one line (the child would make the directory again once per mount: two
 * inodes). */
#define NSMNT_DIR_BIND 1
#include "nsmnt_child_ghostdir.c"
