/* Moving fds out of the way (restore: helper fds above the numbers a task uses). */
#ifndef CRSHIM_BASE_FD_H
#define CRSHIM_BASE_FD_H

#include <stdbool.h>

/* fd moved to the lowest free number >= lo, close-on-exec; fd itself is closed (errno kept). -1 on error. */
int rst_fd_above(int fd, int lo);
/* The same, fd closed only with close_old (else a copy). */
int fd_copy_above(int fd, int lo, bool close_old);
/* Restore, child: the new fd moved to the number target (fd closed, nothing done if it is target already).
 * 0, or -1 with "fd TARGET: dup2: ..." in msg. */
int rst_fd_at(int fd, int target, char *msg, size_t len);
/* The same for a file just made: fd, or -1 with the reason in msg, which then becomes
 * "fd TARGET (WHAT): reason" (without " (WHAT)" when what is NULL). */
int rst_fd_made_at(int fd, int target, const char *what, char *msg, size_t len);

#endif
