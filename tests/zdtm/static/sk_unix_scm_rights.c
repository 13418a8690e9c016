/* A unix socket with a file in flight that crshim cannot make outside a process's fd table (SCM_RIGHTS: an
 * epoll instance, fd 5, sent and not received yet; files that can be made are in sk_unix_scm_rights_file and
 * others): the dump must fail with one line naming the fd (12), the socket, the kind and the task, and the
 * task keeps running with its state (the epoll fd still arrives and still watches its eventfd). Run by
 * tests/zdtm/fd_unsupported.sh (skipped by the C/R modes). */
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include "sk_unix.h"

enum { A = 11, B = 12 };

int main(int argc, char **argv)
{
	char buf[8];
	struct epoll_event ev = {.events = EPOLLIN};
	int n = 0, fd = -1;

	test_init(argc, argv);
	sk_pair(SOCK_STREAM, A, B);
	int ep = epoll_create1(0), efd = eventfd(1, 0);
	if (ep < 0 || efd < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev))
		fail("epoll");
	if (sk_send_fds(A, "fd", 2, &ep, 1))
		fail("sendmsg");
	close(ep);
	test_daemon();
	test_waitsig();

	if (sk_recv_fds(B, buf, sizeof(buf), &fd, &n, NULL) != 2 || n != 1)
		fail("the fd in flight is lost");
	if (n == 1 && epoll_wait(fd, &ev, 1, 0) != 1)
		fail("the fd received is not the epoll instance");
	return test_pass();
}
