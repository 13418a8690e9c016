/* Listening TCP sockets: one bound to loopback (SO_REUSEADDR, backlog 7, O_NONBLOCK), one bound to the
 * wildcard address (SO_REUSEPORT), and an unbound TCP socket. After restore each listens on the same
 * address and port with its options and flags, accepts a new connection and carries data. */
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

static int listener(int loopback, int opt, int backlog, int flags)
{
	struct sockaddr_storage ss;
	socklen_t l = ip_addr(FAMILY, 0, !loopback, &ss);
	int one = 1, fd = socket(FAMILY, SOCK_STREAM | flags, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, opt, &one, sizeof(one)))
		fail("socket");
#ifdef V6ONLY
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)))
		fail("IPV6_V6ONLY");
#endif
	if (bind(fd, (struct sockaddr *)&ss, l) || listen(fd, backlog))
		fail("bind/listen");
	return fd;
}

/* connect to the listener's port on loopback, accept, send both ways */
static void use(int lfd, const char *what)
{
	struct sockaddr_storage ss, me;
	socklen_t l = sizeof(me), al = lo_addr(FAMILY, 0, &ss);
	char buf[8];
	if (getsockname(lfd, (struct sockaddr *)&me, &l))
		fail("%s: getsockname", what);
	if (FAMILY == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = ((struct sockaddr_in *)&me)->sin_port;
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = ((struct sockaddr_in6 *)&me)->sin6_port;
	int c = socket(FAMILY, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&ss, al)) {
		fail("%s: connect", what);
		return;
	}
	int fl = fcntl(lfd, F_GETFL);
	fcntl(lfd, F_SETFL, fl & ~O_NONBLOCK);
	int a = accept(lfd, NULL, NULL);
	fcntl(lfd, F_SETFL, fl);
	if (a < 0 || write(c, "ping", 4) != 4 || read(a, buf, 4) != 4 || memcmp(buf, "ping", 4) ||
	    write(a, "pong", 4) != 4 || read(c, buf, 4) != 4 || memcmp(buf, "pong", 4))
		fail("%s: no data over the accepted connection", what);
	close(a);
	close(c);
}

int main(int argc, char **argv)
{
	struct sockaddr_storage a0[2], a1[2];
	socklen_t l;
	test_init(argc, argv);
	int fds[2] = {listener(1, SO_REUSEADDR, 7, SOCK_NONBLOCK), listener(0, SO_REUSEPORT, 128, 0)};
	int unbound = socket(FAMILY, SOCK_STREAM, 0);
	int fl[2];
	for (int i = 0; i < 2; i++) {
		l = sizeof(a0[i]);
		getsockname(fds[i], (struct sockaddr *)&a0[i], &l);
		fl[i] = fcntl(fds[i], F_GETFL);
	}

	test_daemon();
	test_waitsig();

	for (int i = 0; i < 2; i++) {
		l = sizeof(a1[i]);
		if (getsockname(fds[i], (struct sockaddr *)&a1[i], &l) || memcmp(&a0[i], &a1[i], l))
			fail("listener %d: address changed", i);
		if (sk_getint(fds[i], SOL_SOCKET, SO_ACCEPTCONN) != 1)
			fail("listener %d does not listen", i);
		if (fcntl(fds[i], F_GETFL) != fl[i])
			fail("listener %d: flags %#x, want %#x", i, fcntl(fds[i], F_GETFL), fl[i]);
	}
	if (sk_getint(fds[0], SOL_SOCKET, SO_REUSEADDR) != 1 ||
	    sk_getint(fds[1], SOL_SOCKET, SO_REUSEPORT) != 1)
		fail("SO_REUSEADDR/SO_REUSEPORT lost");
	if (sk_getint(fds[1], SOL_SOCKET, SO_REUSEADDR) != 0)
		fail("SO_REUSEADDR appeared");
#ifdef V6ONLY
	if (sk_getint(fds[0], IPPROTO_IPV6, IPV6_V6ONLY) != 1 ||
	    sk_getint(fds[1], IPPROTO_IPV6, IPV6_V6ONLY) != 1)
		fail("IPV6_V6ONLY lost");
#endif
	struct tcp_info ti;
	l = sizeof(ti);
	if (getsockopt(fds[0], IPPROTO_TCP, TCP_INFO, &ti, &l) || ti.tcpi_sacked != 7)
		fail("backlog %u, want 7", ti.tcpi_sacked);
	if (sk_getint(unbound, SOL_SOCKET, SO_TYPE) != SOCK_STREAM ||
	    sk_getint(unbound, SOL_SOCKET, SO_DOMAIN) != FAMILY)
		fail("the unbound socket is not a %d stream socket", FAMILY);
	l = sizeof(a1[0]);
	struct sockaddr_in *u = (struct sockaddr_in *)&a1[0];
	if (getsockname(unbound, (struct sockaddr *)&a1[0], &l) || u->sin_port)
		fail("the unbound socket is bound");
	use(fds[0], "loopback listener");
	use(fds[1], "wildcard listener");
	pass();
	return 0;
}
