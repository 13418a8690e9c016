/* A deleted regular file of the tree's own mount tree held on two mounts, its directory removed too: a tmpfs
 * at /nsmnt_gfr with p/d/f, p bound at /nsmnt_gfr/b. The test holds p/d/f as fd 7 through the tmpfs (its
 * ghost is made for this first fd, on the tmpfs's mount) and b/d/f as fd 8 through the bind, at offset 3,
 * then unlinks p/d/f and removes p/d. In a tree born in its user namespace (mode cuns), where no handle may
 * be opened, fd 8 came back on the tmpfs's mount, named by the ghost's path (a warning in the dump's log):
 * the ghost is made with its directory made again and was not kept by name, so nothing reached it through the
 * bind. After restore fd 7 and fd 8 are that one inode (what one writes the other reads), still deleted, with
 * the file's data and fd 8's offset, fd 7 on the tmpfs's mount and fd 8 on the bind's (fdinfo mnt_id), each
 * named "PATH (deleted)" by its own path, neither d nor its file back. Here P (the tmpfs's) is fd 7 and B
 * (the bind's) fd 8; nsmnt_ghostfile_bindrmdir2: B is fd 7 (the ghost made at b/d/f on the bind). */
#ifndef BINDRMDIR_GHOST_ON_BIND
#define TOP "/nsmnt_gfr"
#define P 7
#define B 8
#else
#define TOP "/nsmnt_gfr2"
#define P 8
#define B 7
#endif
#include "nsmnt_ghostbind.h"

GBIND_TEST(.dirs = {"p/d"}, .src = "p", .file = "p/d/f", .p = P, .b = B, .bname = "b/d/f", .off = 3,
	   .rmdir = "p/d")
