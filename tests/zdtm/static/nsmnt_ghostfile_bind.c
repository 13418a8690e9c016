/* A deleted regular file of the tree's own mount tree held on two mounts: a tmpfs at /nsmnt_gfb and a bind of
 * its directory p at /nsmnt_gfb/b (a bind of the file's directory). The test holds p/f as fd 7 through the
 * tmpfs and as fd 8 through the bind (two open file descriptions), then unlinks it. After restore fd 7 and
 * fd 8 are that one inode (what is written through one is read through the other), still deleted
 * (st_nlink 0), fd 7 on the tmpfs's mount and fd 8 on the bind's (fdinfo mnt_id, as statx of the mount
 * points reads them), each named "PATH (deleted)" by its own path. */
#define TOP "/nsmnt_gfb"
#include "nsmnt_ghostbind.h"

GBIND_TEST(.dirs = {"p"}, .src = "p", .file = "p/f", .p = 7, .b = 8, .bname = "b/f")
