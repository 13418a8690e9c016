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
/* Parent, once the tree is planned: check them, make the barrier of a tree that has such files (a dry run,
 * ts[0].dry of restore-check.c: checked only). */
int rst_procfd_prepare(struct rst_task *ts, size_t n, struct cr_err *e);
void rst_procfd_done(void);
/* Child, after its fds, children and cwd, before its root: wait for the tree, open them. */
int rst_procfd_open(const struct rst_task *t, char *msg, size_t len);
/* Dump: link (of an fd or the cwd, as task pid sees it) names a file of /proc/N, N a process that is gone
 * (its " (deleted)" is cut off then): true. */
bool dump_procfd_dead(pid_t pid, char *link);
/* Child: fn(path, arg) while a helper process has the PID N of path (/proc/N...; made with clone3 set_tid
 * in the task's PID namespace, killed and reaped after), so that the task holds a file or a cwd of a gone
 * process again (CRIU's remap_dead_pid, unhashed_proc). fn's result, -1 with errno if no helper. */
int rst_procfd_dead(const char *path, int (*fn)(const char *path, void *arg), void *arg);
/* Child: it failed before rst_procfd_open (the others must not wait for it). */
void rst_procfd_abort(const struct rst_task *t);

#endif
