/* nsmnt_child_ghostmnt with the child's name of the file in a directory removed too: after restore its fd is
 * the same inode on its own mount again, named "/nsmnt_gm/b/f (deleted)": linked for its open in the deepest
 * directory left at its name's last part (reg_file_entry.ghost_name), by the child itself (a link of the
 * file opened by its handle) or in mode cuns by crshim. Before, mode cuns refused it at dump ("one at
 * another name than its own"); the other modes named it by the handle's dentry. */
#define NSMNT_GONE_DIR 1
#include "nsmnt_child_ghostmnt.c"
