/* An epoll instance (fd 5) whose target is only in flight: its eventfd (fd 6, counter 1) is sent over a
 * socketpair the task keeps and closed. crshim finds no process holding the target and cannot make the
 * entry again: the dump must say so on stderr (.desc dump-notice). After restore the eventfd still
 * arrives with its counter and fd 5 is still an epoll instance (its list is empty after a C/R, intact
 * without one). */
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
	char buf[8];

	test_init(argc, argv);
	sk_pair(SOCK_STREAM, A, B);
	sk_place_new(epoll_create1(0), 5);
	sk_place_new(eventfd(1, 0), 6);
	if (epoll_ctl(5, EPOLL_CTL_ADD, 6, &ev) || sk_send_fds(A, "ev", 2, (int[]){6}, 1))
		fail("epoll_ctl / sendmsg");
	close(6);
	test_daemon();
	test_waitsig();

	if (sk_recv_fds(B, buf, sizeof(buf), &fd, &n, NULL) != 2 || n != 1)
		fail("the eventfd in flight is lost");
	if (n == 1 && (read(fd, &v, sizeof(v)) != sizeof(v) || v != 1))
		fail("eventfd counter %llu, want 1", (unsigned long long)v);
	if (epoll_wait(5, &ev, 1, 0) < 0)
		fail("fd 5 is not an epoll instance");
	return test_pass();
}
