/* Dumped with --skip-in-flight: a TCP listener (backlog 0) with a connection not yet accepted (the client
 * closed), which fills its queue, and a non-blocking connect to it that stays in SYN_SENT (its SYN is
 * dropped while the queue is full). After restore the listener listens on the same address with the same
 * backlog, and a new connection is accepted and carries data (the pending one was dropped; with
 * --leave-running it is still there and is accepted first); the connecting socket is still a TCP socket. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef FAMILY
#define FAMILY AF_INET
#endif

int main(int argc, char **argv)
{
	struct sockaddr_storage a, a1, me, peer;
	socklen_t l = lo_addr(FAMILY, 0, &a), l1;
	char buf[8];
	int v;

	test_init(argc, argv);
	int lfd = socket(FAMILY, SOCK_STREAM, 0), c = socket(FAMILY, SOCK_STREAM, 0);
	if (lfd < 0 || c < 0 || bind(lfd, (struct sockaddr *)&a, l) || listen(lfd, 0) ||
	    getsockname(lfd, (struct sockaddr *)&a, &l))
		fail("listener");
	if (connect(c, (struct sockaddr *)&a, l) || write(c, "old", 3) != 3)
		fail("connect");
	close(c); /* stays in the accept queue, which is now full */
	int syn = socket(FAMILY, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (syn < 0 || (connect(syn, (struct sockaddr *)&a, l) && errno != EINPROGRESS))
		fail("non-blocking connect");
	if (!tcp_wait_state(syn, TCP_SYN_SENT, 200))
		fail("the connecting socket is in state %d, not SYN_SENT", tcp_state(syn));

	test_daemon();
	test_waitsig();

	l1 = sizeof(a1);
	socklen_t vl = sizeof(v);
	if (getsockname(lfd, (struct sockaddr *)&a1, &l1) || l1 != l || memcmp(&a, &a1, l))
		fail("the listener's address changed");
	if (getsockopt(lfd, SOL_SOCKET, SO_ACCEPTCONN, &v, &vl) || v != 1)
		fail("the listener does not listen");
	vl = sizeof(v);
	if (getsockopt(syn, SOL_SOCKET, SO_TYPE, &v, &vl) || v != SOCK_STREAM || tcp_state(syn) < 0)
		fail("the connecting socket is not a TCP socket");
	/* what is left in the queue (nothing after a restore) */
	fcntl(lfd, F_SETFL, O_NONBLOCK);
	int s;
	while ((s = accept(lfd, NULL, NULL)) >= 0)
		close(s);
	fcntl(lfd, F_SETFL, 0);
	c = socket(FAMILY, SOCK_STREAM, 0);
	l1 = sizeof(me);
	if (c < 0 || connect(c, (struct sockaddr *)&a, l) || getsockname(c, (struct sockaddr *)&me, &l1) ||
	    write(c, "new", 3) != 3)
		fail("connect after restore");
	for (;;) { /* the connecting socket may get in first (a SYN sent again) */
		socklen_t pl = sizeof(peer);
		s = accept(lfd, (struct sockaddr *)&peer, &pl);
		if (s < 0) {
			fail("accept after restore");
			break;
		}
		if (pl == l1 && !memcmp(&peer, &me, pl))
			break;
		close(s);
	}
	if (s >= 0 && (read(s, buf, sizeof(buf)) != 3 || memcmp(buf, "new", 3)))
		fail("no data over the new connection");
	pass();
	return 0;
}
