/* Files of /proc/PID held open (engine-internal, restore-procfd.c): opened late, by each process itself,
 * once every process of the tree exists. */
#ifndef CRSHIM_PROCFD_H
#define CRSHIM_PROCFD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "image/image.h"

struct rst_task;
/* A file of /proc/PID (PID a number): not opened with the other fds. */
bool rst_procfd_is(const FileEntry *f);
/* Parent, once the tree is planned: check them, make the barrier of a tree that has such files. */
int rst_procfd_prepare(struct rst_task *ts, size_t n, struct cr_err *e);
void rst_procfd_done(void);
/* Child, after its fds, children and cwd, before its root: wait for the tree, open them. */
int rst_procfd_open(const struct rst_task *t, char *msg, size_t len);
/* Child: it failed before rst_procfd_open (the others must not wait for it). */
void rst_procfd_abort(const struct rst_task *t);

#endif
