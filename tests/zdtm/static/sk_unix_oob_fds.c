/* An out-of-band byte sent in one sendmsg(MSG_OOB) with a file in flight: the data before it ("xy") carries
 * the file, and a read stops after a message with files as it stops at the mark, so the dump cannot tell
 * where the mark is: it must fail with one line and the test keep running, its queue unchanged ("xy" with
 * the file, then the mark, recv(MSG_OOB) 'z', then "w"). Before: the dump passed and 'z' came back as data.
 */
#include <sys/ioctl.h>
#include "sk_unix.h"

enum { A = 20, B = 21, P = 22 };

int main(int argc, char **argv)
{
	int p[2], fd, fds[8] = {-1}, n = 0, at = -1;
	char buf[16], c = 0;
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr a;
	} cb;
	struct iovec iov = {"xyz", 3};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cb.b, .msg_controllen = sizeof(cb.b)};

	test_init(argc, argv);
	sk_pair(SOCK_STREAM, A, B);
	if (pipe(p) || write(p[1], "pipe", 4) != 4)
		fail("pipe");
	sk_place(p[0], P, 0);
	close(p[1]);
	memset(&cb, 0, sizeof(cb));
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET, cm->cmsg_type = SCM_RIGHTS, cm->cmsg_len = CMSG_LEN(sizeof(int));
	fd = P;
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	if (sendmsg(A, &mh, MSG_OOB) != 3) {
		if (errno == EOPNOTSUPP)
			test_skip("no MSG_OOB on unix stream sockets");
		fail("sendmsg MSG_OOB");
	}
	if (sk_send(A, "w", 1))
		fail("send");
	close(P);
	test_daemon();
	test_waitsig();

	ssize_t r = sk_recv_fds(B, buf, sizeof(buf), fds, &n, NULL);
	if (r != 2 || memcmp(buf, "xy", 2) || n != 1 || read(fds[0], buf, sizeof(buf)) != 4 ||
	    memcmp(buf, "pipe", 4))
		fail("not \"xy\" with the pipe before the mark");
	if (ioctl(B, SIOCATMARK, &at) || at != 1 || recv(B, &c, 1, MSG_OOB | MSG_DONTWAIT) != 1 || c != 'z')
		fail("no OOB 'z' at the mark (at mark %d)", at);
	if (sk_expect(B, "w", 1) || !sk_empty(B))
		fail("not \"w\" after the mark");
	return test_pass();
}
