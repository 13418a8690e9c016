/* TCP-AO keys (RFC 5925, TCP_AO_ADD_KEY, Linux 6.7 on): a listener with a key for 127.0.0.1, a client with
 * the matching one connected to it and the accepted socket. crshim does not restore them yet, so the dump
 * must refuse with one line naming TCP-AO (never a restore without the keys, where the peers drop every
 * segment); the test keeps running and its connection still carries data. Skipped on a kernel without TCP-AO
 * (CONFIG_TCP_AO: TCP_AO_ADD_KEY fails with ENOPROTOOPT). */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

#define TCP_AO_ADD_KEY_ 38

struct ao_add { /* struct tcp_ao_add of linux/tcp.h (Linux 6.7) */
	struct sockaddr_storage addr;
	char alg_name[64];
	int32_t ifindex;
	uint32_t set_current : 1, set_rnext : 1, reserved : 30;
	uint16_t reserved2;
	uint8_t prefix, sndid, rcvid, maclen, keyflags, keylen;
	uint8_t key[80];
} __attribute__((aligned(8)));

static int ao_key(int fd, uint8_t sndid, uint8_t rcvid)
{
	struct ao_add a;
	memset(&a, 0, sizeof(a));
	struct sockaddr_in *s = (struct sockaddr_in *)&a.addr;
	s->sin_family = AF_INET;
	s->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	strcpy(a.alg_name, "hmac(sha1)");
	a.prefix = 32, a.sndid = sndid, a.rcvid = rcvid, a.keylen = 16;
	memcpy(a.key, "crshim-ao-key-16", 16);
	return setsockopt(fd, IPPROTO_TCP, TCP_AO_ADD_KEY_, &a, sizeof(a));
}

int main(int argc, char **argv)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(s);
	char buf[4];

	test_init(argc, argv);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), cfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || cfd < 0)
		fail("sockets");
	if (ao_key(lfd, 100, 101)) {
		if (errno == ENOPROTOOPT)
			test_skip("no TCP-AO in this kernel (CONFIG_TCP_AO)");
		fail("TCP_AO_ADD_KEY");
	}
	if (ao_key(cfd, 101, 100) || bind(lfd, (struct sockaddr *)&s, l) || listen(lfd, 4) ||
	    getsockname(lfd, (struct sockaddr *)&s, &l) || connect(cfd, (struct sockaddr *)&s, l))
		fail("connection with TCP-AO keys");
	int afd = accept(lfd, NULL, NULL);
	if (afd < 0 || write(cfd, "ping", 4) != 4 || read_exact(afd, buf, 4, -1) || memcmp(buf, "ping", 4))
		fail("exchange");

	test_daemon();
	test_waitsig();

	if (write(cfd, "more", 4) != 4 || read_exact(afd, buf, 4, -1) || memcmp(buf, "more", 4) ||
	    write(afd, "back", 4) != 4 || read_exact(cfd, buf, 4, -1) || memcmp(buf, "back", 4))
		fail("no data over the connection after the refused dump");
	pass();
	return 0;
}
