/* A UDP socket corked (UDP_CORK) with a datagram half built in it, as CRIU's socket_udp-corked: the data
 * sits in the socket's write queue, which cannot be put back. The dump must refuse it with one line and
 * leave the task running (before, the datagram was lost without a word). After the refused dump the
 * datagram is still there: uncorked, it reaches its receiver. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef SOL_UDP
#define SOL_UDP 17
#endif

#define MSG "corked"

int main(int argc, char **argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(a);
	char buf[32];
	int one = 1, zero = 0;
	test_init(argc, argv);
	int rcv = socket(AF_INET, SOCK_DGRAM, 0), snd = socket(AF_INET, SOCK_DGRAM, 0);
	if (rcv < 0 || snd < 0 || bind(rcv, (struct sockaddr *)&a, l) ||
	    getsockname(rcv, (struct sockaddr *)&a, &l) || connect(snd, (struct sockaddr *)&a, l))
		fail("sockets");
	if (setsockopt(snd, SOL_UDP, UDP_CORK, &one, sizeof(one)) || write(snd, MSG, 3) != 3 ||
	    write(snd, MSG + 3, sizeof(MSG) - 3) != sizeof(MSG) - 3)
		fail("corked write");

	test_daemon();
	test_waitsig();

	if (sk_getint(snd, SOL_UDP, UDP_CORK) != 1)
		fail("UDP_CORK lost");
	struct pollfd p = {.fd = rcv, .events = POLLIN};
	if (poll(&p, 1, 0) != 0)
		fail("the corked datagram went out before the cork was taken off");
	if (setsockopt(snd, SOL_UDP, UDP_CORK, &zero, sizeof(zero)))
		fail("uncork");
	if (poll(&p, 1, 5000) != 1 || recv(rcv, buf, sizeof(buf), 0) != sizeof(MSG) || strcmp(buf, MSG))
		fail("the corked datagram is lost");
	pass();
	return 0;
}
