/* nsmnt_child_ghostmnt with a third link of the file that stays in the parent's namespace (CRIU's
 * mntns_link_remap shape): the child's two fds are that file again (one link), each on its own mount. Before,
 * the dump refused it (linked elsewhere, on a mount of the parent's namespace); in mode cuns until crshim
 * linked it on each mount from its other link for the child's opens (rst_ghost_link_nested). */
#define NSMNT_KEPT_LINK 1
#include "nsmnt_child_ghostmnt.c"
