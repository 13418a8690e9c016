/* Both ends of an established TCP connection in the task (like CRIU's socket-tcp tests): a listener, a
 * client connected to it and the accepted socket, with data queued in both directions. After restore
 * (--tcp-established) the listener still listens on its port, the pair is still connected to each other,
 * the queued data reads back exactly and new data flows both ways. The listener has SO_REUSEADDR, as servers
 * do: the accepted socket inherits it, and its restore must still bind beside the listener. */
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

#define LEN 70000

static int xread(int fd, char *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static char a[LEN], b[LEN], buf[LEN];
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)}, c0, c1;
	socklen_t l = sizeof(s);
	test_init(argc, argv);
	datagen(a, LEN, 1);
	datagen(b, LEN, 2);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&s, l) || listen(lfd, 4) ||
	    getsockname(lfd, (struct sockaddr *)&s, &l))
		fail("listener");
	int cfd = socket(AF_INET, SOCK_STREAM, 0);
	if (cfd < 0 || connect(cfd, (struct sockaddr *)&s, sizeof(s)))
		fail("connect");
	int afd = accept(lfd, NULL, NULL);
	if (afd < 0)
		fail("accept");
	if (write(cfd, a, LEN) != LEN || write(afd, b, LEN) != LEN)
		fail("write");
	l = sizeof(c0);
	getsockname(cfd, (struct sockaddr *)&c0, &l);

	test_daemon();
	test_waitsig();

	if (xread(afd, buf, LEN) || memcmp(buf, a, LEN))
		fail("client to server data lost");
	if (xread(cfd, buf, LEN) || memcmp(buf, b, LEN))
		fail("server to client data lost");
	l = sizeof(c1);
	if (getpeername(afd, (struct sockaddr *)&c1, &l) || c1.sin_port != c0.sin_port)
		fail("the accepted socket is not connected to the client");
	if (write(cfd, "more", 4) != 4 || xread(afd, buf, 4) || memcmp(buf, "more", 4) ||
	    write(afd, "back", 4) != 4 || xread(cfd, buf, 4) || memcmp(buf, "back", 4))
		fail("no new data over the connection");
	int c2 = socket(AF_INET, SOCK_STREAM, 0);
	if (c2 < 0 || connect(c2, (struct sockaddr *)&s, sizeof(s)) || accept(lfd, NULL, NULL) < 0)
		fail("the listener does not accept any more");
	pass();
	return 0;
}
