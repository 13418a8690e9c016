/* An epoll instance (fd 5) whose target is only in flight: its eventfd (fd 6, counter 1) is sent over a
 * socketpair the task keeps and closed. crshim makes the eventfd once (it is sent into the queue again) and
 * adds it to the epoll set under fd number 6. After restore the set still lists it (fdinfo: tfd 6, events,
 * data) and reports it ready (data 7); the eventfd arrives with its counter, and once it is read the set
 * reports nothing: the target is the file in flight, not a copy. */
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include "sk_unix.h"

enum { A = 21, B = 22 };

int main(int argc, char **argv)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 7};
	int n = 0, fd = -1;
	uint64_t v = 0;
	char buf[8], before[256], after[256];

	test_init(argc, argv);
	sk_pair(SOCK_STREAM, A, B);
	sk_place_new(epoll_create1(0), 5);
	sk_place_new(eventfd(1, 0), 6);
	if (epoll_ctl(5, EPOLL_CTL_ADD, 6, &ev) || sk_send_fds(A, "ev", 2, (int[]){6}, 1))
		fail("epoll_ctl / sendmsg");
	close(6);
	if (epoll_tfds(5, before, sizeof(before)) != 1)
		fail("fdinfo lists %s", before);
	test_daemon();
	test_waitsig();

	if (epoll_tfds(5, after, sizeof(after)) < 0 || strcmp(before, after))
		fail("interest list: '%s', want '%s'", after, before);
	if (epoll_wait(5, &ev, 1, 0) != 1 || ev.data.u64 != 7)
		fail("the eventfd in flight is not reported ready");
	if (sk_recv_fds(B, buf, sizeof(buf), &fd, &n, NULL) != 2 || n != 1)
		fail("the eventfd in flight is lost");
	if (n == 1 && (read(fd, &v, sizeof(v)) != sizeof(v) || v != 1))
		fail("eventfd counter %llu, want 1", (unsigned long long)v);
	if (epoll_wait(5, &ev, 1, 0) != 0)
		fail("the epoll set still reports a target once the eventfd received was read: not the same");
	return test_pass();
}
