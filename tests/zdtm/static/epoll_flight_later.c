/* An epoll instance the parent holds (its fd table) whose target is only in flight in a child's socket
 * (the child is dumped after the parent): the parent adds an eventfd (counter 1, fd 5) to an epoll instance
 * and forks; the child sends the eventfd over a socketpair of its own and closes it; the parent closes fd 5.
 * When the parent's files are written crshim has not seen the child's queue: the dump must fail with one
 * line naming the epoll fd and the target's fd number (.desc dump-expect) instead of dropping the entry; the
 * tree keeps running (the set reports the eventfd until the child receives and reads it). */
#include <stdint.h>
#include "sk_unix.h"

enum { C = 23, D = 24, EP = 40 };

int main(int argc, char **argv)
{
	int ctl[2], ack[2], ep;
	char c;

	test_init(argc, argv);
	sk_epoll_efd(&ep, ctl, ack);
	sk_place(ep, EP, 0);
	pid_t pid = test_fork();
	if (pid == 0) /* sends the eventfd to itself; told, receives and reads it */
		sk_child_efd(C, D, EP, ctl[0], ack[1]);
	close(ctl[0]); /* (a child that fails ends the parent's reads) */
	close(ack[1]);
	close(5);
	if (read(ack[0], &c, 1) != 1)
		fail("the child did not send");
	test_daemon();
	test_waitsig();

	if (!sk_ep_is(EP, 1))
		fail("the epoll instance does not report the child's eventfd");
	sk_go(ctl[1], ack[0], "the child did not receive its eventfd");
	if (!sk_ep_is(EP, 0))
		fail("the epoll instance reports the eventfd the child read");
	child_exit_ok(pid, NULL);
	return test_pass();
}
