/* A listening unix socket holding a connection not accepted yet whose client has closed its end after
 * sending data: the data can only be read by accepting, which the dump must not do, so the dump refuses it
 * with one line saying so (it said "from socket:[0] outside the dumped tree", as if the client lived
 * elsewhere), and the tree goes on unchanged: the connection is still there with its data. */
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

	int s = accept(L, NULL, NULL);
	if (s < 0)
		fail("the pending connection is gone");
	else if (sk_expect(s, "bye", 3))
		fail("the pending connection lost its data");
	return test_pass();
}
