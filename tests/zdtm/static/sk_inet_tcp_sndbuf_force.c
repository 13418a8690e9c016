/* A loopback TCP connection (both ends in the test) whose sender's SO_SNDBUF was forced to twice
 * net.core.wmem_max (SO_SNDBUFFORCE) and whose receiver does not read: the sender's queue holds more than
 * the plain SO_SNDBUF could ever make room for (twice wmem_max). After C/R (--tcp-established) SO_SNDBUF
 * reads as before and every byte arrives, in order. In a user namespace (modes uns, cuns) or as a user the
 * test cannot force it (the kernel wants CAP_NET_ADMIN over the host): the host agent does (sk_priv_force.h).
 * Before, a tree born in its user namespace (mode cuns) could not have the buffer back, and the restore
 * failed after the dump had killed it: "restore the unsent data (... bytes): Resource temporarily
 * unavailable". */
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include "zdtmtst.h"
#include "sk_priv_force.h"

#define CHUNK 65536

static uint8_t pat(uint64_t i)
{
	return (uint8_t)(i ^ (i >> 8) ^ (i >> 16) ^ 0x5a);
}

static int outq(int fd)
{
	int n = -1;
	ioctl(fd, SIOCOUTQ, &n);
	return n;
}

/* Send the pattern until the queue takes no more (the receiver does not read). */
static uint64_t fill(int fd)
{
	static uint8_t buf[CHUNK];
	uint64_t sent = 0;
	for (int idle = 0; idle < 20;) {
		for (size_t i = 0; i < CHUNK; i++)
			buf[i] = pat(sent + i);
		ssize_t n = send(fd, buf, CHUNK, MSG_DONTWAIT);
		if (n > 0) {
			sent += (uint64_t)n;
			idle = 0;
			continue;
		}
		if (n < 0 && errno != EAGAIN)
			fail("send");
		idle++;
		usleep(10000);
	}
	return sent;
}

/* Read sent bytes on rfd, each the pattern's. */
static int drain(int rfd, uint64_t sent)
{
	static uint8_t buf[CHUNK];
	uint64_t got = 0;
	while (got < sent) {
		struct pollfd p = {.fd = rfd, .events = POLLIN};
		if (poll(&p, 1, 30000) != 1) {
			fail("no data after byte %llu of %llu", (unsigned long long)got,
			     (unsigned long long)sent);
			return -1;
		}
		ssize_t n = recv(rfd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n <= 0) {
			fail("recv at byte %llu of %llu", (unsigned long long)got, (unsigned long long)sent);
			return -1;
		}
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != pat(got + (uint64_t)i)) {
				fail("byte %llu differs", (unsigned long long)(got + (uint64_t)i));
				return -1;
			}
		got += (uint64_t)n;
	}
	if (recv(rfd, buf, 1, MSG_DONTWAIT) != -1 || errno != EAGAIN) {
		fail("more than the %llu bytes sent", (unsigned long long)sent);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int tool = sk_force_tool(argc, argv);
	if (tool >= 0)
		return tool;
	test_init(argc, argv);
	char *s = NULL;
	if (read_file("/proc/sys/net/core/wmem_max", &s) < 0)
		fail("read net.core.wmem_max");
	int wmax = atoi(s);
	free(s);

	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || c < 0 || bind(l, (struct sockaddr *)&a, al) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &al) || connect(c, (struct sockaddr *)&a, al))
		fail("loopback connection");
	int r = accept(l, NULL, NULL);
	if (r < 0 || close(l))
		fail("accept");
	if (sk_force(c, SOL_SOCKET, SO_SNDBUFFORCE, 2 * wmax))
		fail("SO_SNDBUFFORCE %d", 2 * wmax);
	int sb0 = sk_getint(c, SOL_SOCKET, SO_SNDBUF);
	if (sb0 != 4 * wmax)
		fail("SO_SNDBUF %d, want %d", sb0, 4 * wmax);
	uint64_t sent = fill(c);
	int q0 = outq(c);
	test_msg("SO_SNDBUF %d, %llu bytes sent, %d in the send queue (net.core.wmem_max %d)\n", sb0,
		 (unsigned long long)sent, q0, wmax);
	if (q0 <= 2 * wmax)
		fail("send queue %d: not above twice net.core.wmem_max (%d)", q0, 2 * wmax);
	if (fcntl(c, F_SETFL, O_NONBLOCK))
		fail("O_NONBLOCK");

	test_daemon();
	test_waitsig();

	int sb1 = sk_getint(c, SOL_SOCKET, SO_SNDBUF), q1 = outq(c);
	test_msg("after restore: SO_SNDBUF %d, %d in the send queue\n", sb1, q1);
	if (sb1 != sb0)
		fail("SO_SNDBUF %d, was %d", sb1, sb0);
	if (drain(r, sent))
		return 1;
	for (int i = 0; i < 3000 && outq(c) > 0; i++)
		usleep(10000);
	if (outq(c))
		fail("%d bytes still in the send queue after the peer read all", outq(c));
	pass();
	return 0;
}
