/* Raw inet sockets and their raw-only options, as CRIU's socket-raw: an IPv4 raw UDP socket bound to
 * 127.0.0.12 with IP_HDRINCL (the program writes the IP header itself), an IPv6 raw UDP socket with
 * IPV6_HDRINCL, an IPv6 raw socket of protocol 253 with IPV6_CHECKSUM at offset 2. After restore the options
 * read back the same, and a whole IP packet written on the first reaches a UDP socket bound to
 * 127.0.0.10 (without IP_HDRINCL the kernel puts a header of its own before it and nothing arrives). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

#define MSG "raw udp datagram"

static uint16_t csum(const void *p, size_t n)
{
	const uint16_t *w = p;
	uint32_t s = 0;
	for (; n > 1; n -= 2)
		s += *w++;
	if (n)
		s += *(const uint8_t *)w;
	s = (s >> 16) + (s & 0xffff);
	s += s >> 16;
	return (uint16_t)~s;
}

int main(int argc, char **argv)
{
	struct sockaddr_in cl = {.sin_family = AF_INET},
			   sv = {.sin_family = AF_INET, .sin_port = htons(8081)};
	char pkt[128], buf[64];
	int one = 1, two = 2;
	test_init(argc, argv);
	cl.sin_addr.s_addr = inet_addr("127.0.0.12");
	sv.sin_addr.s_addr = inet_addr("127.0.0.10");
	int r4 = socket(AF_INET, SOCK_RAW, IPPROTO_UDP), r6 = socket(AF_INET6, SOCK_RAW, IPPROTO_UDP);
	int c6 = socket(AF_INET6, SOCK_RAW, 253), srv = socket(AF_INET, SOCK_DGRAM, 0);
	if (r4 < 0 || r6 < 0 || c6 < 0 || srv < 0)
		fail("socket");
	if (bind(srv, (struct sockaddr *)&sv, sizeof(sv)) || bind(r4, (struct sockaddr *)&cl, sizeof(cl)))
		fail("bind");
	if (setsockopt(r4, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one)) ||
	    setsockopt(r6, IPPROTO_IPV6, IPV6_HDRINCL, &one, sizeof(one)) ||
	    setsockopt(c6, IPPROTO_IPV6, IPV6_CHECKSUM, &two, sizeof(two)))
		fail("setsockopt");

	test_daemon();
	test_waitsig();

	if (sk_getint(r4, IPPROTO_IP, IP_HDRINCL) != 1)
		fail("IP_HDRINCL lost");
	if (sk_getint(r6, IPPROTO_IPV6, IPV6_HDRINCL) != 1)
		fail("IPV6_HDRINCL lost");
	if (sk_getint(c6, IPPROTO_IPV6, IPV6_CHECKSUM) != 2)
		fail("IPV6_CHECKSUM lost");
	struct sockaddr_in a;
	socklen_t l = sizeof(a);
	if (getsockname(r4, (struct sockaddr *)&a, &l) || a.sin_addr.s_addr != cl.sin_addr.s_addr)
		fail("the raw socket's address is lost");
	struct iphdr *ip = (struct iphdr *)pkt;
	struct udphdr *u = (struct udphdr *)(ip + 1);
	size_t len = sizeof(*ip) + sizeof(*u) + sizeof(MSG);
	memset(pkt, 0, sizeof(pkt));
	memcpy(u + 1, MSG, sizeof(MSG));
	*ip = (struct iphdr){.ihl = 5,
			     .version = 4,
			     .tot_len = htons((uint16_t)len),
			     .ttl = 64,
			     .protocol = IPPROTO_UDP,
			     .saddr = cl.sin_addr.s_addr,
			     .daddr = sv.sin_addr.s_addr};
	ip->check = csum(ip, sizeof(*ip));
	*u = (struct udphdr){
	    .source = htons(8080), .dest = sv.sin_port, .len = htons(sizeof(*u) + sizeof(MSG))};
	if (sendto(r4, pkt, len, 0, (struct sockaddr *)&sv, sizeof(sv)) != (ssize_t)len)
		fail("sendto on the raw socket");
	struct pollfd p = {.fd = srv, .events = POLLIN};
	if (poll(&p, 1, 5000) != 1 || recv(srv, buf, sizeof(buf), 0) != sizeof(MSG) || strcmp(buf, MSG))
		fail("the datagram written with its IP header did not arrive");
	pass();
	return 0;
}
