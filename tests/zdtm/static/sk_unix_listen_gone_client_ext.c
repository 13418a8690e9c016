/* sk_unix_listen_gone_client dumped with --ext-unix-sk: the pending connection whose client closed its end is
 * dropped, as one from a client outside the tree is, and the dump says so on stderr; after restore the
 * listener has no pending connection and still takes new ones. */
#include <stdio.h>
#include "sk_unix.h"

enum { L = 70, C = 71 };

int main(int argc, char **argv)
{
	char name[64];
	struct sockaddr_un a;
	socklen_t al;

	test_init(argc, argv);
	snprintf(name, sizeof(name), "@zdtm-sk-lgonex-%d", getpid());
	al = sk_bound(L, SOCK_STREAM, name, 4, &a);
	sk_connect_to(C, SOCK_STREAM, &a, al);
	if (sk_send(C, "bye", 3))
		fail("send");
	close(C);
	test_daemon();
	test_waitsig();

	fcntl(L, F_SETFL, O_NONBLOCK);
	if (accept(L, NULL, NULL) >= 0 || errno != EAGAIN)
		fail("the dropped connection is still pending");
	sk_connect_to(C, SOCK_STREAM, &a, al);
	int s = accept(L, NULL, NULL);
	if (s < 0 || sk_send(C, "hi", 2) || sk_expect(s, "hi", 2))
		fail("the listener does not take new connections");
	return test_pass();
}
