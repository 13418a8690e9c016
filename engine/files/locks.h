/* File locks (--file-locks): flock, POSIX (fcntl F_SETLK), OFD (F_OFD_SETLK) locks and leases (F_SETLEASE;
 * one being broken is broken again at restore), read from the "lock:" lines of /proc/PID/fdinfo/N (the kernel
 * lists there the locks held through that open file description: flock and OFD locks of the description,
 * POSIX locks of the process taken through it). They go to filelocks-PID.img and are taken again by the
 * restored process itself at the end of its fd stage, after every fd is opened and every helper fd closed
 * (closing any fd of a file drops the POSIX locks on it). */
#ifndef CRSHIM_LOCKS_H
#define CRSHIM_LOCKS_H

#include <stddef.h>

#include "base/err.h"

struct dump_ctx;
struct rst_task;

/* filelocks-PID.img; without --file-locks a held lock fails the dump with one line. */
int dump_locks_write(struct dump_ctx *c, struct cr_err *e);

/* restore: load filelocks-PID.img (absent: none). */
int rst_locks_load(struct rst_task *t, struct cr_err *e);
void rst_locks_free(struct rst_task *t);
/* child: take the locks (after every fd is in place); errors as text. */
int rst_child_locks(const struct rst_task *t, char *msg, size_t len);

#endif
