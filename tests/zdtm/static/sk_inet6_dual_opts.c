/* IPv4-level options and IPv4 multicast groups of IPv6 dual-stack sockets (IPV6_V6ONLY off), which carry
 * them for their IPv4 traffic (v4-mapped peers): a UDP receiver with the cmsg options (IP_PKTINFO,
 * IP_RECVTOS, IP_RECVTTL, ...), IP_MULTICAST_ALL, IP_MINTTL and two IPv4 groups on lo (IP_ADD_MEMBERSHIP
 * 239.6.6.6, a source-specific join of 232.6.6.6 from 127.0.0.1); a UDP sender with IP_MULTICAST_IF set by
 * index only (ip_mreqn: lo, address 0), IP_MULTICAST_TTL 9, IP_TOS 0x28, IP_TTL 37, IP_UNICAST_IF,
 * IP_LOCAL_PORT_RANGE; a UDP socket with IP_MULTICAST_IF set by address and IP_MULTICAST_LOOP 0; a TCP
 * listener with IP_TOS, IP_TTL 44, IP_MTU_DISCOVER, IP_RECVERR. After C/R every option reads back the same,
 * both groups keep their filters, a datagram the sender sends to 239.6.6.6 reaches the receiver on lo with
 * its ifindex, TOS and multicast TTL in the cmsgs, and an IPv4 connection accepted by the listener has its
 * TTL 44. The test runs in a network namespace of its own (lo up, no route for multicast: without the
 * interface the send fails). Before: the dump read IPv4-level options of IPv4 sockets only; all these came
 * back at their defaults, without a word. */
#include <poll.h>
#include <netinet/ip.h>
#include "mcast.h"

#ifndef IP_LOCAL_PORT_RANGE
#define IP_LOCAL_PORT_RANGE 51
#endif

enum { RX, TX, TX2, LSN, NSK };

struct opt {
	int sk, name, val;
	const char *what;
};

static const struct opt opts[] = {
    {RX, IP_PKTINFO, 1, "IP_PKTINFO"},
    {RX, IP_RECVTOS, 1, "IP_RECVTOS"},
    {RX, IP_RECVTTL, 1, "IP_RECVTTL"},
    {RX, IP_RECVERR, 1, "IP_RECVERR"},
    {RX, IP_RECVORIGDSTADDR, 1, "IP_RECVORIGDSTADDR"},
    {RX, IP_RECVOPTS, 1, "IP_RECVOPTS"},
    {RX, IP_RETOPTS, 1, "IP_RETOPTS"},
    {RX, IP_PASSSEC, 1, "IP_PASSSEC"},
    {RX, IP_CHECKSUM, 1, "IP_CHECKSUM"},
    {RX, IP_RECVFRAGSIZE, 1, "IP_RECVFRAGSIZE"},
    {RX, IP_RECVERR_RFC4884, 1, "IP_RECVERR_RFC4884"},
    {RX, IP_MULTICAST_ALL, 1, "IP_MULTICAST_ALL"}, /* 0 on a new IPv6 socket */
    {RX, IP_MINTTL, 2, "IP_MINTTL"},
    {RX, IP_MTU_DISCOVER, IP_PMTUDISC_DO, "IP_MTU_DISCOVER"},
    {TX, IP_MULTICAST_TTL, 9, "IP_MULTICAST_TTL"},
    {TX, IP_TOS, 0x28, "IP_TOS"},
    {TX, IP_TTL, 37, "IP_TTL"},
    {TX, IP_UNICAST_IF, 0x01000000, "IP_UNICAST_IF"}, /* lo, in network byte order */
    {TX, IP_LOCAL_PORT_RANGE, 20000 | 30000 << 16, "IP_LOCAL_PORT_RANGE"},
    {TX, IP_BIND_ADDRESS_NO_PORT, 1, "IP_BIND_ADDRESS_NO_PORT"},
    {TX2, IP_MULTICAST_LOOP, 0, "IP_MULTICAST_LOOP"},
    {LSN, IP_TOS, 0x10, "IP_TOS (TCP)"},
    {LSN, IP_TTL, 44, "IP_TTL (TCP)"},
    {LSN, IP_MTU_DISCOVER, IP_PMTUDISC_PROBE, "IP_MTU_DISCOVER (TCP)"},
    {LSN, IP_RECVERR, 1, "IP_RECVERR (TCP)"},
};

static const struct grp grps[] = {
    {RX, "239.6.6.6", NULL, MCAST_EXCLUDE},
    {RX, "232.6.6.6", "127.0.0.1", MCAST_INCLUDE},
};

/* A dual-stack socket of type on the wildcard address, port of the kernel's choice (0: none, not bound) */
static int sk6(int type, bool bound)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
	int off = 0, s = socket(AF_INET6, type, 0);
	if (s < 0 || setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) ||
	    (bound && bind(s, (struct sockaddr *)&a, sizeof(a))))
		fail("dual-stack socket of type %d", type);
	return s;
}

static int port6(int s)
{
	struct sockaddr_in6 a = {0};
	socklen_t l = sizeof(a);
	if (getsockname(s, (struct sockaddr *)&a, &l))
		fail("getsockname");
	return ntohs(a.sin6_port);
}

/* tx sends to the v4-mapped 239.6.6.6 on rx's port; rx reads it with its cmsgs: the interface, TOS and
 * TTL of the datagram as IP_PKTINFO, IP_RECVTOS and IP_RECVTTL give them. 0: it came as the options say */
