/* TCP sockets in state CLOSE that are still named, connections of the test with itself over loopback:
 * one closed both ways with data not read (the side that closed last: LAST_ACK acked; the other went through
 * TIME_WAIT, its port given back), one reset by its peer (SO_LINGER 0) with data not read and ECONNRESET
 * pending, and one bound only. The ended ones are in no sock_diag table (or in the bind table only). After
 * restore each is in state CLOSE with the same local address and the same peer (SO_PEERNAME); the data not
 * read comes first, then the reset one gives ECONNRESET once, then each gives the end of the stream; writing
 * fails (EPIPE); the port of the one bound only is still taken. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef FAMILY
#define FAMILY AF_INET
#endif

enum { LAST, FIRST, RESET, BOUND, N };
static const char *const name[N] = {"closed last", "closed first", "reset", "bound only"};
static const char *const unread[N] = {"abc", "", "xyz", ""};

/* a connected pair over loopback: *c the client, the accepted end returned */
static int pair(int *c)
{
	struct sockaddr_storage ss;
	int port = 0, l = lo_listen(FAMILY, &port);
	unsigned len = lo_addr(FAMILY, port, &ss);
	*c = socket(FAMILY, SOCK_STREAM, 0);
	if (l < 0 || *c < 0 || connect(*c, (struct sockaddr *)&ss, len))
		fail("connect over loopback");
	int a = accept(l, NULL, NULL);
	if (a < 0)
		fail("accept");
	close(l);
	return a;
}

static void names(int i, int fd, struct sockaddr_storage *me, struct sockaddr_storage *peer)
{
	socklen_t l = sizeof(*me);
	memset(me, 0, sizeof(*me));
	memset(peer, 0, sizeof(*peer));
	if (getsockname(fd, (struct sockaddr *)me, &l))
		fail("%s: getsockname", name[i]);
	/* SO_PEERNAME (getpeername says ENOTCONN in state CLOSE) wants no more room than the name takes */
	l = FAMILY == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	int r = getsockopt(fd, SOL_SOCKET, SO_PEERNAME, peer, &l);
	if (i == BOUND ? r != -1 || errno != ENOTCONN : r != 0)
		fail("%s: SO_PEERNAME (%m)", name[i]);
}

int main(int argc, char **argv)
{
	struct sockaddr_storage me[N], peer[N], a, b;
	int fd[N], other, reset_peer;
	char buf[16];

	test_init(argc, argv);
	/* closed both ways: FIRST shuts down first (FIN_WAIT2, then TIME_WAIT on LAST's FIN), LAST after */
	fd[LAST] = pair(&fd[FIRST]);
	if (write(fd[FIRST], "abc", 3) != 3 || shutdown(fd[FIRST], SHUT_WR) ||
	    !tcp_wait_state(fd[LAST], TCP_CLOSE_WAIT, 5000) || shutdown(fd[LAST], SHUT_WR))
		fail("close both ways");
	/* reset: the peer closes with SO_LINGER 0 after sending xyz */
	fd[RESET] = pair(&reset_peer);
	struct linger lg = {1, 0};
	if (write(reset_peer, "xyz", 3) != 3 ||
	    setsockopt(reset_peer, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
		fail("reset");
	usleep(100000);
	close(reset_peer);
	/* bound only */
	int port = 0;
	fd[BOUND] = socket(FAMILY, SOCK_STREAM, 0);
	unsigned len = lo_addr(FAMILY, 0, &a);
	socklen_t sl = sizeof(b);
	if (fd[BOUND] < 0 || bind(fd[BOUND], (struct sockaddr *)&a, len) ||
	    getsockname(fd[BOUND], (struct sockaddr *)&b, &sl))
		fail("bind");
	port = ntohs(((struct sockaddr_in *)&b)->sin_port); /* same offset in sockaddr_in6 */
	for (int i = 0; i < N; i++) {
		if (!tcp_wait_state(fd[i], TCP_CLOSE, 5000))
			fail("%s: state %d, want CLOSE", name[i], tcp_state(fd[i]));
		names(i, fd[i], &me[i], &peer[i]);
	}

	test_daemon();
	test_waitsig();

	for (int i = 0; i < N; i++) {
		if (tcp_state(fd[i]) != TCP_CLOSE)
			fail("%s: state %d after restore", name[i], tcp_state(fd[i]));
		names(i, fd[i], &a, &b);
		if (memcmp(&a, &me[i], sizeof(a)))
			fail("%s: local address changed", name[i]);
		if (memcmp(&b, &peer[i], sizeof(b)))
			fail("%s: peer address changed", name[i]);
		if (i == BOUND)
			continue;
		size_t n = strlen(unread[i]);
		ssize_t r = n ? read(fd[i], buf, sizeof(buf)) : 0;
		if (r != (ssize_t)n || memcmp(buf, unread[i], n))
			fail("%s: the data not read: %zd bytes (%m)", name[i], r);
		if (i == RESET && (read(fd[i], buf, 1) != -1 || errno != ECONNRESET))
			fail("%s: no ECONNRESET pending (%m)", name[i]);
		if (read(fd[i], buf, 1) != 0)
			fail("%s: read does not give the end of the stream (%m)", name[i]);
		int err = sk_getint(fd[i], SOL_SOCKET, SO_ERROR);
		if (err)
			fail("%s: error %d pending after the reads", name[i], err);
		if (send(fd[i], "x", 1, MSG_NOSIGNAL) != -1 || errno != EPIPE)
			fail("%s: write does not fail with EPIPE (%m)", name[i]);
	}
	other = socket(FAMILY, SOCK_STREAM, 0);
	len = lo_addr(FAMILY, port, &a);
	if (other < 0 || bind(other, (struct sockaddr *)&a, len) != -1 || errno != EADDRINUSE)
		fail("bound only: port %d is free after restore (%m)", port);
	close(other);
	pass();
	return 0;
}
