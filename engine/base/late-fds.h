/* Files crshim makes for the root task of a tree with its own mount tree once that tree stands (the restore's
 * late step, engine/restore.c): crshim makes each at an fd number it kept before the root was cloned, and the
 * root task takes it at that number. The root takes them with pidfd_getfd from crshim; a root born in a user
 * namespace of its own (ns_rst_user_born) may not (it cannot trace crshim), so crshim sends them to it then,
 * with their numbers, on a socket pair made before the root (push). */
#ifndef CRSHIM_BASE_LATE_FDS_H
#define CRSHIM_BASE_LATE_FDS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* crshim, before the root is cloned (which inherits what it needs). 0, -1. */
int late_fds_open(bool push, struct cr_err *e);
/* Push (crshim, and the tree's processes, which have it from the root's clone). */
bool late_fds_pushed(void);
/* crshim: fd, made at its kept number, is one the root takes (push: sent by late_fds_send). 0, -1 (errno).
 */
int late_fd_offer(int fd);
/* crshim, right before the root's second go: every fd offered, sent (push; nothing else). 0, -1. */
int late_fds_send(struct cr_err *e);
/* The root task, at its second go: the fds sent put at their numbers (push; nothing else). 0, -1 (msg). */
int late_fds_recv(char *msg, size_t len);
/* The same on a channel of the caller's (a SOCK_SEQPACKET pair): fds[0..n), each to go at its own number,
 * then the end (push: 0, -1 errno); each received put at its number, up to the end (pull: 0, -1 msg). Also
 * the unix sockets of a nested mount namespace (engine/net/restore-sk-unix.c). */
int late_fds_push(int to, const int *fds, size_t n);
int late_fds_pull(int from, char *msg, size_t len);
/* The root task: a copy of crshim's fd (pull: pidfd_getfd; push: of its own, put there by late_fds_recv),
 * or -1. */
int late_fd_take(int fd);
/* crshim, when the restore ends: its ends closed. */
void late_fds_close(void);

#endif
