/* Shutdown state of unix sockets: a stream pair whose A end shut down writing (B reads the queued data, then
 * EOF; B can still send to A), a stream pair whose C end shut down reading (D's send fails with EPIPE, C
 * still sends to D), a seqpacket pair shut down both ways, and a stream socket whose peer was closed with
 * data left (the data, then EOF; send fails with EPIPE). The same after restore. */
#include "sk_unix.h"

enum { A = 40, B = 41, C = 42, D = 43, E = 44, F = 45, G = 46, X = 47 };

static int is_eof(int fd)
{
	char c;
	return recv(fd, &c, 1, MSG_DONTWAIT) == 0;
}

static int epipe(int fd)
{
	return send(fd, "z", 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && errno == EPIPE;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	sk_pair(SOCK_STREAM, A, B);
	sk_pair(SOCK_STREAM, C, D);
	sk_pair(SOCK_SEQPACKET, E, F);
	sk_pair(SOCK_STREAM, G, X);
	if (sk_send(A, "before shutdown", 15) || shutdown(A, SHUT_WR) || shutdown(C, SHUT_RD) ||
	    shutdown(E, SHUT_RDWR))
		fail("setup");
	if (sk_send(X, "last words", 10))
		fail("send x");
	close(X);
	test_daemon();
	test_waitsig();

	if (sk_expect(B, "before shutdown", 15) || !is_eof(B))
		fail("B: not the queued data then EOF");
	if (!epipe(A))
		fail("A: sending after SHUT_WR does not fail with EPIPE");
	if (sk_send(B, "back", 4) || sk_expect(A, "back", 4))
		fail("B -> A does not work any more");
	if (!epipe(D))
		fail("D: sending to a peer shut down for reading does not fail with EPIPE");
	if (sk_send(C, "cd", 2) || sk_expect(D, "cd", 2))
		fail("C -> D does not work any more");
	if (!is_eof(E) || !is_eof(F) || !epipe(E) || !epipe(F))
		fail("seqpacket pair: not shut down both ways");
	if (sk_expect(G, "last words", 10) || !is_eof(G) || !epipe(G))
		fail("G: not its data, then EOF and EPIPE (peer closed)");
	return test_pass();
}
