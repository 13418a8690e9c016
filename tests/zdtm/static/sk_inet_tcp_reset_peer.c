/* A TCP connection whose peer is gone, as CRIU's socket-tcp-reseted: in a network namespace of its own, the
 * client sends 3 bytes, an nftables rule answers what comes to the server's port with a TCP reset, the
 * server sends 5 bytes: the client's ACK of them is answered with a reset, the client socket is closed
 * (reset), the server's 5 bytes stay unacknowledged; the rule is removed. After restore (--tcp-established)
 * the server reads the 3 bytes, and writing fails at once: the restored socket's probe reaches the closed
 * client port, whose reset ends the connection; before, the probe left repair mode behind the network lock
 * and was dropped, and the reset came only with the retransmission, a second or more later. A task left
 * running (its network namespace the same, SO_NETNS_COOKIE) is not checked further. */
#include "sk_tcp_netns.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

/* the network namespace's cookie, never used again (an inode number may be) */
static uint64_t netns_cookie(int sk)
{
	uint64_t c = 0;
	socklen_t l = sizeof(c);
	if (getsockopt(sk, SOL_SOCKET, SO_NETNS_COOKIE, &c, &l))
		fail("SO_NETNS_COOKIE");
	return c;
}

int main(int argc, char **argv)
{
	struct sockaddr_in s;
	char buf[16];
	/* the server retransmits late (rto_min, no tail loss probe): it must not learn before the dump that
	 * the client is gone */
	int clt,
	    fd = tcp_netns_pair(argc, argv,
				"ip route replace local 127.0.0.1 dev lo table local proto kernel scope host "
				"src 127.0.0.1 rto_min 60s && echo 0 > /proc/sys/net/ipv4/tcp_early_retrans",
				&s, &clt);
	if (write(clt, "asd", 3) != 3)
		fail("client write");
	nsw_must("nft add table ip rst");
	nsw_must("nft add chain ip rst in '{ type filter hook input priority 0; }'");
	nsw_must("nft add rule ip rst in tcp dport %u reject with tcp reset", ntohs(s.sin_port));
	if (write(fd, "asdas", 5) != 5)
		fail("server write");
	tcp_must_reach(clt, TCP_CLOSE, "client");
	nsw_must("nft delete table ip rst");
	sleep(1);
	if (tcp_state(fd) != TCP_ESTABLISHED)
		fail("the server learnt before the dump that the client is gone (state %d)", tcp_state(fd));

	uint64_t net = netns_cookie(fd);

	test_daemon();
	test_waitsig();

	if (read(fd, buf, sizeof(buf)) != 3)
		fail("the 3 bytes are not read");
	/* not restored (mode nocr, a dump that left us running: the connection left repair mode without a
	 * probe): the server learns at its next retransmission only, 60 s away */
	if (netns_cookie(fd) == net)
		return test_pass();
	if (write(fd, buf, 3) != -1)
		fail("a write to the connection whose peer is gone worked (server state %d)", tcp_state(fd));
	return test_pass();
}
