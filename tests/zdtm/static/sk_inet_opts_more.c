/* Socket options the dump did not read (all came back at their defaults, silently): IP_OPTIONS (IPv4 UDP
 * and TCP, and an IPv6 dual-stack UDP socket's), SO_DEBUG, SO_TXTIME, SO_NOFCS, SO_TIMESTAMP_NEW,
 * SO_TIMESTAMPNS_NEW, UDP_ENCAP (ESP in UDP), TCP_FASTOPEN_CONNECT, TCP_FASTOPEN_NO_COOKIE, a listener's
 * TCP_FASTOPEN_KEY, IPv6 sticky extension headers (IPV6_HOPOPTS, IPV6_DSTOPTS, IPV6_RTHDRDSTOPTS),
 * IPV6_FLOWINFO_SEND, the RFC 2292 receive options (IPV6_2292PKTINFO, ...), IP_ROUTER_ALERT of a raw IPv4
 * socket and IPV6_ROUTER_ALERT(_ISOLATE) of a raw IPv6 one, a UDP-Lite socket's checksum coverage
 * (UDPLITE_SEND_CSCOV, UDPLITE_RECV_CSCOV) and UDP_SEGMENT (at SOL_UDPLITE). After C/R each reads back the
 * same bytes; a datagram the IPv4 socket sends to itself carries its IP options (IP_RECVOPTS). */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef IPV6_FLOWINFO_SEND /* linux/in6.h */
#define IPV6_FLOWINFO_SEND 33
#endif
#ifndef SOL_UDPLITE
#define SOL_UDPLITE 136
#endif
#define UDPLITE_SEND_CSCOV 10
#define UDPLITE_RECV_CSCOV 11

enum { U4, T4, LSN, U6, R4, R6, UL6, NSK };

static const int one = 1;
static const unsigned char ipopts[4] = {IPOPT_NOP, IPOPT_NOP, IPOPT_NOP, IPOPT_END};
static const unsigned char padn[8] = {IPPROTO_NONE, 0, 1, 4, 0, 0, 0, 0}; /* an 8-byte header, PadN */
static const struct {
	int clockid;
	unsigned flags;
} txtime = {CLOCK_MONOTONIC, 2 /* SOF_TXTIME_REPORT_ERRORS */};
static const int espinudp = UDP_ENCAP_ESPINUDP;
static const char tfo_key[16] = "crshim-tfo-key!";
static const int cscov = 20, gso = 1000;

struct opt {
	int sk, level, name;
	const void *val;
	socklen_t len;
	const char *what;
};

#define I(v) &v, sizeof(v)
static const struct opt opts[] = {
    {U4, IPPROTO_IP, IP_OPTIONS, I(ipopts), "IP_OPTIONS"},
    {T4, IPPROTO_IP, IP_OPTIONS, I(ipopts), "IP_OPTIONS (TCP)"},
    {U6, IPPROTO_IP, IP_OPTIONS, I(ipopts), "IP_OPTIONS (dual-stack UDP)"},
    {U4, SOL_SOCKET, SO_TXTIME, I(txtime), "SO_TXTIME"},
    {U4, SOL_SOCKET, SO_NOFCS, I(one), "SO_NOFCS"},
    {U4, SOL_SOCKET, SO_TIMESTAMP_NEW, I(one), "SO_TIMESTAMP_NEW"},
    {U6, SOL_SOCKET, SO_TIMESTAMPNS_NEW, I(one), "SO_TIMESTAMPNS_NEW"},
    {U4, SOL_UDP, UDP_ENCAP, I(espinudp), "UDP_ENCAP"},
    {T4, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, I(one), "TCP_FASTOPEN_CONNECT"},
    {T4, IPPROTO_TCP, TCP_FASTOPEN_NO_COOKIE, I(one), "TCP_FASTOPEN_NO_COOKIE"},
    {LSN, IPPROTO_TCP, TCP_FASTOPEN_KEY, I(tfo_key), "TCP_FASTOPEN_KEY"},
    {U6, IPPROTO_IPV6, IPV6_HOPOPTS, I(padn), "IPV6_HOPOPTS"},
    {U6, IPPROTO_IPV6, IPV6_DSTOPTS, I(padn), "IPV6_DSTOPTS"},
    {U6, IPPROTO_IPV6, IPV6_RTHDRDSTOPTS, I(padn), "IPV6_RTHDRDSTOPTS"},
    {U6, IPPROTO_IPV6, IPV6_FLOWINFO_SEND, I(one), "IPV6_FLOWINFO_SEND"},
    {U6, IPPROTO_IPV6, IPV6_2292PKTINFO, I(one), "IPV6_2292PKTINFO"},
    {U6, IPPROTO_IPV6, IPV6_2292HOPOPTS, I(one), "IPV6_2292HOPOPTS"},
    {U6, IPPROTO_IPV6, IPV6_2292DSTOPTS, I(one), "IPV6_2292DSTOPTS"},
    {U6, IPPROTO_IPV6, IPV6_2292RTHDR, I(one), "IPV6_2292RTHDR"},
    {U6, IPPROTO_IPV6, IPV6_2292HOPLIMIT, I(one), "IPV6_2292HOPLIMIT"},
    {R4, IPPROTO_IP, IP_ROUTER_ALERT, I(one), "IP_ROUTER_ALERT (raw)"},
    {R6, IPPROTO_IPV6, IPV6_ROUTER_ALERT, I(one), "IPV6_ROUTER_ALERT (raw)"},
    {R6, IPPROTO_IPV6, IPV6_ROUTER_ALERT_ISOLATE, I(one), "IPV6_ROUTER_ALERT_ISOLATE (raw)"},
    {UL6, SOL_UDPLITE, UDPLITE_SEND_CSCOV, I(cscov), "UDPLITE_SEND_CSCOV"},
    {UL6, SOL_UDPLITE, UDPLITE_RECV_CSCOV, I(cscov), "UDPLITE_RECV_CSCOV"},
    {UL6, SOL_UDPLITE, UDP_SEGMENT, I(gso), "UDP_SEGMENT (UDP-Lite)"},
    /* last: a crshim that reads none of the others checks at least this one (SO_DEBUG wants CAP_NET_ADMIN
     * in the first user namespace: not in modes uns and cuns, where the test leaves it out) */
    {U4, SOL_SOCKET, SO_DEBUG, I(one), "SO_DEBUG"},
};

