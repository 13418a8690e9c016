/* A TCP socket still connecting (SYN_SENT): its peer, a listener outside the tree (lib/sockpeer.c
 * sockpeer_outside) with a backlog of 0, has a connection not yet accepted, so the socket's SYNs are dropped.
 * Dumped with --tcp-established (before: the dump failed, "connection in flight"), it is restored connecting
 * to the same peer from the same local address (SO_PEERNAME: getpeername says ENOTCONN while connecting);
 * once the peer accepts (go file), the connection is made (a SYN sent again gets through) and carries data
 * both ways. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef FAMILY
#define FAMILY AF_INET
#endif

/* the peer: once the go file is there, accept; echo one byte on the connection that has one, then go */
static void peer(int lfd)
{
	struct stat st;
	while (stat("syn.go", &st))
		usleep(10000);
	for (;;) {
		int a = accept(lfd, NULL, NULL);
		char c;
		if (a < 0)
			_exit(1);
		if (read(a, &c, 1) == 1)
			_exit(write(a, &c, 1) == 1 ? 0 : 1);
		close(a); /* the first one, closed */
	}
}

static void names(int fd, struct sockaddr_storage *me, struct sockaddr_storage *to)
{
	socklen_t l = sizeof(*me);
	memset(me, 0, sizeof(*me));
	memset(to, 0, sizeof(*to));
	if (getsockname(fd, (struct sockaddr *)me, &l))
		fail("getsockname");
	l = FAMILY == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERNAME, to, &l))
		fail("SO_PEERNAME (%m)");
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss, me, to, a, b;
	socklen_t sl = sizeof(ss);
	char c = 'x';

	test_init(argc, argv);
	unlink("syn.go");
	int lfd = socket(FAMILY, SOCK_STREAM, 0);
	unsigned len = lo_addr(FAMILY, 0, &ss);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&ss, len) || listen(lfd, 0) ||
	    getsockname(lfd, (struct sockaddr *)&ss, &sl))
		fail("listener");
	int r = sockpeer_outside(lfd);
	if (r == 0)
		peer(lfd);
	close(lfd);
	/* the first connection fills the peer's queue, and is closed: it stays there */
	int first = socket(FAMILY, SOCK_STREAM, 0);
	if (r < 0 || first < 0 || connect(first, (struct sockaddr *)&ss, sl))
		fail("first connection");
	close(first);
	int fd = socket(FAMILY, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, sl) != -1 || errno != EINPROGRESS)
		fail("connect (%m)");
	usleep(200000);
	if (tcp_state(fd) != TCP_SYN_SENT)
		fail("state %d, want SYN_SENT", tcp_state(fd));
	names(fd, &me, &to);

	test_daemon();
	test_waitsig();

	if (tcp_state(fd) != TCP_SYN_SENT)
		fail("state %d after restore, want SYN_SENT", tcp_state(fd));
	names(fd, &a, &b);
	if (memcmp(&a, &me, sizeof(a)) || memcmp(&b, &to, sizeof(b)))
		fail("addresses changed");
	int g = open("syn.go", O_CREAT | O_WRONLY, 0600);
	close(g);
	if (!tcp_wait_state(fd, TCP_ESTABLISHED, 20000))
		fail("not connected once the peer accepts: state %d", tcp_state(fd));
	struct pollfd p = {.fd = fd, .events = POLLIN};
	if (write(fd, &c, 1) != 1 || poll(&p, 1, 5000) != 1 || read(fd, &c, 1) != 1 || c != 'x')
		fail("data over the connection (%m)");
	pass();
	return 0;
}
