/* Inet sockets whose state crshim reads through sock_diag: TCP listeners (IPv4 on loopback with backlog 5,
 * IPv6 on ::1), TCP sockets bound and neither listening nor connected (IPv4, IPv6 wildcard), UDP sockets
 * bound and connected to each other (IPv4 pair, IPv6 pair), a bound IPv4 UDP socket, a dual-stack IPv6 UDP
 * socket connected to it through its IPv4-mapped address, a connected UDP socket shut down for sending, and
 * unbound TCP/UDP sockets. After restore each has the same addresses, state and backlog, the shut down one
 * fails to send (EPIPE), and the UDP pairs and listeners carry data. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NSK 16

struct sk {
	struct sockaddr_storage name, peer;
	const char *what;
	int fd, family, type;
	int state; /* TCP state, -1: not TCP */
	socklen_t nl, pl;
};

static struct sk sk[NSK];
static int nsk;

static int add(const char *what, int family, int type)
{
	struct sk *s = &sk[nsk++];
	s->what = what, s->family = family, s->type = type;
	s->fd = socket(family, type, 0);
	if (s->fd < 0)
		fail("%s: socket", what);
	return s->fd;
}

static void bind_lo(int fd, int family, int any)
{
	struct sockaddr_storage ss;
	socklen_t l = ip_addr(family, 0, any, &ss);
	if (bind(fd, (struct sockaddr *)&ss, l))
		fail("bind");
}

static void connect_to(int fd, int to)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	if (getsockname(to, (struct sockaddr *)&ss, &l) || connect(fd, (struct sockaddr *)&ss, l))
		fail("connect");
}

static void record(struct sk *s)
{
	s->nl = sizeof(s->name), s->pl = sizeof(s->peer);
	memset(&s->name, 0, sizeof(s->name));
	memset(&s->peer, 0, sizeof(s->peer));
	getsockname(s->fd, (struct sockaddr *)&s->name, &s->nl);
	if (getpeername(s->fd, (struct sockaddr *)&s->peer, &s->pl))
		s->pl = 0;
	s->state = s->type == SOCK_STREAM ? tcp_state(s->fd) : -1;
}

static void dgram(int a, int b, const char *what)
{
	char buf[8];
	if (send(a, "ping", 4, 0) != 4 || recv(b, buf, sizeof(buf), 0) != 4 || memcmp(buf, "ping", 4))
		fail("%s: no datagram", what);
}

static void stream(int lfd, int family, const char *what)
{
	char buf[8];
	int c = socket(family, SOCK_STREAM, 0);
	connect_to(c, lfd);
	int a = accept(lfd, NULL, NULL);
	if (a < 0 || write(c, "ping", 4) != 4 || read(a, buf, 4) != 4 || memcmp(buf, "ping", 4))
		fail("%s: no data over an accepted connection", what);
	close(a);
	close(c);
}

int main(int argc, char **argv)
{
	int one = 1, zero = 0;
	test_init(argc, argv);
	int l4 = add("tcp4 listener", AF_INET, SOCK_STREAM), l6 = add("tcp6 listener", AF_INET6, SOCK_STREAM);
	bind_lo(l4, AF_INET, 0), bind_lo(l6, AF_INET6, 0);
	if (listen(l4, 5) || listen(l6, 9))
		fail("listen");
	int b4 = add("tcp4 bound", AF_INET, SOCK_STREAM), b6 = add("tcp6 bound", AF_INET6, SOCK_STREAM);
	bind_lo(b4, AF_INET, 0), bind_lo(b6, AF_INET6, 1);
	int u4a = add("udp4 a", AF_INET, SOCK_DGRAM), u4b = add("udp4 b", AF_INET, SOCK_DGRAM);
	int u6a = add("udp6 a", AF_INET6, SOCK_DGRAM), u6b = add("udp6 b", AF_INET6, SOCK_DGRAM);
	bind_lo(u4a, AF_INET, 0), bind_lo(u4b, AF_INET, 0), bind_lo(u6a, AF_INET6, 0),
	    bind_lo(u6b, AF_INET6, 0);
	connect_to(u4a, u4b), connect_to(u4b, u4a), connect_to(u6a, u6b), connect_to(u6b, u6a);
	int r4 = add("udp4 bound", AF_INET, SOCK_DGRAM);
	bind_lo(r4, AF_INET, 0);
	int m6 = add("udp6 to ipv4-mapped", AF_INET6, SOCK_DGRAM);
	struct sockaddr_in6 mapped = {.sin6_family = AF_INET6};
	struct sockaddr_in peer4 = {0};
	socklen_t pl = sizeof(peer4);
	if (getsockname(r4, (struct sockaddr *)&peer4, &pl))
		fail("getsockname");
	mapped.sin6_port = peer4.sin_port;
	memcpy(&mapped.sin6_addr.s6_addr[10], "\xff\xff\x7f\x00\x00\x01", 6);
	if (setsockopt(m6, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) ||
	    connect(m6, (struct sockaddr *)&mapped, sizeof(mapped)))
		fail("ipv4-mapped connect");
	int sh = add("udp4 shut down for sending", AF_INET, SOCK_DGRAM);
	connect_to(sh, u4b);
	if (shutdown(sh, SHUT_WR))
		fail("shutdown");
	add("tcp6 unbound", AF_INET6, SOCK_STREAM);
	add("udp4 unbound", AF_INET, SOCK_DGRAM);
	setsockopt(b4, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	for (int i = 0; i < nsk; i++)
		record(&sk[i]);

	test_daemon();
	test_waitsig();

	for (int i = 0; i < nsk; i++) {
		struct sk s = sk[i];
		record(&s);
		if (s.nl != sk[i].nl || memcmp(&s.name, &sk[i].name, s.nl))
			fail("%s: local address changed", s.what);
		if (s.pl != sk[i].pl || memcmp(&s.peer, &sk[i].peer, s.pl))
			fail("%s: peer address changed (length %u, was %u)", s.what, s.pl, sk[i].pl);
		if (s.state != sk[i].state)
			fail("%s: TCP state %d, was %d", s.what, s.state, sk[i].state);
	}
	struct tcp_info ti;
	socklen_t l = sizeof(ti);
	if (getsockopt(l4, IPPROTO_TCP, TCP_INFO, &ti, &l) || ti.tcpi_sacked != 5)
		fail("tcp4 listener: backlog %u, want 5", ti.tcpi_sacked);
	errno = 0;
	ssize_t n = send(sh, "x", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n != -1 || errno != EPIPE)
		fail("the socket shut down for sending sends (%zd, errno %d)", n, errno);
	dgram(u4a, u4b, "udp4 pair"), dgram(u4b, u4a, "udp4 pair back"), dgram(u6a, u6b, "udp6 pair");
	dgram(m6, r4, "udp6 to ipv4-mapped");
	stream(l4, AF_INET, "tcp4 listener"), stream(l6, AF_INET6, "tcp6 listener");
	pass();
	return 0;
}
