/* nsmnt_child_ghostfs_flags with the file opened O_RDWR | O_APPEND | O_NOFOLLOW (issue 14): after restore its
 * fd still has O_NOFOLLOW (the copy made on the child's tmpfs is opened by its name with it; before, the
 * ghost's /proc link, which refuses it, dropped it for every open). */
#define GHOSTFS_NOFOLLOW 1
#include "nsmnt_child_ghostfs_flags.c"
