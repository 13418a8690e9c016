/* memfd (engine-internal): dump-memfd.c, restore-memfd.c; the fd kind FILE_MEMFD (files/fd-kind.h), shared
 * between processes like the event fds (files/evfd.h); one that is also mapped is one object with the
 * mapping (restore-shmem.c: rst_shmem_fd). */
#ifndef CRSHIM_MEMFD_H
#define CRSHIM_MEMFD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "crshim.h"
#include "image/image.h"

struct evfd_src;
struct rst_task;
/* link is a memfd ("/memfd:NAME (deleted)") or shared anonymous memory ("/dev/zero (deleted)", an fd opened
 * through /proc/PID/map_files: memfd_entry.shmem_anon, its object in shmem.img) */
bool dump_memfd_is(const char *link, const struct stat *st);
int dump_memfd_fill(const struct evfd_src *s, FileEntry *fe, struct cr_err *e);
/* crshim, before the fds shared in the tree are made: the memfds (inodes) held by several processes, each
 * made once (by rst_memfd_make, kept until rst_memfd_tree_done); rst_memfd_in_tree: f is one of them. */
int rst_memfd_tree(const struct rst_task *ts, size_t n, struct cr_err *e);
bool rst_memfd_in_tree(const FileEntry *f);
void rst_memfd_tree_done(void);
/* A new memfd for f (close-on-exec, status flags set), -1 on error. */
int rst_memfd_make(const FileEntry *f, char *msg, size_t len);
/* Child: the memfd of f at fi->fd (several opens of one memfd share it). rst_memfd_done: all placed. */
int rst_memfd_open(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		   size_t len);
void rst_memfd_done(void);

#endif