/* u4 sends a datagram to itself: the IP options it arrives with (IP_RECVOPTS), as bytes, into o: their
 * length, -1: none came */
static int sent_opts(int u4, unsigned char *o, size_t len)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	char buf[8], cbuf[256];
	struct iovec iov = {buf, sizeof(buf)};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct pollfd p = {.fd = u4, .events = POLLIN};
	if (getsockname(u4, (struct sockaddr *)&a, &al) ||
	    sendto(u4, "opts", 4, 0, (struct sockaddr *)&a, sizeof(a)) != 4 || poll(&p, 1, 3000) != 1 ||
	    recvmsg(u4, &mh, 0) != 4)
		return -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVOPTS) {
			size_t n = c->cmsg_len - CMSG_LEN(0);
			memcpy(o, CMSG_DATA(c), n < len ? n : len);
			return (int)n;
		}
	return -1;
}

int main(int argc, char **argv)
{
	static unsigned char before[ARRAY_SIZE(opts)][64];
	socklen_t blen[ARRAY_SIZE(opts)];
	int sk[NSK], off = 0;
	unsigned char got[64];
	struct sockaddr_in lo = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	test_init(argc, argv);
	sk[U4] = socket(AF_INET, SOCK_DGRAM, 0);
	sk[T4] = socket(AF_INET, SOCK_STREAM, 0);
	sk[LSN] = socket(AF_INET, SOCK_STREAM, 0);
	sk[U6] = socket(AF_INET6, SOCK_DGRAM, 0);
	sk[R4] = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);
	sk[R6] = socket(AF_INET6, SOCK_RAW, IPPROTO_RAW);
	sk[UL6] = socket(AF_INET6, SOCK_DGRAM, IPPROTO_UDPLITE);
	for (int i = 0; i < NSK; i++)
		if (sk[i] < 0)
			fail("socket %d", i);
	if (setsockopt(sk[U6], IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) ||
	    bind(sk[U4], (struct sockaddr *)&lo, sizeof(lo)) ||
	    bind(sk[LSN], (struct sockaddr *)&lo, sizeof(lo)) ||
	    setsockopt(sk[U4], IPPROTO_IP, IP_RECVOPTS, &one, sizeof(one)))
		fail("set up");
	size_t n = ARRAY_SIZE(opts);
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		const struct opt *o = &opts[i];
		if (setsockopt(sk[o->sk], o->level, o->name, o->val, o->len)) {
			if (o->name == SO_DEBUG && errno == EACCES && i == n - 1) {
				test_msg("SO_DEBUG: %m (a user namespace): left out\n");
				n--;
				continue;
			}
			fail("set %s", o->what);
		}
	}
	if (listen(sk[LSN], 4))
		fail("listen");
	for (size_t i = 0; i < n; i++) {
		blen[i] = sizeof(before[i]);
		if (getsockopt(sk[opts[i].sk], opts[i].level, opts[i].name, before[i], &blen[i]))
			fail("get %s", opts[i].what);
	}
	if (sent_opts(sk[U4], got, sizeof(got)) != sizeof(ipopts) || memcmp(got, ipopts, sizeof(ipopts)))
		fail("a datagram sent before C/R has not the IP options");

	test_daemon();
	test_waitsig();

	for (size_t i = 0; i < n; i++) {
		const struct opt *o = &opts[i];
		socklen_t l = sizeof(got);
		memset(got, 0, sizeof(got));
		if (getsockopt(sk[o->sk], o->level, o->name, got, &l))
			fail("get %s after C/R", o->what);
		else if (l != blen[i] || memcmp(got, before[i], l))
			fail("%s: %u bytes (first %02x%02x%02x%02x), want %u (%02x%02x%02x%02x)", o->what, l,
			     got[0], got[1], got[2], got[3], blen[i], before[i][0], before[i][1],
			     before[i][2], before[i][3]);
	}
	if (sent_opts(sk[U4], got, sizeof(got)) != sizeof(ipopts) || memcmp(got, ipopts, sizeof(ipopts)))
		fail("a datagram sent after C/R has not the IP options");
	pass();
	return 0;
}
