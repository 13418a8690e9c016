/* A stream socketpair (fds 10, 11; 11 non-blocking and close-on-exec) with data queued both ways, written
 * in several sends: after restore both fds are still one connected stream pair (unnamed), flags kept, the
 * queued bytes read back exactly once each way, and new data flows both ways. */
#include "sk_unix.h"

enum { A = 10, B = 11 };

int main(int argc, char **argv)
{
	char ab[3000], ba[700];
	int fl[2], fdfl[2];

	test_init(argc, argv);
	datagen(ab, sizeof(ab), 1);
	datagen(ba, sizeof(ba), 2);
	sk_pair(SOCK_STREAM, A, B);
	fcntl(B, F_SETFL, O_NONBLOCK);
	fcntl(B, F_SETFD, FD_CLOEXEC);
	for (size_t i = 0; i < sizeof(ab); i += 1000)
		if (sk_send(A, ab + i, 1000))
			fail("send a->b");
	if (sk_send(B, ba, 300) || sk_send(B, ba + 300, 400))
		fail("send b->a");
	fl[0] = fcntl(A, F_GETFL), fl[1] = fcntl(B, F_GETFL);
	fdfl[0] = fcntl(A, F_GETFD), fdfl[1] = fcntl(B, F_GETFD);
	test_daemon();
	test_waitsig();

	if (sk_type(A) != SOCK_STREAM || sk_type(B) != SOCK_STREAM)
		fail("not stream sockets any more");
	if (fcntl(A, F_GETFL) != fl[0] || fcntl(B, F_GETFL) != fl[1] || fcntl(A, F_GETFD) != fdfl[0] ||
	    fcntl(B, F_GETFD) != fdfl[1])
		fail("flags changed");
	if (!sk_named(A, "", 0) || !sk_named(B, "", 0) || !sk_named(A, "", 1))
		fail("names of an unnamed pair");
	if (sk_expect(B, ab, sizeof(ab)) || !sk_empty(B))
		fail("a->b: the queued data is not there once and exactly");
	if (sk_expect(A, ba, sizeof(ba)) || !sk_empty(A))
		fail("b->a: the queued data is not there once and exactly");
	if (sk_send(A, "ping", 4) || sk_expect(B, "ping", 4) || sk_send(B, "pong", 4) ||
	    sk_expect(A, "pong", 4))
		fail("the pair does not carry data any more");
	return test_pass();
}
