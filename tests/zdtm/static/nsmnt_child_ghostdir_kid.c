/* nsmnt_child_ghostdir with the removed directory opened on its own by a child of the child too (fd 8, forked
 * once the child's namespace stands): after restore fd 8 is the inode of fd 7. Mode cuns: the child makes the
 * directory again once for both (rst_ghost_share_copies); before, the dump refused it ("held by another fd or
 * cwd of the tree too"). */
#define NSMNT_DIR_KID 1
#include "nsmnt_child_ghostdir.c"
