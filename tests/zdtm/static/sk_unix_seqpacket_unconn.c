/* Unconnected SOCK_SEQPACKET unix sockets (one fresh, one bound) come back; they can still be bound,
 * listen and accept a connection. */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int type = 0;
	socklen_t tl = sizeof(type);
	test_init(argc, argv);
	snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "zdtm-harden-seqp-%d", getpid());
	socklen_t al = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a.sun_path + 1));
	int s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (s < 0)
		fail("socket");
	test_daemon();
	test_waitsig();
	if (getsockopt(s, SOL_SOCKET, SO_TYPE, &type, &tl) || type != SOCK_SEQPACKET)
		fail("type %d after restore", type);
	if (bind(s, (struct sockaddr *)&a, al) || listen(s, 1))
		fail("bind/listen after restore");
	int c = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&a, al))
		fail("connect");
	int x = accept(s, NULL, NULL);
	char buf[8];
	if (x < 0 || send(c, "hi", 2, 0) != 2 || recv(x, buf, sizeof(buf), 0) != 2)
		fail("accept/send");
	return test_pass();
}