static int mcast_check(int tx, int rx)
{
	struct sockaddr_in6 to = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port6(rx))};
	char buf[8] = "", cbuf[512];
	struct iovec iov = {buf, sizeof(buf)};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	int ifindex = -1, tos = -1, ttl = -1;
	inet_pton(AF_INET6, "::ffff:239.6.6.6", &to.sin6_addr);
	if (sendto(tx, "mcast", 5, 0, (struct sockaddr *)&to, sizeof(to)) != 5)
		return test_msg("sendto 239.6.6.6: %m\n"), -1;
	struct pollfd p = {.fd = rx, .events = POLLIN};
	if (poll(&p, 1, 3000) != 1 || recvmsg(rx, &mh, MSG_DONTWAIT) != 5 || memcmp(buf, "mcast", 5))
		return test_msg("no datagram from 239.6.6.6: %m\n"), -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != IPPROTO_IP)
			continue;
		if (c->cmsg_type == IP_PKTINFO)
			ifindex = ((struct in_pktinfo *)CMSG_DATA(c))->ipi_ifindex;
		else if (c->cmsg_type == IP_TOS)
			tos = *(unsigned char *)CMSG_DATA(c);
		else if (c->cmsg_type == IP_TTL)
			memcpy(&ttl, CMSG_DATA(c), sizeof(ttl));
	}
	if (ifindex != 1 || tos != 0x28 || ttl != 9)
		return test_msg("cmsgs: ifindex %d tos %#x ttl %d, want 1 0x28 9\n", ifindex, tos, ttl), -1;
	return 0;
}

/* An IPv4 connection to the listener on 127.0.0.1: the accepted socket's IP_TTL */
static int accepted_ttl(int lsn)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)port6(lsn)),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int c = socket(AF_INET, SOCK_STREAM, 0), s = -1, ttl;
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)) || (s = accept(lsn, NULL, NULL)) < 0)
		fail("IPv4 connection to the dual-stack listener: %m");
	ttl = sk_getint(s, IPPROTO_IP, IP_TTL);
	close(c); /* first: the client's port, not the listener's, is left in TIME_WAIT */
	close(s);
	return ttl;
}

int main(int argc, char **argv)
{
	int sk[NSK], fam[NSK] = {AF_INET, AF_INET, AF_INET, AF_INET}, before[ARRAY_SIZE(opts)];
	char gbefore[ARRAY_SIZE(grps)][128], none[128];
	struct ip_mreqn mi = {.imr_ifindex = 1};
	struct in_addr lo = {.s_addr = htonl(INADDR_LOOPBACK)};
	test_init(argc, argv);
	/* mode user: the host's network namespace (the dump cannot read the index: .desc user-dump-notice) */
	bool own = mc_own_netns();
	sk[RX] = sk6(SOCK_DGRAM, true);
	sk[TX] = sk6(SOCK_DGRAM, false);
	sk[TX2] = sk6(SOCK_DGRAM, false);
	sk[LSN] = sk6(SOCK_STREAM, true);
	if (listen(sk[LSN], 4))
		fail("listen");
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if (setsockopt(sk[opts[i].sk], IPPROTO_IP, opts[i].name, &opts[i].val, sizeof(int)))
			fail("set %s", opts[i].what);
	if (setsockopt(sk[TX], IPPROTO_IP, IP_MULTICAST_IF, &mi, sizeof(mi)) ||
	    setsockopt(sk[TX2], IPPROTO_IP, IP_MULTICAST_IF, &lo, sizeof(lo)))
		fail("IP_MULTICAST_IF");
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		before[i] = sk_getint(sk[opts[i].sk], IPPROTO_IP, opts[i].name);
	/* the IPv4 groups, joined at the IPv4 level (MCAST_JOIN_GROUP at the IPv6 one wants an IPv6 group) */
	mc_join_all(sk, fam, grps, ARRAY_SIZE(grps), gbefore);
	mc_filter(sk[RX], AF_INET, "239.9.9.9", none, sizeof(none));
	if (own && mcast_check(sk[TX], sk[RX]))
		fail("multicast before C/R");
	if (accepted_ttl(sk[LSN]) != 44)
		fail("TTL of a connection accepted before C/R");

	test_daemon();
	test_waitsig();

	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		int v = sk_getint(sk[opts[i].sk], IPPROTO_IP, opts[i].name);
		if (v != before[i])
			fail("%s is %#x, want %#x", opts[i].what, v, before[i]);
	}
	struct in_addr a = {0};
	socklen_t l = sizeof(a);
	if (getsockopt(sk[TX2], IPPROTO_IP, IP_MULTICAST_IF, &a, &l) || a.s_addr != lo.s_addr)
		fail("IP_MULTICAST_IF set by address reads %#x", ntohl(a.s_addr));
	mc_check_all(sk, fam, grps, ARRAY_SIZE(grps), gbefore, "239.9.9.9", none);
	if (own && mcast_check(sk[TX], sk[RX]))
		fail("multicast after C/R: IP_MULTICAST_IF, IP_MULTICAST_TTL, IP_TOS or the group lost");
	int ttl = accepted_ttl(sk[LSN]);
	if (ttl != 44)
		fail("a connection accepted after C/R has TTL %d, want 44 (the listener's IP_TTL)", ttl);
	pass();
	return 0;
}
