/* A deleted regular file of the tree's own mount tree held on two mounts, its directory removed too, the
 * directory being the bind's root: a tmpfs at /nsmnt_gfr3 with d/f, d bound at /nsmnt_gfr3/b. The test holds
 * d/f as fd 7 through the tmpfs (its ghost is made for this first fd, on the tmpfs's mount) and b/f as fd 8
 * through the bind, at offset 3, then unlinks d/f and removes d (the bind's mountinfo root then reads
 * "/d//deleted"). Before, the restore removed d, made again for the bind, as soon as the bind was in place,
 * before the ghost was made: the ghost went to another d and fd 8 came back as "/ (deleted)" (cr, ns: by its
 * handle on the bind) or on the tmpfs's mount as "/nsmnt_gfr3/d/f (deleted)" (cuns). Now d is kept till
 * every process has its fds. After restore fd 7 and fd 8 are that one inode (what one writes the other
 * reads), still deleted, with the file's data and fd 8's offset, fd 7 on the tmpfs's mount and fd 8 on the
 * bind's (fdinfo mnt_id), each named "PATH (deleted)" by its own path, neither d nor its file back. */
#define TOP "/nsmnt_gfr3"
#include "nsmnt_ghostbind.h"

GBIND_TEST(.dirs = {"d"}, .src = "d", .file = "d/f", .p = 7, .b = 8, .bname = "b/f", .off = 3, .rmdir = "d")
