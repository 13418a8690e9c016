/* An established TCP connection to a server outside the tree (lib/sockpeer.c), with data queued both
 * ways at the dump: echoed bytes not read yet (receive queue), and bytes the paused server does not take
 * (send queue, partly unsent). After restore (--tcp-established) the addresses and options are the same,
 * every byte arrives once and in order both ways (the server checks what it gets, the test checks the
 * echo), and the connection carries new data; no reset. */
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef FAMILY
#define FAMILY AF_INET
#endif
#define GOFILE "sockpeer.go"
/* the server stops reading at PAUSE: 100000 bytes exchanged, then PAUSE - 100000 echoed bytes left unread in
 * our receive queue, few enough to fit its default buffer whatever the overhead per segment (100000 did not:
 * under load the queue stopped at 95744 bytes, its window closed, before any dump) */
#define PAUSE 160000

static int inq(int fd)
{
	int n = -1;
	ioctl(fd, FIONREAD, &n);
	return n;
}

static void wait_inq(int fd, int want)
{
	for (int i = 0; i < 60000 && inq(fd) < want;
	     i++) /* up to a minute: the peer may be slow under load */
		usleep(1000);
	if (inq(fd) != want)
		fail("receive queue holds %d bytes, want %d", inq(fd), want);
}

int main(int argc, char **argv)
{
	struct sockaddr_storage me0, peer0, me1, peer1;
	socklen_t l;
	uint64_t sent = 0, echoed = 0;
	int one = 1, v = 0;
	struct timeval tv = {60, 0};

	test_init(argc, argv);
	unlink(GOFILE);
	int port = sockpeer_start(FAMILY, PAUSE, GOFILE);
	if (port < 0)
		fail("start the peer");
	int fd = sockpeer_connect(FAMILY, port);
	if (fd < 0)
		fail("connect to the peer");
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		fail("setsockopt");
	/* both ways before the dump */
	if (sockpeer_send(fd, &sent, 100000, 0) != 100000 || sockpeer_recv(fd, &echoed, 100000))
		fail("exchange before the dump");
	/* echo left in the receive queue */
	if (sockpeer_send(fd, &sent, PAUSE - 100000, 0) != PAUSE - 100000)
		fail("send");
	wait_inq(fd, PAUSE - 100000);
	/* the server stops reading at PAUSE: fill its receive queue and our send queue */
	while (sockpeer_send(fd, &sent, 65536, MSG_DONTWAIT) > 0)
		;
	usleep(100000);
	while (sockpeer_send(fd, &sent, 65536, MSG_DONTWAIT) > 0)
		;
	int outq = -1;
	ioctl(fd, TIOCOUTQ, &outq);
	test_msg("sent %llu, echoed %llu, %d bytes in the send queue\n", (unsigned long long)sent,
		 (unsigned long long)echoed, outq);
	l = sizeof(me0);
	getsockname(fd, (struct sockaddr *)&me0, &l);
	l = sizeof(peer0);
	getpeername(fd, (struct sockaddr *)&peer0, &l);

	test_daemon();
	test_waitsig();

	l = sizeof(me1);
	if (getsockname(fd, (struct sockaddr *)&me1, &l) || memcmp(&me0, &me1, l))
		fail("local address changed");
	l = sizeof(peer1);
	if (getpeername(fd, (struct sockaddr *)&peer1, &l) || memcmp(&peer0, &peer1, l))
		fail("peer address changed");
	l = sizeof(v);
	if (getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, &l) || !v)
		fail("TCP_NODELAY lost");
	if (inq(fd) < PAUSE - 100000)
		fail("receive queue lost: %d bytes", inq(fd));
	int g = open(GOFILE, O_CREAT | O_WRONLY, 0644);
	if (g < 0)
		fail("create %s", GOFILE);
	close(g);
	/* all echo outstanding, then more data both ways */
	if (sockpeer_recv(fd, &echoed, (size_t)(sent - echoed)))
		fail("echo after restore at byte %llu", (unsigned long long)echoed);
	for (int i = 0; i < 20; i++)
		if (sockpeer_send(fd, &sent, 16384, 0) != 16384 || sockpeer_recv(fd, &echoed, 16384))
			fail("exchange after restore at byte %llu", (unsigned long long)echoed);
	if (sockpeer_finish(fd, sent, &echoed))
		fail("the peer did not get every byte once");
	test_msg("%llu bytes each way\n", (unsigned long long)sent);
	pass();
	return 0;
}
