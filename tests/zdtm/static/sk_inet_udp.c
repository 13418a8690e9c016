/* UDP sockets (IPv4): two bound to loopback on random ports, one bound to the wildcard address, one never
 * bound. After restore the ports are the same, datagrams go between the bound ones both ways, the unbound
 * one can still send (and gets a port then), and the wildcard one receives on loopback. */
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

static int bound(uint32_t a, struct sockaddr_in *out)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(a)};
	socklen_t l = sizeof(s);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&s, l) || getsockname(fd, (struct sockaddr *)out, &l))
		fail("bound udp socket");
	return fd;
}

static void xfer(int from, int to, const struct sockaddr_in *dst, const char *what)
{
	struct sockaddr_in d = *dst;
	d.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (sendto(from, what, strlen(what), 0, (struct sockaddr *)&d, sizeof(d)) != (ssize_t)strlen(what))
		fail("%s: sendto", what);
	dgram_expect(to, what);
}

int main(int argc, char **argv)
{
	struct sockaddr_in a0[3], a1;
	socklen_t l;
	test_init(argc, argv);
	int fd[3];
	fd[0] = bound(INADDR_LOOPBACK, &a0[0]);
	fd[1] = bound(INADDR_LOOPBACK, &a0[1]);
	fd[2] = bound(INADDR_ANY, &a0[2]);
	int unb = socket(AF_INET, SOCK_DGRAM, 0);
	if (unb < 0)
		fail("socket");

	test_daemon();
	test_waitsig();

	for (int i = 0; i < 3; i++) {
		l = sizeof(a1);
		if (getsockname(fd[i], (struct sockaddr *)&a1, &l) || a1.sin_port != a0[i].sin_port ||
		    a1.sin_addr.s_addr != a0[i].sin_addr.s_addr)
			fail("socket %d: address changed", i);
	}
	l = sizeof(a1);
	if (getsockname(unb, (struct sockaddr *)&a1, &l) || a1.sin_port)
		fail("the unbound socket got bound");
	xfer(fd[0], fd[1], &a0[1], "zero to one");
	xfer(fd[1], fd[0], &a0[0], "one to zero");
	xfer(fd[0], fd[2], &a0[2], "zero to wildcard");
	xfer(unb, fd[0], &a0[0], "unbound to zero");
	pass();
	return 0;
}
