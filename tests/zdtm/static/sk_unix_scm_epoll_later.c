/* An epoll instance in flight in the parent's socket whose target is itself only in flight in a child's
 * socket (the child is dumped after the parent): the parent adds an eventfd (counter 1, fd 5) to an epoll
 * instance and forks; the child sends the eventfd over a socketpair of its own, the parent the epoll fd over
 * another one; both close both. When the parent's files are written, crshim has not seen the child's queue:
 * the entry cannot be written, and the dump must fail with one line naming the target's fd number and
 * the kind (.desc dump-expect) instead of dropping the entry; the tree keeps running (the parent receives the
 * epoll instance, which reports the eventfd the child then receives and reads). */
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include "sk_unix.h"

enum { A = 21, B = 22, C = 23, D = 24 };

int main(int argc, char **argv)
{
	int ctl[2], ack[2], ep, fd = -1, n = 0;
	char buf[8];

	test_init(argc, argv);
	sk_epoll_efd(&ep, ctl, ack);
	pid_t pid = test_fork();
	if (pid == 0) /* sends the eventfd to itself; once told, receives and reads it */
		sk_child_efd(C, D, ep, ctl[0], ack[1]);
	sk_parent_send(A, B, ep, ep, ctl, ack);
	test_daemon();
	test_waitsig();

	if (sk_recv_fds(B, buf, sizeof(buf), &fd, &n, NULL) != 2 || n != 1)
		fail("the epoll instance in flight is lost");
	if (n == 1 && !sk_ep_is(fd, 1))
		fail("the epoll instance does not report the child's eventfd");
	sk_go(ctl[1], ack[0], "the child did not receive its eventfd");
	if (n == 1 && !sk_ep_is(fd, 0))
		fail("the epoll instance reports the eventfd the child read");
	child_exit_ok(pid, NULL);
	return test_pass();
}
