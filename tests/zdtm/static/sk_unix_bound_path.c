/* Unix sockets bound to paths: a stream listener at an absolute path (mode 0640), a dgram server at a path
 * relative to the cwd with two messages queued (one from a client bound to its own path, one from an
 * unbound client connected to it). After restore: the names (getsockname, the sender address of the
 * queued message) are the same, the socket files are there as sockets with their mode, the queued messages
 * come back, a new client can connect to the listener, and the connected client still reaches the server. */
#include <limits.h>
#include <stdio.h>
#include "sk_unix.h"

enum { L = 50, S = 51, CB = 52, CU = 53 };

int main(int argc, char **argv)
{
	char lpath[PATH_MAX], cwd[PATH_MAX - 16];
	struct sockaddr_un a, from;
	socklen_t al, fl;

	test_init(argc, argv);
	if (!getcwd(cwd, sizeof(cwd)))
		fail("getcwd");
	snprintf(lpath, sizeof(lpath), "%s/listen.sock", cwd);
	if (strlen(lpath) >= sizeof(a.sun_path))
		test_skip("cwd too long for a socket path");
	sk_place(socket(AF_UNIX, SOCK_STREAM, 0), L, 0);
	al = sk_addr(lpath, &a);
	if (bind(L, (struct sockaddr *)&a, al) || chmod(lpath, 0640) || listen(L, 4))
		fail("listener");
	al = sk_bound(S, SOCK_DGRAM, "srv.sock", 0, &a);
	struct sockaddr_un ca;
	socklen_t cal = sk_bound(CB, SOCK_DGRAM, "cli.sock", 0, &ca);
	if (sendto(CB, "from cli", 8, 0, (struct sockaddr *)&a, al) != 8)
		fail("bound client");
	sk_connect_to(CU, SOCK_DGRAM, &a, al);
	if (send(CU, "from unbound", 12, 0) != 12)
		fail("connected client");
	test_daemon();
	test_waitsig();

	struct stat st;
	if (!sk_named(L, lpath, 0) || !sk_named(S, "srv.sock", 0) || !sk_named(CB, "cli.sock", 0))
		fail("names changed");
	if (!sk_named(CU, "srv.sock", 1))
		fail("the connected client's peer is not srv.sock");
	if (stat(lpath, &st) || !S_ISSOCK(st.st_mode) || (st.st_mode & 07777) != 0640)
		fail("%s: not a socket with mode 0640 (%o)", lpath, st.st_mode);
	if (stat("srv.sock", &st) || !S_ISSOCK(st.st_mode))
		fail("srv.sock is not a socket file");
	char buf[64] = {0};
	fl = sizeof(from);
	if (recvfrom(S, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl) != 8 ||
	    memcmp(buf, "from cli", 8))
		fail("first queued message: '%s'", buf);
	else if (fl != cal || memcmp(from.sun_path, "cli.sock", 9))
		fail("first queued message: sender is not cli.sock");
	if (sk_expect_msg(S, "from unbound", 12) || !sk_empty(S))
		fail("second queued message");
	int c = socket(AF_UNIX, SOCK_STREAM, 0);
	al = sk_addr(lpath, &a);
	if (connect(c, (struct sockaddr *)&a, al))
		fail("connect to the restored listener");
	int s = accept(L, NULL, NULL);
	if (s < 0 || sk_send(c, "hi", 2) || sk_expect(s, "hi", 2))
		fail("accept and talk over the restored listener");
	if (sk_send(CU, "again", 5) || sk_expect_msg(S, "again", 5))
		fail("the connected client does not reach the server");
	return test_pass();
}
