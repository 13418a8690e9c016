/* nsmnt_child_ghostdir with the removed directory opened on its own by a child of the child too (fd 8, forked
 * once the child's namespace stands): after restore fd 8 is the inode of fd 7 (mode cuns: each opens it by
 * its handle; the dump refused it once, then the child made it again once for both). */
#define NSMNT_DIR_KID 1
#include "nsmnt_child_ghostdir.c"
