/* Files sent over unix sockets (SCM_RIGHTS) between crshim's own processes: the restore's late files, the
 * lazy-pages daemon and its watchdog, the memory-tracking keeper, the mount walk's child, the RPC server and
 * the console socket. One message each way: data and, in one control message, the fds. */
#ifndef CRSHIM_BASE_SCM_H
#define CRSHIM_BASE_SCM_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

#define SCM_FDS_MAX 253 /* the kernel's SCM_MAX_FD */

/* One message: the bytes of iov[0..niov) and nfds fds (none: no control message). MSG_NOSIGNAL. The bytes
 * sent, or -1 with errno (EINVAL: more than SCM_FDS_MAX fds). */
ssize_t scm_send(int sk, const struct iovec *iov, size_t niov, const int *fds, size_t nfds);
/* One message into iov[0..niov), its fds (close-on-exec) into fds[0..maxfds), *nfds of them; fds beyond
 * maxfds are closed and count as MSG_CTRUNC. *flags (if not NULL): the message's flags (MSG_TRUNC: data cut,
 * MSG_CTRUNC: fds lost). The bytes received (0: the peer closed, or an empty message), or -1 with errno
 * (EINTR included: the caller decides). */
ssize_t scm_recv(int sk, const struct iovec *iov, size_t niov, int *fds, size_t maxfds, size_t *nfds,
		 int *flags);
/* One message of one byte and fd (scm_send_fd); one such message from sk, EINTR retried, its fd put at number
 * at (dup3, close-on-exec: scm_recv_fd_at). 0, or -1 with errno (EPROTO: no fd, or not one byte). */
int scm_send_fd(int sk, int fd);
int scm_recv_fd_at(int sk, int at);

#endif
