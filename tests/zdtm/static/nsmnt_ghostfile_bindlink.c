/* A deleted regular file of the tree's own mount tree held on two mounts through two of its links: a tmpfs at
 * /nsmnt_gfl with p/f and q/g (one inode), q bound at /nsmnt_gfl/b. The test holds p/f through the tmpfs
 * (fd P) and b/g through the bind (fd B), then unlinks both names. Here P is fd 7, B fd 8 (the ghost is made
 * for the first fd, at p/f on the tmpfs's mount); nsmnt_ghostfile_bindlink2: B is fd 7 (made at b/g on the
 * bind). The other fd's directory is not the ghost's, so it is opened again neither by the ghost's name nor,
 * in a tree born in its user namespace (mode cuns), by its handle: it came back on the ghost's mount, named
 * by the ghost's path (a warning in the dump's log). crshim now finds a directory of one seen on the other's
 * mount (reg_file_entry.ghost_via): /nsmnt_gfl/q on the tmpfs's, where the process links the ghost for its
 * open through the bind, or the ghost's /nsmnt_gfl/q on the tmpfs's, where it opens it by its name. After
 * restore P and B are that one inode (what one writes the other reads), still deleted, P on the tmpfs's
 * mount and B on the bind's (fdinfo mnt_id), each named "PATH (deleted)" by its own path, neither name back.
 */
#ifndef BINDLINK_GHOST_ON_BIND
#define TOP "/nsmnt_gfl"
#define P 7
#define B 8
#else
#define TOP "/nsmnt_gfl2"
#define P 8
#define B 7
#endif
#include "nsmnt_ghostbind.h"

GBIND_TEST(.dirs = {"p", "q"}, .src = "q", .file = "p/f", .link = "q/g", .p = P, .b = B, .bname = "b/g")
