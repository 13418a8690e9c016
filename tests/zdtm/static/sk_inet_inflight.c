/* A TCP listener with a connection not yet accepted (the client sent "hi" and closed). Its dump must fail
 * with one line naming the socket and the count (fd_unsupported.sh --test sk_inet_inflight), without
 * --skip-in-flight, and the task keeps running: after SIGTERM the pending connection is accepted with its
 * data. */
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(a);
	char buf[8];

	test_init(argc, argv);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || c < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 4) ||
	    getsockname(lfd, (struct sockaddr *)&a, &l))
		fail("listener");
	if (connect(c, (struct sockaddr *)&a, sizeof(a)) || write(c, "hi", 2) != 2)
		fail("connect");
	close(c); /* the connection stays in the accept queue */

	test_daemon();
	test_waitsig();

	int s = accept(lfd, NULL, NULL);
	if (s < 0 || read(s, buf, sizeof(buf)) != 2 || memcmp(buf, "hi", 2))
		fail("the pending connection or its data is lost");
	pass();
	return 0;
}
