/* Large queues in both directions: a stream pair with 200 KiB queued each way (SO_SNDBUF raised), split
 * over many sends of odd sizes, and a seqpacket pair with 64 messages queued one way. After restore every
 * byte comes back once and in order (checked against the generator), message boundaries kept, the queues
 * are empty afterwards and the sockets still carry data. */
#include "sk_unix.h"

enum { A = 20, B = 21, C = 22, D = 23 };
#define BIG (200 * 1024)
#define NMSG 64

static void fill(int fd, const char *p, size_t len)
{
	for (size_t off = 0; off < len;) {
		size_t n = len - off < 3001 ? len - off : 3001;
		if (sk_send(fd, p + off, n))
			fail("send at %zu of %zu", off, len);
		off += n;
	}
}

int main(int argc, char **argv)
{
	static char ab[BIG], ba[BIG], msgs[NMSG][1000];
	int sz = 1024 * 1024;

	test_init(argc, argv);
	datagen(ab, BIG, 3);
	datagen(ba, BIG, 4);
	sk_pair(SOCK_STREAM, A, B);
	sk_pair(SOCK_SEQPACKET, C, D);
	for (int fd = A; fd <= D; fd++) {
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	}
	fill(A, ab, BIG);
	fill(B, ba, BIG);
	for (int i = 0; i < NMSG; i++) {
		datagen(msgs[i], (size_t)(i * 15 + 1), 100 + (uint64_t)i);
		if (sk_send(C, msgs[i], (size_t)(i * 15 + 1)))
			fail("send message %d", i);
	}
	test_daemon();
	test_waitsig();

	if (sk_expect(B, ab, BIG) || !sk_empty(B))
		fail("a->b: %d bytes not back once and exactly", BIG);
	if (sk_expect(A, ba, BIG) || !sk_empty(A))
		fail("b->a: %d bytes not back once and exactly", BIG);
	for (int i = 0; i < NMSG; i++)
		if (sk_expect_msg(D, msgs[i], (size_t)(i * 15 + 1)))
			fail("seqpacket message %d not back as it was", i);
	if (!sk_empty(D) || !sk_empty(C))
		fail("seqpacket: more than was queued");
	if (sk_send(A, "x", 1) || sk_expect(B, "x", 1) || sk_send(D, "yy", 2) || sk_expect_msg(C, "yy", 2))
		fail("no data flows after restore");
	return test_pass();
}
