/* Files sent over unix sockets between crshim's processes: scm.h. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/scm.h"

union scm_ctl {
	char b[CMSG_SPACE(SCM_FDS_MAX * sizeof(int))];
	struct cmsghdr align;
};

ssize_t scm_send(int sk, const struct iovec *iov, size_t niov, const int *fds, size_t nfds)
{
	union scm_ctl ctl;
	struct msghdr mh = {.msg_iov = (struct iovec *)iov, .msg_iovlen = niov};
	if (nfds > SCM_FDS_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (nfds) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.b;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	return sendmsg(sk, &mh, MSG_NOSIGNAL);
}

ssize_t scm_recv(int sk, const struct iovec *iov, size_t niov, int *fds, size_t maxfds, size_t *nfds,
		 int *flags)
{
	union scm_ctl ctl;
	struct msghdr mh = {.msg_iov = (struct iovec *)iov,
			    .msg_iovlen = niov,
			    .msg_control = ctl.b,
			    .msg_controllen = sizeof(ctl.b)};
	*nfds = 0;
	if (flags)
		*flags = 0;
	ssize_t r = recvmsg(sk, &mh, MSG_CMSG_CLOEXEC);
	if (r < 0)
		return -1;
	int fl = mh.msg_flags;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		const unsigned char *d = CMSG_DATA(c);
		for (size_t i = 0; i < k; i++) {
			int fd;
			memcpy(&fd, d + i * sizeof(int), sizeof(int));
			if (*nfds < maxfds) {
				fds[(*nfds)++] = fd;
			} else {
				close(fd);
				fl |= MSG_CTRUNC;
			}
		}
	}
	if (flags)
		*flags = fl;
	return r;
}

int scm_send_fd(int sk, int fd)
{
	char b = 'f';
	struct iovec iov = {.iov_base = &b, .iov_len = 1};
	return scm_send(sk, &iov, 1, &fd, 1) == 1 ? 0 : -1;
}

int scm_recv_fd_at(int sk, int at)
{
	char b;
	int fd = -1;
	size_t nf = 0;
	struct iovec iov = {.iov_base = &b, .iov_len = 1};
	ssize_t r;
	do
		r = scm_recv(sk, &iov, 1, &fd, 1, &nf, NULL);
	while (r < 0 && errno == EINTR);
	if (r >= 0 && (r != 1 || nf != 1))
		errno = EPROTO;
	int ret = r == 1 && nf == 1 && (fd == at || dup3(fd, at, O_CLOEXEC) >= 0) ? 0 : -1;
	if (nf == 1 && fd != at)
		close(fd);
	return ret;
}
