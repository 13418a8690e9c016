/* The interface a UDP socket sends multicast on, set by index only (IP_MULTICAST_IF with a struct ip_mreqn:
 * imr_ifindex 1, lo, imr_address 0), which getsockopt reads back as address 0. After C/R a datagram the
 * socket sends to 239.7.27.7 reaches a member of the group on lo (a socket in the same network namespace), as
 * before; a second socket, set by address (127.0.0.1), too; and a third, set by index and never bound nor
 * used before C/R (in no table of the kernel's UDP sockets: crshim reads the index from the process's files).
 * The test runs in a network namespace of its own (lo up, no route for multicast: a datagram without the
 * interface fails with ENETUNREACH). Before: the index was lost without a word and the send failed after the
 * restore. */
#include <sys/ioctl.h>
#include "mcast.h"

/* tx sends a datagram to the group on port; rx, a member, reads it: 0 */
static int sends(int tx, int rx, int port)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	char buf[8] = "";
	inet_pton(AF_INET, "239.7.27.7", &to.sin_addr);
	if (sendto(tx, "mcast", 5, 0, (struct sockaddr *)&to, sizeof(to)) != 5)
		return -1;
	return read_exact(rx, buf, 5, 3000) || memcmp(buf, "mcast", 5) ? -1 : 0;
}

int main(int argc, char **argv)
{
	int sk[2], fam[2] = {AF_INET, AF_INET6};
	static const struct grp g = {0, "239.7.27.7", NULL, MCAST_EXCLUDE};
	test_init(argc, argv);
	/* mode user: the host's network namespace, whose routes the test does not know; the dump must say
	 * that it cannot read the index (no CAP_BPF: .desc user-dump-notice), not refuse the sockets */
	bool own = mc_own_netns();
	mc_socks(sk, fam);
	mc_join(sk[0], AF_INET, &g);
	int port = mc_port(sk[0]);
	int byidx = socket(AF_INET, SOCK_DGRAM, 0), byaddr = socket(AF_INET, SOCK_DGRAM, 0);
	int unbound = socket(AF_INET, SOCK_DGRAM, 0);
	struct ip_mreqn mi = {.imr_ifindex = 1};
	struct in_addr lo = {.s_addr = htonl(INADDR_LOOPBACK)};
	if (byidx < 0 || byaddr < 0 || unbound < 0 ||
	    setsockopt(byidx, IPPROTO_IP, IP_MULTICAST_IF, &mi, sizeof(mi)) ||
	    setsockopt(unbound, IPPROTO_IP, IP_MULTICAST_IF, &mi, sizeof(mi)) ||
	    setsockopt(byaddr, IPPROTO_IP, IP_MULTICAST_IF, &lo, sizeof(lo)))
		fail("IP_MULTICAST_IF");
	if (own && (sends(byidx, sk[0], port) || sends(byaddr, sk[0], port)))
		fail("multicast before C/R");
	test_daemon();
	test_waitsig();
	if (!own) {
		pass();
		return 0;
	}

	if (sends(byidx, sk[0], port))
		fail("IP_MULTICAST_IF set by index: no datagram through lo");
	if (sends(byaddr, sk[0], port))
		fail("IP_MULTICAST_IF set by address: no datagram through lo");
	if (sends(unbound, sk[0], port))
		fail("IP_MULTICAST_IF set by index on a socket not bound before C/R: no datagram through lo");
	pass();
	return 0;
}
