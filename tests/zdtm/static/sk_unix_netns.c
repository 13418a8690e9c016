/* Unix sockets of a task in a network namespace of its own (unshare(CLONE_NEWNET) after test_init, as
 * root): a stream socketpair with data queued both ways (fds 10, 11), a dgram socket bound to an abstract
 * name (abstract names belong to the namespace) with a message queued from an unbound socket (fds 12, 13),
 * a listener bound to a path (fd 14). The dump must read the socket table in the task's namespace (not
 * crshim's); after a --leave-running dump everything is as before: same namespace, data, names, the
 * abstract name still reached from here. After a restore (a new network namespace, ns/) the task is in a
 * namespace of its own again, not crshim's, with its sockets made inside it: the abstract name is reached
 * from the task's namespace. */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "ns_world.h"

enum { SP0 = 10, SP1 = 11, DG = 12, DGC = 13, LS = 14 };

static socklen_t abstract(struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	int n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "crshim-netns-%d", getpid());
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static ino_t netns(void)
{
	struct stat st;
	return stat("/proc/self/ns/net", &st) ? 0 : st.st_ino;
}

static void expect(int fd, const char *want, const char *what)
{
	char buf[64] = "";
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	if (n != (ssize_t)strlen(want) || memcmp(buf, want, (size_t)n))
		fail("%s: got %zd bytes '%.*s', want '%s'", what, n, (int)(n > 0 ? n : 0), buf, want);
}

int main(int argc, char **argv)
{
	struct sockaddr_un a, p = {.sun_family = AF_UNIX}, got;
	socklen_t al, gl = sizeof(got);
	int sp[2], fd;

	test_init(argc, argv);
	if (unshare(CLONE_NEWNET))
		test_skip("unshare(CLONE_NEWNET): %s", strerror(errno));
	ino_t ns = netns();
	al = abstract(&a);
	snprintf(p.sun_path, sizeof(p.sun_path), "netns.sock");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) || dup2(sp[0], SP0) != SP0 || dup2(sp[1], SP1) != SP1 ||
	    dup2(socket(AF_UNIX, SOCK_DGRAM, 0), DG) != DG || bind(DG, (struct sockaddr *)&a, al) ||
	    dup2(socket(AF_UNIX, SOCK_DGRAM, 0), DGC) != DGC ||
	    sendto(DGC, "dgram", 5, 0, (struct sockaddr *)&a, al) != 5 ||
	    dup2(socket(AF_UNIX, SOCK_STREAM, 0), LS) != LS || bind(LS, (struct sockaddr *)&p, sizeof(p)) ||
	    listen(LS, 4) || send(SP0, "ping", 4, 0) != 4 || send(SP1, "pong", 4, 0) != 4)
		fail("setup");
	close(sp[0]);
	close(sp[1]);
	test_daemon();
	test_waitsig();

	nsw_own("net", 0); /* not the host's (the host agent's: /proc/1 is us in modes ns and uns) */
	if (netns() != ns)
		test_msg("network namespace: inode %lu, was %lu (made again)\n", (unsigned long)netns(),
			 (unsigned long)ns);
	expect(SP1, "ping", "socketpair end 11");
	expect(SP0, "pong", "socketpair end 10");
	expect(DG, "dgram", "abstract dgram socket");
	if (getsockname(DG, (struct sockaddr *)&got, &gl) || gl != al || memcmp(&got, &a, al))
		fail("abstract name not kept");
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 || sendto(fd, "again", 5, 0, (struct sockaddr *)&a, al) != 5)
		fail("the abstract name is not reached from our namespace");
	expect(DG, "again", "abstract dgram socket, new message");
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&p, sizeof(p)))
		fail("connect to the path listener");
	unlink("netns.sock");
	return test_pass();
}
