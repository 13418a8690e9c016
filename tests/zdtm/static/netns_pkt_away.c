/* A packet socket (SOCK_DGRAM, ETH_P_IP) bound to lo of a second network namespace (the test unshares one,
 * sets its lo up, binds, and goes back to its own; the socket alone keeps that namespace), held by the test.
 * After C/R it is in a namespace not the test's (SIOCGSKNS), bound to lo as before, and sees a UDP datagram
 * sent to 127.0.0.1 in that namespace. Before: crshim made it in its holder's namespace, bound to the lo of
 * that one (no error, and nothing sent in its own namespace reached it). */
#include <net/if.h>
#include <sys/ioctl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include "ns_world.h"

#define MARK "netns_pkt_away datagram"

/* The datagram sent in the socket's namespace reaches it: 0 */
static int sees(int pk)
{
	int home = open("/proc/self/ns/net", O_RDONLY), u = -1, r = -1;
	struct sockaddr_in a = {
	    .sin_family = AF_INET, .sin_port = htons(9), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (home < 0 || !nsw_sk_ns(pk, 1))
		goto out;
	u = socket(AF_INET, SOCK_DGRAM, 0);
	if (u < 0 || sendto(u, MARK, sizeof(MARK), 0, (struct sockaddr *)&a, sizeof(a)) != sizeof(MARK))
		goto out;
	for (int i = 0; i < 50 && r; i++) { /* (other packets of that lo first, if any) */
		static char b[2048];
		struct pollfd p = {.fd = pk, .events = POLLIN};
		ssize_t n = poll(&p, 1, 2000) == 1 ? recv(pk, b, sizeof(b), MSG_DONTWAIT) : -1;
		if (n < 0)
			break;
		if (memmem(b, (size_t)n, MARK, sizeof(MARK)))
			r = 0;
	}
out:
	if (home >= 0 && setns(home, CLONE_NEWNET))
		r = -1;
	if (home >= 0)
		close(home);
	if (u >= 0)
		close(u);
	return r;
}

int main(int argc, char **argv)
{
	struct sockaddr_ll ll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP)}, l1;
	socklen_t l = sizeof(l1);
	test_init(argc, argv);
	int home = open("/proc/self/ns/net", O_RDONLY);
	if (home < 0 || unshare(CLONE_NEWNET) || nsw_sh("ip link set lo up"))
		fail("second network namespace");
	int pk = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));
	ll.sll_ifindex = (int)if_nametoindex("lo");
	if (pk < 0 || !ll.sll_ifindex || bind(pk, (struct sockaddr *)&ll, sizeof(ll)))
		fail("packet socket");
	if (setns(home, CLONE_NEWNET) || nsw_sk_ns(pk, 0) == nsw_ino("net"))
		fail("back home");
	if (sees(pk))
		fail("the datagram did not reach the packet socket before C/R");

	test_daemon();
	test_waitsig();

	if (!nsw_sk_ns(pk, 0) || nsw_sk_ns(pk, 0) == nsw_ino("net"))
		fail("the packet socket is in the test's namespace");
	if (getsockname(pk, (struct sockaddr *)&l1, &l) || l1.sll_ifindex != ll.sll_ifindex ||
	    l1.sll_protocol != ll.sll_protocol)
		fail("packet socket binding changed (ifindex %d proto %#x)", l1.sll_ifindex,
		     ntohs(l1.sll_protocol));
	if (sees(pk))
		fail("the datagram sent in its namespace did not reach the packet socket");
	pass();
	return 0;
}
