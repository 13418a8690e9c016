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
	char buf[8];
	int port;

	test_init(argc, argv);
	int lfd = lo_listen(AF_INET, &port);
	if (lfd < 0)
		fail("listener");
	int c = sockpeer_connect(AF_INET, port);
	if (c < 0 || write(c, "hi", 2) != 2)
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
