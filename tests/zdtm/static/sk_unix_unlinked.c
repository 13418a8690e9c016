/* Unix sockets whose socket files were removed: a listener (with a connection not accepted yet) and a
 * dgram socket (with a message queued), both bound to paths that are unlinked. After restore the names are
 * the same, the files are still gone, the pending connection is there and the message too. */
#include "sk_unix.h"

enum { L = 80, C = 81, S = 82, T = 83 };

int main(int argc, char **argv)
{
	struct sockaddr_un a;
	socklen_t al;

	test_init(argc, argv);
	sk_place(socket(AF_UNIX, SOCK_STREAM, 0), L, 0);
	al = sk_addr("gone-listen.sock", &a);
	if (bind(L, (struct sockaddr *)&a, al) || listen(L, 2))
		fail("listener");
	sk_place(socket(AF_UNIX, SOCK_STREAM, 0), C, 0);
	if (connect(C, (struct sockaddr *)&a, al))
		fail("connect");
	sk_place(socket(AF_UNIX, SOCK_DGRAM, 0), S, 0);
	al = sk_addr("gone-dgram.sock", &a);
	if (bind(S, (struct sockaddr *)&a, al))
		fail("bind");
	sk_place(socket(AF_UNIX, SOCK_DGRAM, 0), T, 0);
	if (connect(T, (struct sockaddr *)&a, al) || sk_send(T, "unlinked", 8))
		fail("send");
	if (unlink("gone-listen.sock") || unlink("gone-dgram.sock"))
		fail("unlink");
	test_daemon();
	test_waitsig();

	if (!sk_named(L, "gone-listen.sock", 0) || !sk_named(S, "gone-dgram.sock", 0))
		fail("names changed");
	if (!access("gone-listen.sock", F_OK) || !access("gone-dgram.sock", F_OK))
		fail("a socket file is back");
	if (sk_expect_msg(S, "unlinked", 8))
		fail("the queued message");
	fcntl(L, F_SETFL, O_NONBLOCK);
	int s = accept(L, NULL, NULL);
	if (s < 0 || sk_send(C, "c", 1) || sk_expect(s, "c", 1))
		fail("the pending connection");
	if (sk_send(T, "t", 1) || sk_expect_msg(S, "t", 1))
		fail("the connected dgram socket does not reach its peer");
	if (!test_failures)
		pass();
	return 0;
}
