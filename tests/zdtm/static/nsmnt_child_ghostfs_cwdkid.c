/* nsmnt_child_ghostfs_cwd with the removed directory held open by a child of the child too (fd 8, forked once
 * its namespace stands): after restore the inode of the child's cwd (rst_ghost_share_copies); before, each
 * process made its own copy of crshim's ghost on its tmpfs (two inodes). */
#define NSMNT_CWD_KID 1
#include "nsmnt_child_ghostfs_cwd.c"
