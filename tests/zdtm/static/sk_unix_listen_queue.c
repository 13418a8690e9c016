/* A listening stream socket (backlog 8) with three connections not accepted yet, their clients in the task,
 * and one connection it accepted (data queued both ways). After restore: the backlog queue has exactly
 * three connections, accepted in the original order (each client says who it is), the accepted connection
 * still has its data and names (the server end is named like the listener, the client's peer too), and a
 * seqpacket listener with one pending connection keeps it too. */
#include <stdio.h>
#include "sk_unix.h"

enum { L = 70, C0 = 71, C1 = 72, C2 = 73, AC = 74, AS = 75, QL = 76, QC = 77 };

int main(int argc, char **argv)
{
	char name[64], qname[64];
	struct sockaddr_un a, qa;
	socklen_t al, qal;
	int cl[3] = {C0, C1, C2};

	test_init(argc, argv);
	snprintf(name, sizeof(name), "@zdtm-sk-lq-%d", getpid());
	snprintf(qname, sizeof(qname), "@zdtm-sk-lq-seq-%d", getpid());
	al = sk_bound(L, SOCK_STREAM, name, 8, &a);
	sk_connect_to(AC, SOCK_STREAM, &a, al);
	sk_place(accept(L, NULL, NULL), AS, 0);
	if (sk_send(AC, "to server", 9) || sk_send(AS, "to client", 9))
		fail("send");
	for (int i = 0; i < 3; i++)
		sk_connect_to(cl[i], SOCK_STREAM, &a, al);
	qal = sk_bound(QL, SOCK_SEQPACKET, qname, 1, &qa);
	sk_connect_to(QC, SOCK_SEQPACKET, &qa, qal);
	test_daemon();
	test_waitsig();

	if (!sk_named(AS, name, 0) || !sk_named(AC, name, 1) || !sk_named(AC, "", 0))
		fail("names of the accepted connection");
	if (sk_expect(AS, "to server", 9) || sk_expect(AC, "to client", 9))
		fail("data of the accepted connection");
	for (int i = 0; i < 3; i++) {
		char id[2] = {(char)('0' + i), 0};
		if (sk_send(cl[i], id, 1))
			fail("client %d cannot send", i);
	}
	fcntl(L, F_SETFL, O_NONBLOCK);
	for (int i = 0; i < 3; i++) {
		char id[2] = {(char)('0' + i), 0};
		int s = accept(L, NULL, NULL);
		if (s < 0)
			fail("only %d pending connections", i);
		else if (sk_expect(s, id, 1))
			fail("connection %d is not client %d's", i, i);
		close(s);
	}
	if (accept(L, NULL, NULL) >= 0 || errno != EAGAIN)
		fail("more than 3 pending connections");
	int s = accept(QL, NULL, NULL);
	if (s < 0 || sk_send(QC, "seq", 3) || sk_expect_msg(s, "seq", 3))
		fail("the seqpacket listener lost its pending connection");
	return test_pass();
}
