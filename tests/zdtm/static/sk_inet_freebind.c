/* UDP sockets bound to addresses this host does not have (192.0.2.77, 2001:db8::77: documentation ranges)
 * under IP_FREEBIND / IPV6_FREEBIND, the option turned off again afterwards. After restore each is bound to
 * the same address and port and the option is still off. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { S4 = 40, S6 = 41 };

static int opt(int fd, int level, int name)
{
	int v = -1;
	socklen_t l = sizeof(v);
	return getsockopt(fd, level, name, &v, &l) ? -1 : v;
}

static int freebound(int family, int at)
{
	struct sockaddr_storage ss = {0};
	socklen_t len;
	int on = 1, off = 0, fd = socket(family, SOCK_DGRAM, 0);
	int level = family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
	int name = family == AF_INET ? IP_FREEBIND : IPV6_FREEBIND;
	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		inet_pton(AF_INET, "192.0.2.77", &a->sin_addr);
		len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		inet_pton(AF_INET6, "2001:db8::77", &a->sin6_addr);
		len = sizeof(*a);
	}
	if (fd < 0 || setsockopt(fd, level, name, &on, sizeof(on)) || bind(fd, (struct sockaddr *)&ss, len) ||
	    setsockopt(fd, level, name, &off, sizeof(off)) || dup2(fd, at) != at)
		return -1;
	close(fd);
	return 0;
}

static void name_of(int fd, char *out, size_t len)
{
	struct sockaddr_storage ss = {0};
	socklen_t l = sizeof(ss);
	char a[64] = "?";
	int port = -1;
	memset(&ss, 0, sizeof(ss));
	if (!getsockname(fd, (struct sockaddr *)&ss, &l)) {
		if (ss.ss_family == AF_INET) {
			inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, a, sizeof(a));
			port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
		} else {
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, a, sizeof(a));
			port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
		}
	}
	snprintf(out, len, "%s:%d", a, port);
}

int main(int argc, char **argv)
{
	char n4[96], n6[96], m4[96], m6[96];
	test_init(argc, argv);
	if (freebound(AF_INET, S4))
		fail("IPv4 socket bound under IP_FREEBIND");
	int have6 = !freebound(AF_INET6, S6);
	name_of(S4, n4, sizeof(n4));
	if (have6)
		name_of(S6, n6, sizeof(n6));
	test_daemon();
	test_waitsig();

	name_of(S4, m4, sizeof(m4));
	if (strcmp(n4, m4))
		fail("IPv4: bound to %s, want %s", m4, n4);
	if (opt(S4, IPPROTO_IP, IP_FREEBIND) != 0)
		fail("IP_FREEBIND is %d, want 0", opt(S4, IPPROTO_IP, IP_FREEBIND));
	if (have6) {
		name_of(S6, m6, sizeof(m6));
		if (strcmp(n6, m6))
			fail("IPv6: bound to %s, want %s", m6, n6);
		if (opt(S6, IPPROTO_IPV6, IPV6_FREEBIND) != 0)
			fail("IPV6_FREEBIND is %d, want 0", opt(S6, IPPROTO_IPV6, IPV6_FREEBIND));
	}
	pass();
	return 0;
}
