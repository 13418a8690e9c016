/* A unix dgram socketpair whose other end was closed after it sent two messages (one with a file in flight,
 * SCM_RIGHTS: a pipe's read end), and a dgram socket connected to a bound socket that was closed after it
 * sent a message back. After restore the messages wait in order with their boundaries, the file in flight
 * is the pipe, and sending on the sockets whose peer is gone fails (the pair's end with ECONNREFUSED; the
 * bound one comes back unconnected: ENOTCONN, the dump cannot see that it was connected). */
#include <stdio.h>
#include "sk_unix.h"

enum { A = 80, B = 81, C = 82, D = 83 };

int main(int argc, char **argv)
{
	struct sockaddr_un a;
	socklen_t al;
	int p[2], fd = -1;
	char buf[32] = "";

	test_init(argc, argv);
	sk_pair(SOCK_DGRAM, A, B);
	if (pipe(p) || write(p[1], "piped", 5) != 5)
		fail("pipe");
	if (sk_send(B, "first", 5) || sk_send_fds(B, "second", 6, &p[0], 1))
		fail("send");
	close(p[0]);
	close(p[1]);
	close(B);
	sk_place(socket(AF_UNIX, SOCK_DGRAM, 0), D, 0);
	al = sk_addr("peer_closed.sock", &a);
	if (bind(D, (struct sockaddr *)&a, al))
		fail("bind");
	sk_place(socket(AF_UNIX, SOCK_DGRAM, 0), C, 0);
	struct sockaddr_un ca;
	socklen_t cal = sk_addr("peer_closed.c.sock", &ca);
	if (bind(C, (struct sockaddr *)&ca, cal) || connect(C, (struct sockaddr *)&a, al) ||
	    connect(D, (struct sockaddr *)&ca, cal) || sk_send(D, "back", 4))
		fail("connect");
	close(D);
	unlink("peer_closed.sock");
	test_daemon();
	test_waitsig();

	if (recv(A, buf, sizeof(buf), MSG_DONTWAIT) != 5 || memcmp(buf, "first", 5))
		fail("first message lost");
	struct iovec iov = {buf, sizeof(buf)};
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr al;
	} cm;
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b, .msg_controllen = sizeof(cm.b)};
	if (recvmsg(A, &mh, MSG_DONTWAIT) != 6 || memcmp(buf, "second", 6))
		fail("second message lost");
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	if (fd < 0 || read(fd, buf, 5) != 5 || memcmp(buf, "piped", 5))
		fail("the pipe in flight is lost");
	if (recv(C, buf, sizeof(buf), MSG_DONTWAIT) != 4 || memcmp(buf, "back", 4))
		fail("the message of the closed bound peer is lost");
	/* (a send to a closed peer purges the queue: only now) */
	int f1 = send(A, "x", 1, MSG_DONTWAIT) < 0 ? errno : 0;
	int f2 = send(C, "x", 1, MSG_DONTWAIT) < 0 ? errno : 0;
	if (f1 != ECONNREFUSED || !f2)
		fail("send on the sockets whose peer is gone: errno %d %d, want ECONNREFUSED and an error",
		     f1, f2);
	pass();
	return 0;
}
