/* A UDP socket with a datagram half built by send(MSG_MORE), without UDP_CORK: the data sits in the socket's
 * write queue, which cannot be put back. The dump must refuse it with one line and leave the task running
 * (before, the datagram was lost without a word, as sk_udp_corked's was). After the refused dump the datagram
 * is still there: a last send without MSG_MORE completes it and it reaches its receiver whole. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

#define MSG "more-more-done"

int main(int argc, char **argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(a);
	char buf[32];
	test_init(argc, argv);
	int rcv = socket(AF_INET, SOCK_DGRAM, 0), snd = socket(AF_INET, SOCK_DGRAM, 0);
	if (rcv < 0 || snd < 0 || bind(rcv, (struct sockaddr *)&a, l) ||
	    getsockname(rcv, (struct sockaddr *)&a, &l) || connect(snd, (struct sockaddr *)&a, l))
		fail("sockets");
	if (send(snd, MSG, 5, MSG_MORE) != 5 || send(snd, MSG + 5, 5, MSG_MORE) != 5)
		fail("send with MSG_MORE");

	test_daemon();
	test_waitsig();

	struct pollfd p = {.fd = rcv, .events = POLLIN};
	if (poll(&p, 1, 0) != 0)
		fail("the datagram went out before it was complete");
	if (send(snd, MSG + 10, sizeof(MSG) - 10, 0) != sizeof(MSG) - 10)
		fail("the last part");
	if (poll(&p, 1, 5000) != 1 || recv(rcv, buf, sizeof(buf), 0) != sizeof(MSG) || strcmp(buf, MSG))
		fail("the datagram is lost or not whole");
	pass();
	return 0;
}
