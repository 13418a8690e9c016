/* Dumped while asleep in I/O waits with long timeouts: the main thread in ppoll() on an empty pipe, one
 * thread in epoll_wait() on an eventfd, one in select() on another pipe. After restore none of them
 * returns early; SIGTERM ends ppoll with EINTR, and then the eventfd and the pipe are made ready: each
 * thread wakes with exactly its fd ready. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { PR = 20, PW = 21, EV = 22, EP = 23, SR = 24, SW = 25 };
static volatile int ready_ep, ready_sel, woke_ep, woke_sel;

static void *ep_thread(void *a)
{
	struct epoll_event e;
	(void)a;
	ready_ep = 1;
	int n;
	while ((n = epoll_wait(EP, &e, 1, 3600 * 1000)) < 0 && errno == EINTR)
		;
	woke_ep = n == 1 && e.data.u64 == 0xe5 ? 1 : -1;
	return NULL;
}

static void *sel_thread(void *a)
{
	fd_set r;
	(void)a;
	ready_sel = 1;
	int n;
	do {
		struct timeval tv = {3600, 0};
		FD_ZERO(&r);
		FD_SET(SR, &r);
		n = select(SR + 1, &r, NULL, NULL, &tv);
	} while (n < 0 && errno == EINTR);
	woke_sel = n == 1 && FD_ISSET(SR, &r) ? 1 : -1;
	return NULL;
}

int main(int argc, char **argv)
{
	int p[2], q[2];
	pthread_t t1, t2;
	sigset_t block, none;
	struct epoll_event e = {.events = EPOLLIN, .data.u64 = 0xe5};
	uint64_t one = 1;

	test_init(argc, argv);
	if (pipe(p) || dup2(p[0], PR) != PR || dup2(p[1], PW) != PW || pipe(q) || dup2(q[0], SR) != SR ||
	    dup2(q[1], SW) != SW || dup2(eventfd(0, 0), EV) != EV || dup2(epoll_create1(0), EP) != EP ||
	    epoll_ctl(EP, EPOLL_CTL_ADD, EV, &e))
		fail("setup");
	close(p[0]), close(p[1]), close(q[0]), close(q[1]);
	/* SIGTERM goes to the main thread only */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, NULL);
	if (pthread_create(&t1, NULL, ep_thread, NULL) || pthread_create(&t2, NULL, sel_thread, NULL))
		fail("pthread_create");
	while (!ready_ep || !ready_sel)
		usleep(1000);
	usleep(100000);
	test_daemon();
	sigemptyset(&none);
	struct pollfd pf = {.fd = PR, .events = POLLIN};
	struct timespec ts = {3600, 0};
	int n = ppoll(&pf, 1, &ts, &none);
	if (n != -1 || errno != EINTR)
		fail("ppoll returned %d (revents %#x), want -1 EINTR from SIGTERM", n, pf.revents);
	usleep(100000);
	if (woke_ep || woke_sel)
		fail("a thread woke before its fd was ready (epoll %d, select %d)", woke_ep, woke_sel);
	if (write(EV, &one, sizeof(one)) != sizeof(one) || write(SW, "x", 1) != 1)
		fail("write");
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	if (woke_ep != 1 || woke_sel != 1)
		fail("threads woke wrong: epoll %d, select %d", woke_ep, woke_sel);
	return test_pass();
}
