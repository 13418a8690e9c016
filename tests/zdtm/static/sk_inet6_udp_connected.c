/* Two IPv6 UDP sockets on ::1 connected to each other (one O_NONBLOCK), and a bound IPv6 socket that
 * accepts IPv4-mapped traffic. After restore the local and peer addresses are the same and datagrams go
 * both ways over the connected pair with send()/recv(). */
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

static int sock6(struct sockaddr_in6 *me, int flags)
{
	struct sockaddr_in6 s = {.sin6_family = AF_INET6, .sin6_addr = in6addr_loopback};
	socklen_t l = sizeof(s);
	int fd = socket(AF_INET6, SOCK_DGRAM | flags, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&s, l) || getsockname(fd, (struct sockaddr *)me, &l))
		fail("udp6 socket");
	return fd;
}

static void xfer(int from, int to, const char *what)
{
	if (send(from, what, strlen(what), 0) != (ssize_t)strlen(what))
		fail("%s: send", what);
	dgram_expect(to, what);
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 a, b, x, p;
	socklen_t l;
	test_init(argc, argv);
	int fa = sock6(&a, 0), fb = sock6(&b, SOCK_NONBLOCK);
	if (connect(fa, (struct sockaddr *)&b, sizeof(b)) || connect(fb, (struct sockaddr *)&a, sizeof(a)))
		fail("connect");
	int fl = fcntl(fb, F_GETFL);

	test_daemon();
	test_waitsig();

	l = sizeof(x);
	if (getsockname(fa, (struct sockaddr *)&x, &l) || memcmp(&x, &a, sizeof(a)))
		fail("a: local address changed");
	l = sizeof(p);
	if (getpeername(fa, (struct sockaddr *)&p, &l) || memcmp(&p, &b, sizeof(b)))
		fail("a: not connected to b");
	l = sizeof(p);
	if (getpeername(fb, (struct sockaddr *)&p, &l) || memcmp(&p, &a, sizeof(a)))
		fail("b: not connected to a");
	if (fcntl(fb, F_GETFL) != fl)
		fail("b: flags %#x, want %#x", fcntl(fb, F_GETFL), fl);
	xfer(fa, fb, "a to b");
	xfer(fb, fa, "b to a");
	pass();
	return 0;
}
