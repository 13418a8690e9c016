/* Unix sockets with abstract names: a stream listener and a dgram socket (with a message queued from a
 * client bound to another abstract name). After restore the names are the same, the listener accepts new
 * connections, the message comes back with its sender's abstract address, and sending to the dgram name
 * works. */
#include <stdio.h>
#include "sk_unix.h"

enum { L = 60, S = 61, C = 62 };

int main(int argc, char **argv)
{
	char ln[64], sn[64], cn[64];
	struct sockaddr_un a, from;
	socklen_t al, fl;

	test_init(argc, argv);
	snprintf(ln, sizeof(ln), "@zdtm-sk-abs-listen-%d", getpid());
	snprintf(sn, sizeof(sn), "@zdtm-sk-abs-dgram-%d", getpid());
	snprintf(cn, sizeof(cn), "@zdtm-sk-abs-client-%d", getpid());
	sk_bound(L, SOCK_STREAM, ln, 2, &a);
	al = sk_bound(S, SOCK_DGRAM, sn, 0, &a);
	struct sockaddr_un ca;
	socklen_t cal = sk_bound(C, SOCK_DGRAM, cn, 0, &ca);
	if (sendto(C, "abstract", 8, 0, (struct sockaddr *)&a, al) != 8)
		fail("client");
	test_daemon();
	test_waitsig();

	if (!sk_named(L, ln, 0) || !sk_named(S, sn, 0) || !sk_named(C, cn, 0))
		fail("abstract names changed");
	char buf[16] = {0};
	fl = sizeof(from);
	if (recvfrom(S, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl) != 8 ||
	    memcmp(buf, "abstract", 8))
		fail("queued message '%s'", buf);
	else if (fl != cal ||
		 memcmp(from.sun_path, ca.sun_path, cal - offsetof(struct sockaddr_un, sun_path)))
		fail("queued message: not from %s", cn);
	if (sendto(C, "x", 1, 0, (struct sockaddr *)&a, al) != 1 || sk_expect_msg(S, "x", 1))
		fail("send to the abstract dgram name");
	int c = socket(AF_UNIX, SOCK_STREAM, 0);
	al = sk_addr(ln, &a);
	int s = connect(c, (struct sockaddr *)&a, al) ? -1 : accept(L, NULL, NULL);
	if (s < 0 || sk_send(s, "ok", 2) || sk_expect(c, "ok", 2))
		fail("connect to the abstract listener");
	return test_pass();
}
