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
	al = sk_bound(L, SOCK_STREAM, "gone-listen.sock", 2, &a);
	sk_connect_to(C, SOCK_STREAM, &a, al);
	al = sk_bound(S, SOCK_DGRAM, "gone-dgram.sock", 0, &a);
	sk_connect_to(T, SOCK_DGRAM, &a, al);
	if (sk_send(T, "unlinked", 8))
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
	return test_pass();
}
