/* A socket of a family crshim does not support (AF_VSOCK, fd 30) beside an O_PATH fd of a unix socket's node
 * (fd 31, a file that is opened by path again): the dump must fail with one line naming the fd, the family
 * and the task, and leave the test running with its fds. A guard of the socket kinds' order: the inet kind
 * takes only the sockets it knows to be inet ones, the last kind refuses the others (before, the inet kind
 * took every socket it did not know, O_PATH nodes excepted by dump-files.c alone). */
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

int main(int argc, char **argv)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "sk_family_unsupported.sock"};
	struct stat st;
	test_init(argc, argv);
	int vs = socket(AF_VSOCK, SOCK_STREAM, 0);
	if (vs < 0) {
		test_skip("no AF_VSOCK sockets: %m");
		return 0;
	}
	int u = socket(AF_UNIX, SOCK_STREAM, 0);
	if (u < 0 || bind(u, (struct sockaddr *)&a, sizeof(a)))
		fail("bind a unix socket");
	close(u);
	int node = open(a.sun_path, O_PATH);
	if (dup2(vs, 30) != 30 || dup2(node, 31) != 31 || close(vs) || close(node))
		fail("fds 30 and 31");
	vs = 30, node = 31;
	if (fstat(node, &st) || !S_ISSOCK(st.st_mode))
		fail("fd 31 is no socket's node");
	test_daemon();
	test_waitsig();
	if (sk_getint(vs, SOL_SOCKET, SO_DOMAIN) != AF_VSOCK || fstat(node, &st) || !S_ISSOCK(st.st_mode))
		fail("the fds changed");
	pass();
	return 0;
}
