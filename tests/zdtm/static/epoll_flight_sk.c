/* An epoll instance (fd 5) whose target is a unix socket only in flight: one end of a socketpair (fd 6,
 * with 2 bytes queued from its peer, fd 7, which the task keeps) is added (EPOLLIN, data 7), sent over
 * another socketpair the task keeps and closed. After restore the set still lists it (fdinfo) and reports
 * it ready; once the socket is received and its bytes read, the set reports nothing; once the peer writes
 * again, it reports it again (the socket in flight, not a copy). */
#include <stdint.h>
#include "sk_unix.h"

enum { A = 21, B = 22 };

int main(int argc, char **argv)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 7};
	char buf[8], before[256], after[256];
	int n = 0, fd = -1;

	test_init(argc, argv);
	sk_pair(SOCK_STREAM, A, B);
	sk_place_new(epoll_create1(0), 5);
	sk_pair(SOCK_STREAM, 6, 7);
	if (sk_send(7, "hi", 2) || epoll_ctl(5, EPOLL_CTL_ADD, 6, &ev) ||
	    sk_send_fds(A, "sk", 2, (int[]){6}, 1))
		fail("epoll_ctl / sendmsg");
	close(6);
	if (epoll_tfds(5, before, sizeof(before)) != 1)
		fail("fdinfo lists %s", before);
	test_daemon();
	test_waitsig();

	if (epoll_tfds(5, after, sizeof(after)) < 0 || strcmp(before, after))
		fail("interest list: '%s', want '%s'", after, before);
	if (!sk_ep_is(5, 1))
		fail("the socket in flight is not reported ready");
	if (sk_recv_fds(B, buf, sizeof(buf), &fd, &n, NULL) != 2 || n != 1)
		fail("the socket in flight is lost");
	if (n == 1 && sk_expect(fd, "hi", 2))
		fail("the socket in flight lost its queued bytes");
	if (!sk_ep_is(5, 0))
		fail("the epoll set reports the socket whose bytes were read: not the same");
	if (sk_send(7, "x", 1) || !sk_ep_is(5, 1))
		fail("the epoll set does not report the socket its peer wrote to");
	return test_pass();
}
