/* ICMP sockets: a ping socket (SOCK_DGRAM, IPPROTO_ICMP) bound to 127.0.0.1 with its echo identifier, an
 * ICMPv6 ping socket, and a raw ICMP socket with an ICMP_FILTER. After restore the ping socket keeps its
 * identifier and gets an echo reply from loopback, the raw socket keeps its filter and sees the reply. */
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef ICMP_FILTER
#define ICMP_FILTER 1 /* linux/icmp.h, which clashes with netinet/ip_icmp.h */
struct icmp_filter {
	uint32_t data;
};
#endif

#define PING_RANGE "/proc/sys/net/ipv4/ping_group_range"
static char *old_range; /* the value before we opened it, put back at exit */

static void restore_range(void)
{
	int p = open(PING_RANGE, O_WRONLY);
	if (p < 0 || write(p, old_range, strlen(old_range)) < 0)
		test_msg("could not put back %s = %s\n", PING_RANGE, old_range);
	if (p >= 0)
		close(p);
}

static int ping_socket(int family)
{
	int fd = socket(family, SOCK_DGRAM, family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6);
	if (fd < 0 && errno == EACCES) {
		/* ping sockets are off for every group here: allow root's (as CRIU's tests do) for the time
		 * of the test (crshim's restore makes the socket again), and put the old range back at exit
		 */
		if (!old_range && read_file(PING_RANGE, &old_range) <= 0)
			test_skip("ping sockets are not allowed and %s cannot be read", PING_RANGE);
		int p = open(PING_RANGE, O_WRONLY);
		if (p < 0 || write(p, "0 0", 3) != 3)
			test_skip("ping sockets are not allowed and ping_group_range cannot be set");
		close(p);
		atexit(restore_range);
		fd = socket(family, SOCK_DGRAM, family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6);
	}
	if (fd < 0)
		fail("ping socket");
	return fd;
}

static int recv_wait(int fd, void *buf, size_t len)
{
	for (int i = 0; i < 2000; i++) {
		ssize_t n = recv(fd, buf, len, MSG_DONTWAIT);
		if (n >= 0)
			return (int)n;
		usleep(1000);
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct sockaddr_in lo = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)}, a0, a1;
	struct sockaddr_in6 lo6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT}, b0, b1;
	struct icmp_filter flt = {~(1u << ICMP_ECHOREPLY)}, flt1;
	socklen_t l;
	char buf[256];

	test_init(argc, argv);
	int ping = ping_socket(AF_INET), ping6 = ping_socket(AF_INET6);
	int raw = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (raw < 0 || setsockopt(raw, SOL_RAW, ICMP_FILTER, &flt, sizeof(flt)))
		fail("raw icmp socket");
	if (bind(ping, (struct sockaddr *)&lo, sizeof(lo)) ||
	    bind(ping6, (struct sockaddr *)&lo6, sizeof(lo6)))
		fail("bind ping sockets");
	l = sizeof(a0);
	getsockname(ping, (struct sockaddr *)&a0, &l);
	l = sizeof(b0);
	getsockname(ping6, (struct sockaddr *)&b0, &l);

	test_daemon();
	test_waitsig();

	l = sizeof(a1);
	if (getsockname(ping, (struct sockaddr *)&a1, &l) || a1.sin_port != a0.sin_port ||
	    a1.sin_addr.s_addr != a0.sin_addr.s_addr)
		fail("ping socket: identifier/address changed");
	l = sizeof(b1);
	if (getsockname(ping6, (struct sockaddr *)&b1, &l) || b1.sin6_port != b0.sin6_port)
		fail("ping6 socket: identifier changed");
	l = sizeof(flt1);
	if (getsockopt(raw, SOL_RAW, ICMP_FILTER, &flt1, &l) || flt1.data != flt.data)
		fail("ICMP_FILTER lost");
	struct icmphdr req = {.type = ICMP_ECHO, .un.echo.sequence = htons(7)};
	if (sendto(ping, &req, sizeof(req), 0, (struct sockaddr *)&lo, sizeof(lo)) != sizeof(req))
		fail("send echo request");
	int n = recv_wait(ping, buf, sizeof(buf));
	struct icmphdr *rep = (struct icmphdr *)buf;
	if (n < (int)sizeof(*rep) || rep->type != ICMP_ECHOREPLY || rep->un.echo.id != a0.sin_port ||
	    rep->un.echo.sequence != htons(7))
		fail("no echo reply on the ping socket (%d bytes)", n);
	/* the raw socket sees the reply (with its IP header) and nothing its filter drops */
	n = recv_wait(raw, buf, sizeof(buf));
	struct iphdr *ip = (struct iphdr *)buf;
	if (n < (int)sizeof(*ip) + 8 || ((struct icmphdr *)(buf + ip->ihl * 4))->type != ICMP_ECHOREPLY)
		fail("the raw socket did not see the echo reply");
	pass();
	return 0;
}
