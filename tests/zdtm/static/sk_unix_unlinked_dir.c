/* Unix sockets bound to paths whose socket files and directories were removed: a dgram socket with a message
 * queued at gone.d/sub/dgram.sock (relative) and a listener with a connection pending at CWD/gone.l/l.sock
 * (absolute). After restore the names are the same, the files and directories are still gone, the message
 * and the pending connection are there. */
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include "sk_unix.h"

enum { L = 80, C = 81, S = 82, T = 83 };

static void name_is(int fd, const char *want)
{
	struct sockaddr_un a;
	socklen_t al = sizeof(a);
	if (getsockname(fd, (struct sockaddr *)&a, &al) || strcmp(a.sun_path, want))
		fail("fd %d is bound to %s, want %s", fd, a.sun_path, want);
}

int main(int argc, char **argv)
{
	struct sockaddr_un a;
	socklen_t al;
	char cwd[PATH_MAX], lpath[PATH_MAX + 32], buf[16] = "";

	test_init(argc, argv);
	if (!getcwd(cwd, sizeof(cwd)) || mkdir("gone.d", 0755) || mkdir("gone.d/sub", 0755) ||
	    mkdir("gone.l", 0755))
		fail("mkdir");
	snprintf(lpath, sizeof(lpath), "%s/gone.l/l.sock", cwd);
	if (strlen(lpath) >= sizeof(a.sun_path))
		test_skip("cwd too long for a socket path");
	al = sk_bound(L, SOCK_STREAM, lpath, 2, &a);
	sk_connect_to(C, SOCK_STREAM, &a, al);
	al = sk_bound(S, SOCK_DGRAM, "gone.d/sub/dgram.sock", 0, &a);
	sk_connect_to(T, SOCK_DGRAM, &a, al);
	if (sk_send(T, "gonedir", 7))
		fail("send");
	if (unlink(lpath) || unlink("gone.d/sub/dgram.sock") || rmdir("gone.d/sub") || rmdir("gone.d") ||
	    rmdir("gone.l"))
		fail("remove");
	test_daemon();
	test_waitsig();

	name_is(L, lpath);
	name_is(S, "gone.d/sub/dgram.sock");
	if (access("gone.d", F_OK) == 0 || access("gone.l", F_OK) == 0)
		fail("the removed directories are back");
	if (recv(S, buf, sizeof(buf), MSG_DONTWAIT) != 7 || memcmp(buf, "gonedir", 7))
		fail("the queued message is lost (%s)", buf);
	int c = accept(L, NULL, NULL);
	if (c < 0)
		fail("the pending connection is lost");
	if (write(C, "x", 1) != 1 || read(c, buf, 1) != 1 || buf[0] != 'x')
		fail("the connection does not carry data");
	pass();
	return 0;
}
