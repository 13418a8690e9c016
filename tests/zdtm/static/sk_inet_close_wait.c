/* A TCP connection whose peer closed (CLOSE_WAIT), dumped without --tcp-established: its dump must fail with
 * one line naming the state and the option (fd_unsupported.sh --test sk_inet_close_wait), and the task keeps
 * running: after SIGTERM the socket still reads the data and the end of the stream. With --tcp-established
 * see sk_inet_tcp_half_closed. */
#include <netinet/in.h>
#include <netinet/tcp.h>
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
	int c = lfd < 0 ? -1 : sockpeer_connect(AF_INET, port);
	if (c < 0)
		fail("connect");
	int s = accept(lfd, NULL, NULL);
	if (s < 0 || write(s, "bye", 3) != 3)
		fail("accept");
	close(s);
	close(lfd);
	if (!tcp_wait_state(c, TCP_CLOSE_WAIT, 1000))
		fail("state %d, want CLOSE_WAIT", tcp_state(c));

	test_daemon();
	test_waitsig();

	if (read(c, buf, sizeof(buf)) != 3 || memcmp(buf, "bye", 3) || read(c, buf, sizeof(buf)) != 0)
		fail("data or end of stream lost");
	pass();
	return 0;
}
