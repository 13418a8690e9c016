/* Out-of-band bytes on connections not accepted yet: a client in the task connects to a listener of the
 * task and sends OOB 'x' before it is accepted (the byte waits in the new socket of the listener's queue,
 * which only accept() reaches: no peek of the dump can read it). The dump must fail with one line and the
 * test keep running, its queue unchanged: accepted, the connection has OOB 'x' at the mark (SIOCATMARK,
 * recv(MSG_OOB)). The same holds for any data sent before the accept().
 */
#include <stdio.h>
#include "sk_unix.h"

enum { L = 70, C = 71 };

int main(int argc, char **argv)
{
	char name[64], c = 0;
	struct sockaddr_un a;

	test_init(argc, argv);
	sk_need_oob();
	snprintf(name, sizeof(name), "@zdtm-sk-oobp-%d", getpid());
	socklen_t al = sk_bound(L, SOCK_STREAM, name, 4, &a);
	sk_connect_to(C, SOCK_STREAM, &a, al);
	sk_put(C, "x", MSG_OOB);
	test_daemon();
	test_waitsig();

	int s = accept(L, NULL, NULL);
	if (s < 0)
		fail("the pending connection is gone");
	if (sk_atmark(s) != 1 || recv(s, &c, 1, MSG_OOB | MSG_DONTWAIT) != 1 || c != 'x')
		fail("no OOB 'x' at the mark of the accepted connection (c %#x)", (unsigned char)c);
	return test_pass();
}
