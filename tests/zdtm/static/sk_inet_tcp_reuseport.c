/* Two TCP listeners sharing a port through SO_REUSEPORT, the first of which turned the option off after it
 * listened (the kernel checks the flags of both at bind and listen: restored as saved, the second one's bind
 * failed, "Address already in use"). After restore both listen on the same port, the first without
 * SO_REUSEPORT, the second with it, and connections to the port are accepted by them. */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef FAMILY
#define FAMILY AF_INET
#endif

static int listener(int port)
{
	struct sockaddr_storage ss;
	int on = 1, fd = socket(FAMILY, SOCK_STREAM | SOCK_NONBLOCK, 0);
	unsigned len = lo_addr(FAMILY, port, &ss);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on)) ||
	    bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 16))
		fail("listener on port %d", port);
	return fd;
}

static int port_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &l))
		return -1;
	return ntohs(((struct sockaddr_in *)&ss)->sin_port); /* same offset in sockaddr_in6 */
}

int main(int argc, char **argv)
{
	int off = 0, fd[2];

	test_init(argc, argv);
	fd[0] = listener(0);
	int port = port_of(fd[0]);
	fd[1] = listener(port);
	if (setsockopt(fd[0], SOL_SOCKET, SO_REUSEPORT, &off, sizeof(off)))
		fail("SO_REUSEPORT off");

	test_daemon();
	test_waitsig();

	for (int i = 0; i < 2; i++) {
		if (port_of(fd[i]) != port)
			fail("listener %d: port %d, want %d", i, port_of(fd[i]), port);
		if (sk_getint(fd[i], SOL_SOCKET, SO_ACCEPTCONN) != 1)
			fail("listener %d: not listening", i);
		if (sk_getint(fd[i], SOL_SOCKET, SO_REUSEPORT) != i)
			fail("listener %d: SO_REUSEPORT %d, want %d", i,
			     sk_getint(fd[i], SOL_SOCKET, SO_REUSEPORT), i);
	}
	/* connections reach the port and are accepted by one of the two */
	for (int k = 0; k < 8; k++) {
		struct sockaddr_storage ss;
		unsigned len = lo_addr(FAMILY, port, &ss);
		int c = socket(FAMILY, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (struct sockaddr *)&ss, len))
			fail("connect %d to port %d (%m)", k, port);
		struct pollfd p[2] = {{.fd = fd[0], .events = POLLIN}, {.fd = fd[1], .events = POLLIN}};
		if (poll(p, 2, 5000) < 1)
			fail("connection %d not accepted", k);
		for (int i = 0; i < 2; i++) {
			int a = (p[i].revents & POLLIN) ? accept(fd[i], NULL, NULL) : -1;
			if (a >= 0)
				close(a);
		}
		close(c);
	}
	pass();
	return 0;
}
