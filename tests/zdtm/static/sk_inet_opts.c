/* Socket options at SOL_SOCKET, IPPROTO_IP, IPPROTO_IPV6, IPPROTO_TCP and SOL_UDP on TCP and UDP
 * sockets (IPv4 and IPv6), set to values other than the defaults: after restore each reads back the
 * same (those from SO_RCVMARK on were lost before: the dump did not read them). */
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/net_tstamp.h>
#include "zdtmtst.h"

#ifndef IPV6_FLOWINFO
#define IPV6_FLOWINFO 11
#endif
#ifndef IP_LOCAL_PORT_RANGE
#define IP_LOCAL_PORT_RANGE 51
#endif

struct opt {
	int sk, level, name, val;
	const char *what;
};

static struct opt opts[] = {
    {0, SOL_SOCKET, SO_KEEPALIVE, 1, "SO_KEEPALIVE"},
    {0, SOL_SOCKET, SO_PRIORITY, 5, "SO_PRIORITY"},
    {0, SOL_SOCKET, SO_RCVLOWAT, 10, "SO_RCVLOWAT"},
    {0, SOL_SOCKET, SO_MARK, 42, "SO_MARK"},
    {0, SOL_SOCKET, SO_OOBINLINE, 1, "SO_OOBINLINE"},
    {0, SOL_SOCKET, SO_SNDBUF, 65536, "SO_SNDBUF"},
    {0, SOL_SOCKET, SO_RCVBUF, 98304, "SO_RCVBUF"},
    {0, IPPROTO_IP, IP_TOS, 0x10, "IP_TOS"},
    {0, IPPROTO_IP, IP_TTL, 33, "IP_TTL"},
    {0, IPPROTO_IP, IP_FREEBIND, 1, "IP_FREEBIND"},
    {0, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY"},
    {0, IPPROTO_TCP, TCP_KEEPIDLE, 77, "TCP_KEEPIDLE"},
    {0, IPPROTO_TCP, TCP_KEEPINTVL, 11, "TCP_KEEPINTVL"},
    {0, IPPROTO_TCP, TCP_KEEPCNT, 4, "TCP_KEEPCNT"},
    {0, IPPROTO_TCP, TCP_USER_TIMEOUT, 12345, "TCP_USER_TIMEOUT"},
    {0, IPPROTO_TCP, TCP_MAXSEG, 1200, "TCP_MAXSEG"},
    {0, IPPROTO_TCP, TCP_DEFER_ACCEPT, 3, "TCP_DEFER_ACCEPT"},
    {1, SOL_SOCKET, SO_BROADCAST, 1, "SO_BROADCAST"},
    {1, IPPROTO_IP, IP_PKTINFO, 1, "IP_PKTINFO"},
    {1, IPPROTO_IP, IP_RECVTTL, 1, "IP_RECVTTL"},
    {1, IPPROTO_IP, IP_MULTICAST_TTL, 7, "IP_MULTICAST_TTL"},
    {1, IPPROTO_IP, IP_MULTICAST_LOOP, 0, "IP_MULTICAST_LOOP"},
    {1, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO, "IP_MTU_DISCOVER"},
    {1, IPPROTO_UDP, UDP_CORK, 1, "UDP_CORK"},
    {2, IPPROTO_IPV6, IPV6_V6ONLY, 1, "IPV6_V6ONLY"},
    {2, IPPROTO_IPV6, IPV6_UNICAST_HOPS, 17, "IPV6_UNICAST_HOPS"},
    {2, IPPROTO_IPV6, IPV6_TCLASS, 0x20, "IPV6_TCLASS"},
    {2, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1, "IPV6_RECVPKTINFO"},
    {2, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY (v6)"},
    {3, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, 3, "IPV6_MULTICAST_HOPS"},
    {3, IPPROTO_IPV6, IPV6_RECVERR, 1, "IPV6_RECVERR"},
    {1, SOL_SOCKET, SO_RCVMARK, 1, "SO_RCVMARK"},
    {1, SOL_SOCKET, SO_ZEROCOPY, 1, "SO_ZEROCOPY"},
    {1, SOL_SOCKET, SO_INCOMING_CPU, 0, "SO_INCOMING_CPU"},
    {1, SOL_SOCKET, SO_SELECT_ERR_QUEUE, 1, "SO_SELECT_ERR_QUEUE"},
    {1, SOL_SOCKET, SO_RXQ_OVFL, 1, "SO_RXQ_OVFL"},
    {1, SOL_SOCKET, SO_WIFI_STATUS, 1, "SO_WIFI_STATUS"},
    {1, SOL_SOCKET, SO_MAX_PACING_RATE, 100000, "SO_MAX_PACING_RATE"},
    {1, SOL_SOCKET, SO_TIMESTAMPING, SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_RX_SOFTWARE,
     "SO_TIMESTAMPING"},
    {1, IPPROTO_IP, IP_CHECKSUM, 1, "IP_CHECKSUM"},
    {1, IPPROTO_IP, IP_RECVFRAGSIZE, 1, "IP_RECVFRAGSIZE"},
    {1, IPPROTO_IP, IP_MINTTL, 5, "IP_MINTTL"},
    {1, IPPROTO_IP, IP_LOCAL_PORT_RANGE, 20000 | 30000 << 16, "IP_LOCAL_PORT_RANGE"},
    {1, SOL_UDP, UDP_SEGMENT, 1000, "UDP_SEGMENT"},
    {1, SOL_UDP, UDP_GRO, 1, "UDP_GRO"},
    {0, IPPROTO_TCP, TCP_SAVE_SYN, 1, "TCP_SAVE_SYN"},
    {0, IPPROTO_TCP, TCP_TX_DELAY, 5, "TCP_TX_DELAY"},
    {0, IPPROTO_TCP, TCP_INQ, 1, "TCP_INQ"},
    {3, IPPROTO_IPV6, IPV6_MULTICAST_IF, 1, "IPV6_MULTICAST_IF"},
    {3, IPPROTO_IPV6, IPV6_RECVRTHDR, 1, "IPV6_RECVRTHDR"},
    {3, IPPROTO_IPV6, IPV6_RECVHOPOPTS, 1, "IPV6_RECVHOPOPTS"},
    {3, IPPROTO_IPV6, IPV6_RECVDSTOPTS, 1, "IPV6_RECVDSTOPTS"},
    {3, IPPROTO_IPV6, IPV6_FLOWINFO, 1, "IPV6_FLOWINFO"},
    {3, IPPROTO_IPV6, IPV6_MINHOPCOUNT, 3, "IPV6_MINHOPCOUNT"},
    {3, IPPROTO_IPV6, IPV6_MULTICAST_ALL, 0, "IPV6_MULTICAST_ALL"},
    {3, IPPROTO_IPV6, IPV6_RECVFRAGSIZE, 1, "IPV6_RECVFRAGSIZE"},
    {3, SOL_UDP, UDP_NO_CHECK6_TX, 1, "UDP_NO_CHECK6_TX"},
};

int main(int argc, char **argv)
{
	int sk[4], before[ARRAY_SIZE(opts)];
	struct linger lg = {1, 9}, lg1;
	struct timeval tv = {3, 500000}, tv1;
	char cc[16] = "", cc1[16] = "";
	socklen_t l;
	test_init(argc, argv);
	sk[0] = socket(AF_INET, SOCK_STREAM, 0);
	sk[1] = socket(AF_INET, SOCK_DGRAM, 0);
	sk[2] = socket(AF_INET6, SOCK_STREAM, 0);
	sk[3] = socket(AF_INET6, SOCK_DGRAM, 0);
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		if (setsockopt(sk[opts[i].sk], opts[i].level, opts[i].name, &opts[i].val, sizeof(int)))
			fail("set %s", opts[i].what);
	}
	/* read back once all are set (IP_TOS changes SO_PRIORITY) */
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		before[i] = sk_getint(sk[opts[i].sk], opts[i].level, opts[i].name);
	if (setsockopt(sk[0], SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) ||
	    setsockopt(sk[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		fail("SO_LINGER/SO_RCVTIMEO");
	/* reno is built in: a congestion control other than the default cubic */
	if (setsockopt(sk[2], IPPROTO_TCP, TCP_CONGESTION, "reno", 4))
		fail("TCP_CONGESTION");
	l = sizeof(cc);
	getsockopt(sk[2], IPPROTO_TCP, TCP_CONGESTION, cc, &l);

	test_daemon();
	test_waitsig();

	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		int v = sk_getint(sk[opts[i].sk], opts[i].level, opts[i].name);
		if (v != before[i])
			fail("%s is %d, want %d", opts[i].what, v, before[i]);
	}
	l = sizeof(lg1);
	if (getsockopt(sk[0], SOL_SOCKET, SO_LINGER, &lg1, &l) || lg1.l_onoff != 1 || lg1.l_linger != 9)
		fail("SO_LINGER lost");
	l = sizeof(tv1);
	if (getsockopt(sk[1], SOL_SOCKET, SO_RCVTIMEO, &tv1, &l) || tv1.tv_sec != 3 ||
	    tv1.tv_usec / 1000 != 500)
		fail("SO_RCVTIMEO lost");
	l = sizeof(cc1);
	if (getsockopt(sk[2], IPPROTO_TCP, TCP_CONGESTION, cc1, &l) || strcmp(cc, cc1))
		fail("TCP_CONGESTION %s, want %s", cc1, cc);
	if (sk_getint(sk[0], SOL_SOCKET, SO_REUSEADDR) != 0 ||
	    sk_getint(sk[1], SOL_SOCKET, SO_KEEPALIVE) != 0)
		fail("an option not set appeared");
	pass();
	return 0;
}
