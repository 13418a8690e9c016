/* A listening unix socket holding a connection not accepted yet whose client has closed its end after
 * sending data: the data can only be read by accepting, which the dump must not do, so the dump refuses it
 * with one line saying so (it said "from socket:[0] outside the dumped tree", as if the client lived
 * elsewhere), and the tree goes on unchanged: the connection is still there with its data.
 * sk_unix_listen_gone_client_ext (GONE_EXT): dumped with --ext-unix-sk, the connection is dropped, as one
 * from a client outside the tree is, and the dump says so on stderr; after restore the listener has no
 * pending connection and still takes new ones. */
#include <stdio.h>
#include "sk_unix.h"

enum { L = 70, C = 71 };

int main(int argc, char **argv)
{
	char name[64];
	struct sockaddr_un a;
	socklen_t al;

	test_init(argc, argv);
	snprintf(name, sizeof(name), "@zdtm-sk-lgone-%d", getpid());
	al = sk_bound(L, SOCK_STREAM, name, 4, &a);
	sk_connect_to(C, SOCK_STREAM, &a, al);
	if (sk_send(C, "bye", 3))
		fail("send");
	close(C);
	test_daemon();
	test_waitsig();

#ifndef GONE_EXT
	int s = accept(L, NULL, NULL);
	if (s < 0)
		fail("the pending connection is gone");
	else if (sk_expect(s, "bye", 3))
		fail("the pending connection lost its data");
#else
	fcntl(L, F_SETFL, O_NONBLOCK);
	if (accept(L, NULL, NULL) >= 0 || errno != EAGAIN)
		fail("the dropped connection is still pending");
	sk_connect_to(C, SOCK_STREAM, &a, al);
	int s = accept(L, NULL, NULL);
	if (s < 0 || sk_send(C, "hi", 2) || sk_expect(s, "hi", 2))
		fail("the listener does not take new connections");
#endif
	return test_pass();
}
