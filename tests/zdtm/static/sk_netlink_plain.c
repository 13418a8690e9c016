/* Plain netlink and packet sockets: a NETLINK_ROUTE socket bound (kernel-assigned port id) to the
 * RTMGRP_LINK group, an unbound NETLINK_ROUTE socket, and a packet socket bound to lo for an unused
 * ethertype. After restore the port id, the groups, the protocols and the binding are the same, and the
 * route socket still answers a link dump request. */
#include <arpa/inet.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "zdtmtst.h"

#define ETH_P_TEST 0x88b5 /* IEEE local experimental ethertype: nobody sends it */

int main(int argc, char **argv)
{
	struct sockaddr_nl nl = {.nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK}, nl0, nl1;
	struct sockaddr_ll ll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_TEST)}, ll0, ll1;
	uint32_t groups0[4] = {0}, groups1[4] = {0};
	socklen_t l;
	int one = 1;

	test_init(argc, argv);
	int rt = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	int rt2 = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_ROUTE);
	int pk = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_TEST));
	if (rt < 0 || rt2 < 0 || pk < 0)
		fail("socket");
	ll.sll_ifindex = (int)if_nametoindex("lo");
	if (bind(rt, (struct sockaddr *)&nl, sizeof(nl)) || bind(pk, (struct sockaddr *)&ll, sizeof(ll)))
		fail("bind");
	if (setsockopt(rt, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof(one)))
		fail("NETLINK_NO_ENOBUFS");
	l = sizeof(nl0);
	getsockname(rt, (struct sockaddr *)&nl0, &l);
	l = sizeof(groups0);
	getsockopt(rt, SOL_NETLINK, NETLINK_LIST_MEMBERSHIPS, groups0, &l);
	l = sizeof(ll0);
	getsockname(pk, (struct sockaddr *)&ll0, &l);

	test_daemon();
	test_waitsig();

	l = sizeof(nl1);
	if (getsockname(rt, (struct sockaddr *)&nl1, &l) || nl1.nl_pid != nl0.nl_pid ||
	    nl1.nl_groups != nl0.nl_groups)
		fail("netlink port id %u groups %#x, want %u %#x", nl1.nl_pid, nl1.nl_groups, nl0.nl_pid,
		     nl0.nl_groups);
	l = sizeof(groups1);
	if (getsockopt(rt, SOL_NETLINK, NETLINK_LIST_MEMBERSHIPS, groups1, &l) ||
	    memcmp(groups0, groups1, sizeof(groups0)))
		fail("netlink groups changed");
	if (sk_getint(rt, SOL_NETLINK, NETLINK_NO_ENOBUFS) != 1)
		fail("NETLINK_NO_ENOBUFS lost");
	if (sk_getint(rt, SOL_SOCKET, SO_PROTOCOL) != NETLINK_ROUTE ||
	    sk_getint(rt2, SOL_SOCKET, SO_TYPE) != SOCK_DGRAM)
		fail("netlink socket kinds changed");
	l = sizeof(nl1);
	if (getsockname(rt2, (struct sockaddr *)&nl1, &l) || nl1.nl_pid)
		fail("the unbound netlink socket is bound (port id %u)", nl1.nl_pid);
	l = sizeof(ll1);
	if (getsockname(pk, (struct sockaddr *)&ll1, &l) || ll1.sll_ifindex != ll0.sll_ifindex ||
	    ll1.sll_protocol != ll0.sll_protocol || sk_getint(pk, SOL_SOCKET, SO_TYPE) != SOCK_DGRAM)
		fail("packet socket binding changed (ifindex %d proto %#x)", ll1.sll_ifindex,
		     ntohs(ll1.sll_protocol));
	/* the route socket works: ask for the links, expect an RTM_NEWLINK */
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = {.h = {.nlmsg_len = sizeof(req),
		       .nlmsg_type = RTM_GETLINK,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		       .nlmsg_seq = 1},
		 .i = {.ifi_family = AF_UNSPEC}};
	static char buf[65536];
	if (send(rt, &req, sizeof(req), 0) != sizeof(req))
		fail("send RTM_GETLINK");
	ssize_t n = recv(rt, buf, sizeof(buf), 0);
	if (n < (ssize_t)sizeof(struct nlmsghdr) || ((struct nlmsghdr *)buf)->nlmsg_type != RTM_NEWLINK)
		fail("no link dump from the route socket");
	pass();
	return 0;
}
