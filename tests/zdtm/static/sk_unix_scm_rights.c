/* An epoll instance in flight (SCM_RIGHTS, fd 5 sent and closed) whose target is itself only in flight: its
 * eventfd (fd 6, counter 1) goes in the same message and is closed too. After restore both arrive: the
 * epoll instance has the same interest list (fdinfo), reports the eventfd it came with, and nothing once
 * that eventfd is read (the target is the file received, not a copy). */
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include "sk_unix.h"

enum { A = 11, B = 12 };

int main(int argc, char **argv)
{
	char buf[8], before[512], after[512];
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 7};
	int n = 0, fds[2] = {-1, -1};
	uint64_t v = 0;

	test_init(argc, argv);
	sk_pair(SOCK_STREAM, A, B);
	sk_place_new(epoll_create1(0), 5);
	sk_place_new(eventfd(1, 0), 6);
	int ep = 5, efd = 6;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev) || epoll_tfds(ep, before, sizeof(before)) != 1)
		fail("epoll");
	int sent[2] = {ep, efd};
	if (sk_send_fds(A, "fd", 2, sent, 2))
		fail("sendmsg");
	close(ep);
	close(efd);
	test_daemon();
	test_waitsig();

	if (sk_recv_fds(B, buf, sizeof(buf), fds, &n, NULL) != 2 || n != 2)
		fail("the fds in flight are lost");
	if (n == 2 && (epoll_tfds(fds[0], after, sizeof(after)) != 1 || strcmp(before, after)))
		fail("interest list: '%s', want '%s'", after, before);
	if (n == 2 && (epoll_wait(fds[0], &ev, 1, 0) != 1 || ev.data.u64 != 7))
		fail("the epoll instance received does not report its eventfd");
	if (n == 2 && (read(fds[1], &v, sizeof(v)) != sizeof(v) || v != 1 || epoll_wait(fds[0], &ev, 1, 0)))
		fail("the eventfd received is not the epoll instance's target");
	return test_pass();
}
