/* SO_DEBUG on (and SO_PREFER_BUSY_POLL on, where the kernel has busy polling) on a TCP listener and a UDP
 * socket: options only CAP_NET_ADMIN over the host sets (the kernel's sockopt_capable). After C/R each reads
 * 1 again. In a user namespace (modes uns, cuns) or as a user the test cannot set them: the host agent does
 * (sk_priv_force.h). Before, a tree born in its user namespace (mode cuns) failed its restore (SO_DEBUG:
 * EACCES) after the dump had killed it, and so did a user's restore (mode user), which must refuse at dump.
 */
#include <netinet/in.h>
#include <stdbool.h>
#include "zdtmtst.h"
#include "sk_priv_force.h"

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif

int main(int argc, char **argv)
{
	int tool = sk_force_tool(argc, argv);
	if (tool >= 0)
		return tool;
	test_init(argc, argv);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int sk[2] = {socket(AF_INET, SOCK_STREAM, 0), socket(AF_INET, SOCK_DGRAM, 0)};
	if (sk[0] < 0 || sk[1] < 0 || bind(sk[0], (struct sockaddr *)&a, sizeof(a)) || listen(sk[0], 4) ||
	    bind(sk[1], (struct sockaddr *)&a, sizeof(a)))
		fail("sockets");
	/* busy polling: a kernel without it (CONFIG_NET_RX_BUSY_POLL) does not know the option */
	int v = 0;
	socklen_t vl = sizeof(v);
	bool busy = !getsockopt(sk[0], SOL_SOCKET, SO_PREFER_BUSY_POLL, &v, &vl);
	for (int i = 0; i < 2; i++)
		if (sk_force(sk[i], SOL_SOCKET, SO_DEBUG, 1) ||
		    (busy && sk_force(sk[i], SOL_SOCKET, SO_PREFER_BUSY_POLL, 1)))
			fail("socket %d: SO_DEBUG, SO_PREFER_BUSY_POLL", i);
	for (int i = 0; i < 2; i++)
		if (sk_getint(sk[i], SOL_SOCKET, SO_DEBUG) != 1 ||
		    (busy && sk_getint(sk[i], SOL_SOCKET, SO_PREFER_BUSY_POLL) != 1))
			fail("socket %d: not set", i);

	test_daemon();
	test_waitsig();

	for (int i = 0; i < 2; i++) {
		if (sk_getint(sk[i], SOL_SOCKET, SO_DEBUG) != 1)
			fail("socket %d: SO_DEBUG %d after restore", i,
			     sk_getint(sk[i], SOL_SOCKET, SO_DEBUG));
		if (busy && sk_getint(sk[i], SOL_SOCKET, SO_PREFER_BUSY_POLL) != 1)
			fail("socket %d: SO_PREFER_BUSY_POLL %d after restore", i,
			     sk_getint(sk[i], SOL_SOCKET, SO_PREFER_BUSY_POLL));
	}
	pass();
	return 0;
}
