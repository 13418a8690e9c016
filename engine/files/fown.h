/* File owner: F_GETOWN_EX / F_GETSIG of an open file description (read through a pidfd_getfd copy, as
 * they belong to the description) and its O_ASYNC flag, restored with F_SETOWN_EX, F_SETSIG, F_SETFL. */
#ifndef CRSHIM_FOWN_H
#define CRSHIM_FOWN_H

#include <stddef.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "image/image.h"

/* fe->fown = fo when the description of the task's fd has an owner, a signal or O_ASYNC (cfd: crshim's copy
 * of it; flags: its fdinfo flags). */
int dump_fown(int cfd, int fd, uint32_t flags, FileEntry *fe, FownEntry *fo, struct cr_err *e);
/* The same in two steps: the owner and signal of the description (its copy cfd), read once for a socket's
 * fds (dump-files.c); fe->fown = fo from them and the fd's flags. */
struct dump_fown_raw {
	struct f_owner_ex own;
	int sig;
};
int dump_fown_read(int cfd, int fd, struct dump_fown_raw *r, struct cr_err *e);
void dump_fown_fill(const struct dump_fown_raw *r, int fd, uint32_t flags, FileEntry *fe, FownEntry *fo);
/* child: set them on fd (after it is open), owner: the owner's pid as this process sees it (PID namespaces,
 * 0: none it can see), c: the task's creds (NULL: crshim's); errors as text. */
int rst_fown_apply(const FileEntry *f, int fd, pid_t owner, const CredsEntry *c, char *msg, size_t len);
/* child: F_SETOWN_EX as the task would set it. The kernel keeps the setter's uid and euid with the owner
 * and sends SIGIO/SIGURG only to a process they may signal (fs/fcntl.c sigio_perm); until the restorer
 * gives the task its own ids it has crshim's (root of its user namespace, say, where the task ran as
 * uid 1000): the call is made with the task's uid and euid (c; NULL: as it is), this thread only, then
 * crshim's ids and the dumpable flag the switch resets are put back. As the host's root (who may signal
 * anyone) it is made as it is: the ids of the process that set the owner are not known, the task's may be
 * narrower than theirs. */
int rst_fown_setown(int fd, const struct f_owner_ex *own, const CredsEntry *c);

#endif
