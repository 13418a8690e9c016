/* The receive buffer of a restored TCP connection has room for the queue put back on top of the size the
 * program set: a connection to the echo server outside the tree (lib/sockpeer.c) with SO_RCVBUF set (locked)
 * and 100000 echoed bytes left unread at the dump. After restore (--tcp-established) getsockopt(SO_RCVBUF)
 * reads at least 100000 more than before (the restore adds the memory the queue takes: packed tighter than it
 * came in, the queue would otherwise leave the socket more free space than it had, which it offered as window
 * and could not hold: see sk_inet_tcp_rcvbuf), the bytes are all there, in order, and more data flows. */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef PEER_START /* sk_inet_tcp_rcvbuf_inside: the echo server in the tree */
#define PEER_START(family) sockpeer_start(family, 0, NULL)
#endif
#ifndef RCVBUF_AUTO /* sk_inet_tcp_rcvbuf_auto: the size left to the kernel (not locked) */
#define RCVBUF_AUTO 0
#endif
#ifndef SO_BUF_LOCK
#define SO_BUF_LOCK 72
#endif
#define QUEUED 100000
#define RCVBUF (256 * 1024) /* under the default net.core.rmem_max: the kernel doubles it */

static int inq(int fd)
{
	int n = -1;
	ioctl(fd, FIONREAD, &n);
	return n;
}

int main(int argc, char **argv)
{
	uint64_t sent = 0, echoed = 0;
	int rb = RCVBUF;

	test_init(argc, argv);
	int port = PEER_START(AF_INET);
	int fd = port < 0 ? -1 : sockpeer_connect(AF_INET, port);
	if (fd < 0 || (!RCVBUF_AUTO && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb))))
		fail("connect to the peer");
	if (sockpeer_send(fd, &sent, QUEUED, 0) != QUEUED)
		fail("send");
	for (int i = 0; i < 60000 && inq(fd) < QUEUED; i++)
		usleep(1000);
	if (inq(fd) != QUEUED)
		fail("%d bytes queued, want %d", inq(fd), QUEUED);
	int rb0 = sk_getint(fd, SOL_SOCKET, SO_RCVBUF);
	struct stat st0, st1;
	if (fstat(fd, &st0))
		fail("fstat");

	test_daemon();
	test_waitsig();

	int rb1 = sk_getint(fd, SOL_SOCKET, SO_RCVBUF), lk = sk_getint(fd, SOL_SOCKET, SO_BUF_LOCK);
	test_msg("SO_RCVBUF %d, after restore %d (SO_BUF_LOCK %d)\n", rb0, rb1, lk);
	if (inq(fd) != QUEUED)
		fail("%d bytes queued after restore, want %d", inq(fd), QUEUED);
	/* a restored socket is a new one (its inode); not restored (checkpoint, nocr): the size the program
	 * set */
	if (fstat(fd, &st1))
		fail("fstat");
	if (RCVBUF_AUTO && lk)
		fail("SO_BUF_LOCK %d after restore: want 0 (SO_RCVBUF never set)", lk);
	if ((st1.st_ino == st0.st_ino || RCVBUF_AUTO) && rb1 != rb0)
		fail("SO_RCVBUF %d, was %d", rb1, rb0);
	if (!RCVBUF_AUTO && st1.st_ino != st0.st_ino && rb1 < rb0 + QUEUED)
		fail("SO_RCVBUF %d after restore: no room for the %d bytes put back on top of %d", rb1,
		     QUEUED, rb0);
	if (sockpeer_recv(fd, &echoed, QUEUED))
		fail("the queued echo");
	for (int i = 0; i < 10; i++)
		if (sockpeer_send(fd, &sent, 16384, 0) != 16384 || sockpeer_recv(fd, &echoed, 16384))
			fail("exchange after restore at byte %llu", (unsigned long long)echoed);
	if (sockpeer_finish(fd, sent, &echoed))
		fail("the peer did not get every byte once");
	pass();
	return 0;
}
