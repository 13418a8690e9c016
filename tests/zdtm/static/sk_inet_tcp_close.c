/* --tcp-close: an established TCP connection (to lib/sockpeer.c outside the tree, echo left unread) and a
 * half-closed one (CLOSE_WAIT: lib/sockhalf.c sent data and its FIN). A dump with --tcp-close does not
 * checkpoint them; after a restore with --tcp-close each fd is still a TCP socket of the same family, in
 * state CLOSE, with no peer: reads give the end of the stream, writes fail with EPIPE. Not restored
 * (checkpoint mode: the dump left the task running; we know by our start time) both connections must be
 * untouched: the peer gets every byte and echoes it, the half-closed one still reads its data and EOF. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef FAMILY
#define FAMILY AF_INET
#endif
#define NSEND 3000 /* the half-closing peer's data */

/* Field 22 of /proc/self/stat: a restored process is a new one and starts later. */
static unsigned long long start_time(void)
{
	char buf[1024];
	unsigned long long t = 0;
	FILE *f = fopen("/proc/self/stat", "r");
	if (!f) {
		fail("open /proc/self/stat");
		return 0;
	}
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	char *p = strrchr(buf, ')');
	if (!p ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   &t) != 1)
		fail("parse /proc/self/stat");
	return t;
}

static int connected(int fd)
{
	struct timeval tv = {60, 0};
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		fail("connect to a peer");
	return fd;
}

/* Restored with --tcp-close: a closed TCP socket of our family. */
static void check_closed(int fd, const char *what)
{
	struct sockaddr_storage a;
	socklen_t l = sizeof(a);
	int v = 0;
	socklen_t vl = sizeof(v);
	char c;
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &vl) || v != FAMILY)
		fail("%s: not a socket of family %d any more", what, FAMILY);
	if (tcp_state(fd) != TCP_CLOSE)
		fail("%s: state %d, want CLOSE", what, tcp_state(fd));
	if (getpeername(fd, (struct sockaddr *)&a, &l) != -1 || errno != ENOTCONN)
		fail("%s: still has a peer", what);
	if (read(fd, &c, 1) != 0)
		fail("%s: read does not give the end of the stream", what);
	if (send(fd, "x", 1, MSG_NOSIGNAL | MSG_DONTWAIT) != -1 || errno != EPIPE)
		fail("%s: write does not fail with EPIPE", what);
}

int main(int argc, char **argv)
{
	uint64_t sent = 0, echoed = 0, got = 0;
	char c;

	test_init(argc, argv);
	unlink("close.go");
	int port = sockpeer_start(FAMILY, 0, NULL);
	int est = connected(port < 0 ? -1 : sockpeer_connect(FAMILY, port));
	port = sockhalf_start(FAMILY, NSEND, NULL, "close.go", "close.res");
	int half = connected(port < 0 ? -1 : sockpeer_connect(FAMILY, port));
	if (sockpeer_send(est, &sent, 5000, 0) != 5000 || sockpeer_recv(est, &echoed, 1000))
		fail("exchange data");
	if (!tcp_wait_state(half, TCP_CLOSE_WAIT, 5000))
		fail("state %d, want CLOSE_WAIT", tcp_state(half));
	unsigned long long t0 = start_time();

	test_daemon();
	test_waitsig();

	if (start_time() != t0) {
		check_closed(est, "established connection");
		check_closed(half, "CLOSE_WAIT connection");
	} else {
		test_msg("not restored: the connections must be untouched\n");
		if (tcp_state(est) != TCP_ESTABLISHED || sockpeer_finish(est, sent, &echoed))
			fail("the established connection lost data (sent %llu, echo %llu)",
			     (unsigned long long)sent, (unsigned long long)echoed);
		if (tcp_state(half) != TCP_CLOSE_WAIT || sockpeer_recv(half, &got, NSEND) ||
		    read(half, &c, 1) != 0)
			fail("the CLOSE_WAIT connection lost data (%llu of %d) or its end",
			     (unsigned long long)got, NSEND);
	}
	close(open("close.go", O_CREAT | O_WRONLY, 0600)); /* the half-closing peer may go */
	pass();
	return 0;
}
