/* A TCP connection in LAST_ACK behind a drop rule of the program's own, as CRIU's socket-tcp-closed-last-ack:
 * in a network namespace of its own, the client shuts down writing, an nftables rule (table ip, base chain at
 * input) drops what comes to the server's port, the server shuts down writing; the client takes the server's
 * FIN (its socket closed, TIME_WAIT), its ACK is dropped: the server stays in LAST_ACK. The restore makes the
 * rule again with the namespace, and must still give the server socket the client's FIN (a packet to the
 * dropped port: the lock's accept does not stop another table's drop; before, the restore failed, "the peer's
 * FIN was not taken"). After restore (--tcp-established): the server in LAST_ACK, no rule of crshim's left
 * in the ruleset; the rule removed, both read the end of the stream, writes fail, the addresses kept. */
#include "sk_tcp_netns.h"

int main(int argc, char **argv)
{
	struct sockaddr_in s, a, b;
	socklen_t l;
	char c;
	int clt, fd = tcp_netns_pair(argc, argv, NULL, &s, &clt);
	if (shutdown(clt, SHUT_WR))
		fail("client shutdown");
	tcp_must_reach(fd, TCP_CLOSE_WAIT, "server");
	nsw_must("nft add table ip lastack");
	nsw_must("nft add chain ip lastack in '{ type filter hook input priority 0; }'");
	nsw_must("nft add rule ip lastack in tcp dport %u drop", ntohs(s.sin_port));
	if (shutdown(fd, SHUT_WR))
		fail("server shutdown");
	tcp_must_reach(fd, TCP_LAST_ACK, "server");
	tcp_must_reach(clt, TCP_CLOSE, "client");
	l = sizeof(a);
	if (getsockopt(clt, SOL_SOCKET, SO_PEERNAME, &a, &l) || getsockname(clt, (struct sockaddr *)&b, &l))
		fail("client names");

	test_daemon();
	test_waitsig();

	if (tcp_state(fd) != TCP_LAST_ACK)
		fail("server socket in state %d, not LAST_ACK", tcp_state(fd));
	char *rs = nsw_out("nft list ruleset", NULL);
	if (!strstr(rs, "lastack") || strstr(rs, "crshim"))
		fail("the ruleset after restore:\n%s", rs);
	free(rs);
	nsw_must("nft delete table ip lastack");
	if (read(fd, &c, 1) != 0 || read(clt, &c, 1) != 0)
		fail("the end of the stream is not read");
	if (write(clt, &c, 1) != -1 || write(fd, &c, 1) != -1)
		fail("a write after shutdown worked");
	struct sockaddr_in a2, b2;
	l = sizeof(a2);
	if (getsockopt(clt, SOL_SOCKET, SO_PEERNAME, &a2, &l) ||
	    getsockname(clt, (struct sockaddr *)&b2, &l) || memcmp(&a, &a2, sizeof(a)) ||
	    memcmp(&b, &b2, sizeof(b)))
		fail("the client's addresses changed");
	return test_pass();
}
