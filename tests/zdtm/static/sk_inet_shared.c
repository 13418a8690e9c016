/* Sockets shared by a parent and its child (inherited through fork, like a pre-forking server): a TCP
 * listener and a bound UDP socket. After restore both processes still hold one socket each (kcmp says
 * the same open file description), the listener accepts in the child a connection made by the parent,
 * and a datagram sent to the UDP port arrives. */
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

static int bound(int type, struct sockaddr_in *a)
{
	socklen_t l = sizeof(*a);
	int fd = socket(AF_INET, type, 0);
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)a, l) || getsockname(fd, (struct sockaddr *)a, &l))
		fail("bound socket");
	return fd;
}

/* the child: on SIGUSR1 accept one connection on lfd and answer "child" */
static int child(void *arg)
{
	int c = accept(*(int *)arg, NULL, NULL);
	return c < 0 || write(c, "child", 5) != 5 ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in la, ua;
	char buf[8];
	int st;
	test_init(argc, argv);
	int lfd = bound(SOCK_STREAM, &la), ufd = bound(SOCK_DGRAM, &ua);
	if (listen(lfd, 8))
		fail("listen");
	pid_t pid = tree_fork_waiting(child, &lfd);

	test_daemon();
	test_waitsig();

	if (!tree_same_file(pid, lfd))
		fail("the listener is not one socket of parent and child any more");
	if (!tree_same_file(pid, ufd))
		fail("the UDP socket is not one socket of parent and child any more");
	int c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&la, sizeof(la)))
		fail("connect to the shared listener");
	st = tree_waiting_go(pid);
	if (read(c, buf, 5) != 5 || memcmp(buf, "child", 5))
		fail("the child did not accept on the shared listener");
	if (st)
		fail("child exit status %#x", st);
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	if (sendto(u, "dgram", 5, 0, (struct sockaddr *)&ua, sizeof(ua)) != 5 || recv(ufd, buf, 5, 0) != 5 ||
	    memcmp(buf, "dgram", 5))
		fail("no datagram on the shared UDP socket");
	pass();
	return 0;
}
