/* A --console-socket receiver for runc: recvtty SOCKET OUTFILE. Listens on the unix socket SOCKET, takes the
 * pty master that runc (or crshim's orphan-pts-master through runc) sends with SCM_RIGHTS, and copies what
 * the container writes to its terminal into OUTFILE ("\r" dropped) until the terminal is gone. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int recv_fd(int c)
{
	char b[64];
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = b, .iov_len = sizeof(b)};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf)};
	if (recvmsg(c, &mh, 0) < 0)
		return -1;
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	return fd;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: recvtty SOCKET OUTFILE\n");
		return 2;
	}
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", argv[1]);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1)) {
		perror("recvtty: socket");
		return 1;
	}
	int out = open(argv[2], O_WRONLY | O_CREAT | O_APPEND, 0644);
	int c = accept(s, NULL, NULL);
	int m = c < 0 ? -1 : recv_fd(c);
	if (out < 0 || m < 0) {
		perror("recvtty: no terminal received");
		return 1;
	}
	close(c);
	close(s);
	char buf[4096], clean[4096];
	for (;;) {
		ssize_t n = read(m, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* EIO: no slave left */
		size_t k = 0;
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != '\r')
				clean[k++] = buf[i];
		if (write(out, clean, k) != (ssize_t)k)
			return 1;
	}
	return 0;
}
