/* A unix socket with a file descriptor in flight (SCM_RIGHTS: fd 5 of a pipe sent, not received yet): the
 * dump must fail with one line naming the fd (12), its kind and the task, and the task keeps running with
 * its state (the fd still arrives). Run by tests/zdtm/fd_unsupported.sh (skipped by the C/R modes). */
#include "sk_unix.h"

enum { A = 11, B = 12 };

int main(int argc, char **argv)
{
	int p[2];
	char buf[8];
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr a;
	} cb;
	struct iovec iov = {"fd", 2};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cb.b, .msg_controllen = sizeof(cb.b)};

	test_init(argc, argv);
	sk_pair(SOCK_STREAM, A, B);
	if (pipe(p))
		fail("pipe");
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &p[0], sizeof(int));
	if (sendmsg(A, &mh, 0) != 2 || write(p[1], "x", 1) != 1)
		fail("sendmsg");
	close(p[0]);
	test_daemon();
	test_waitsig();

	iov = (struct iovec){buf, sizeof(buf)};
	mh = (struct msghdr){
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cb.b, .msg_controllen = sizeof(cb.b)};
	int fd = -1;
	if (recvmsg(B, &mh, MSG_DONTWAIT) != 2 || !(cm = CMSG_FIRSTHDR(&mh)) || cm->cmsg_type != SCM_RIGHTS)
		fail("the fd in flight is lost");
	else
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (fd < 0 || read(fd, buf, 1) != 1 || buf[0] != 'x')
		fail("the fd received is not the pipe");
	if (!test_failures)
		pass();
	return 0;
}
