/* File owner: F_GETOWN_EX / F_GETSIG of an open file description (read through a pidfd_getfd copy, as
 * they belong to the description) and its O_ASYNC flag, restored with F_SETOWN_EX, F_SETSIG, F_SETFL. */
#ifndef CRSHIM_FOWN_H
#define CRSHIM_FOWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "image/image.h"

/* fe->fown = fo when the description has an owner, a signal or O_ASYNC (flags: its fdinfo flags). */
int dump_fown(pid_t pid, int fd, uint32_t flags, FileEntry *fe, FownEntry *fo, struct cr_err *e);
/* child: set them on fd (after it is open), owner: the owner's pid as this process sees it (PID namespaces,
 * 0: none it can see); errors as text. */
int rst_fown_apply(const FileEntry *f, int fd, pid_t owner, char *msg, size_t len);

#endif
