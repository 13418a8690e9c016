/* An EPOLLONESHOT entry that has fired (disarmed), readable, in a set the test's child holds too (forked
 * after): the restore fires it once alone in its set to disarm it, which a set of several processes (each
 * adding its own targets at its time) cannot promise, so the dump must fail with one line and the tree
 * keep running, the entry still disarmed. */
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	int p[2];

	test_init(argc, argv);
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT, .data.u64 = 7};
	if (ep < 0 || pipe(p) || epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev))
		return fail("setup"), 1;
	if (write(p[1], "x", 1) != 1 || epoll_ready(ep) != 7)
		return fail("fire"), 1;
	pid_t pid = test_fork();
	if (pid == 0) {
		test_waitsig();
		_exit(epoll_ready(ep) ? 1 : 0);
	}

	test_daemon();
	test_waitsig();

	close(p[1]);
	if (epoll_ready(ep))
		fail("the pipe hung up: the disarmed entry fired");
	kill(pid, SIGTERM);
	child_exit_ok(pid, NULL);
	pass();
	return 0;
}
