/* A unix dgram socket bound to an abstract name with three messages queued: from a client bound to another
 * abstract name that was closed since, from a bound client that is still open (connected to the server),
 * and from an unnamed client, closed too. After restore the messages come back in order, each with the
 * address of its sender as recvfrom() gave it before: the closed client's name, the open one's, none. The
 * closed client's name is free again (a new socket can bind it). Before: the message of the closed client
 * came from an unnamed socket (CRIU's socket_snd_addr: "A sender address is mismatch"). */
#include <stdio.h>
#include "sk_unix.h"

enum { S = 60, B = 61 };

int main(int argc, char **argv)
{
	char sn[64], an[64], bn[64];
	struct sockaddr_un sa, a;

	test_init(argc, argv);
	snprintf(sn, sizeof(sn), "@zdtm-sk-gone-srv-%d", getpid());
	snprintf(an, sizeof(an), "@zdtm-sk-gone-a-%d", getpid());
	snprintf(bn, sizeof(bn), "@zdtm-sk-gone-b-%d", getpid());
	socklen_t sal = sk_bound(S, SOCK_DGRAM, sn, 0, &sa);
	int ca = socket(AF_UNIX, SOCK_DGRAM, 0);
	socklen_t al = sk_addr(an, &a);
	if (ca < 0 || bind(ca, (struct sockaddr *)&a, al) ||
	    sendto(ca, "one", 3, 0, (struct sockaddr *)&sa, sal) != 3)
		fail("closed client");
	close(ca);
	sk_bound(B, SOCK_DGRAM, bn, 0, &a);
	if (connect(B, (struct sockaddr *)&sa, sal) || send(B, "two", 3, 0) != 3)
		fail("open client");
	int cu = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (cu < 0 || sendto(cu, "three", 5, 0, (struct sockaddr *)&sa, sal) != 5)
		fail("unnamed client");
	close(cu);
	test_daemon();
	test_waitsig();

	sk_expect_from(S, "one", an);
	sk_expect_from(S, "two", bn);
	sk_expect_from(S, "three", "");
	char buf[4];
	if (recv(S, buf, sizeof(buf), MSG_DONTWAIT) != -1 || errno != EAGAIN)
		fail("more messages than sent");
	int again = socket(AF_UNIX, SOCK_DGRAM, 0);
	al = sk_addr(an, &a);
	if (again < 0 || bind(again, (struct sockaddr *)&a, al))
		fail("the closed client's name is not free: %m");
	pass();
	return 0;
}
