/* A datagram socketpair (fds 10, 11) with messages of different sizes queued both ways (one of 60000
 * bytes, one of 1 byte): after restore every message comes back once, in order, with its boundaries
 * (each recv returns exactly one whole message), and new messages flow both ways.
 * sk_unix_pair_seqpacket.c is this test with PAIR_TYPE SOCK_SEQPACKET. */
#include "sk_unix.h"

#ifndef PAIR_TYPE
#define PAIR_TYPE SOCK_DGRAM
#define PAIR_NAME "datagram"
#endif

enum { A = 10, B = 11 };
static const size_t sizes_ab[] = {100, 1, 60000, 4096, 33}, sizes_ba[] = {7, 2000, 500};
#define N(x) (sizeof(x) / sizeof((x)[0]))

int main(int argc, char **argv)
{
	static char ab[N(sizes_ab)][60000], ba[N(sizes_ba)][2000];
	int sz = 256 * 1024;

	test_init(argc, argv);
	sk_pair(PAIR_TYPE, A, B);
	setsockopt(A, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(B, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	for (size_t i = 0; i < N(sizes_ab); i++) {
		datagen(ab[i], sizes_ab[i], 10 + i);
		if (sk_send(A, ab[i], sizes_ab[i]))
			fail("send a->b %zu", i);
	}
	for (size_t i = 0; i < N(sizes_ba); i++) {
		datagen(ba[i], sizes_ba[i], 20 + i);
		if (sk_send(B, ba[i], sizes_ba[i]))
			fail("send b->a %zu", i);
	}
	test_daemon();
	test_waitsig();

	if (sk_type(A) != PAIR_TYPE || sk_type(B) != PAIR_TYPE)
		fail("not " PAIR_NAME " sockets any more");
	for (size_t i = 0; i < N(sizes_ab); i++)
		if (sk_expect_msg(B, ab[i], sizes_ab[i]))
			fail("a->b: message %zu (%zu bytes) is not there as it was", i, sizes_ab[i]);
	for (size_t i = 0; i < N(sizes_ba); i++)
		if (sk_expect_msg(A, ba[i], sizes_ba[i]))
			fail("b->a: message %zu (%zu bytes) is not there as it was", i, sizes_ba[i]);
	if (!sk_empty(A) || !sk_empty(B))
		fail("more messages than were queued");
	if (sk_send(A, "ping", 4) || sk_expect_msg(B, "ping", 4) || sk_send(B, "pong", 4) ||
	    sk_expect_msg(A, "pong", 4))
		fail("the pair does not carry messages any more");
	return test_pass();
}
