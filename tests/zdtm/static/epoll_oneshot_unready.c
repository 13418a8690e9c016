/* An EPOLLONESHOT entry that has fired (disarmed) on a pipe's read end whose byte was read since: its file is
 * ready for no event, so the restore could not make the entry disarmed again (it fires it once on purpose):
 * the dump must fail with one line and the test keep running, the entry still disarmed (a hangup wakes
 * nothing). Before, the dump passed and the restore armed it for EPOLLERR|EPOLLHUP. */
#include <stdint.h>
#include <sys/epoll.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	int p[2];
	char c;

	test_init(argc, argv);
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT, .data.u64 = 7};
	if (ep < 0 || pipe(p) || epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev))
		return fail("setup"), 1;
	if (write(p[1], "x", 1) != 1 || epoll_ready(ep) != 7 || read(p[0], &c, 1) != 1)
		return fail("fire"), 1;

	test_daemon();
	test_waitsig();

	close(p[1]);
	if (epoll_ready(ep))
		fail("the pipe hung up: the disarmed entry fired");
	pass();
	return 0;
}
