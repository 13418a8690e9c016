/* An eventfd that is written and read all the time, also while the dump runs: a loop adds 1..7 to the
 * counter and, every few writes, waits for it with epoll and reads it, keeping both sums. At the end
 * everything written has been read exactly once (what was left in the counter at a dump is still there
 * after the restore, nothing is added or lost). */
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	uint64_t written = 0, readsum = 0, v, i = 0;
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 42}, out;
	int efd, ep;

	test_init(argc, argv);
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ep = epoll_create1(0);
	if (efd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev))
		fail("setup");
	test_daemon();
	while (test_go()) {
		v = i % 7 + 1;
		if (write(efd, &v, sizeof(v)) != sizeof(v))
			fail("write");
		written += v;
		if (++i % 5 == 0) {
			if (epoll_wait(ep, &out, 1, 1000) != 1 || out.data.u64 != 42)
				fail("epoll_wait does not report the eventfd (written %llu, read %llu)",
				     (unsigned long long)written, (unsigned long long)readsum);
			if (read(efd, &v, sizeof(v)) != sizeof(v))
				fail("read");
			readsum += v;
		}
		if (test_failures)
			break;
	}
	if (read(efd, &v, sizeof(v)) == sizeof(v))
		readsum += v;
	if (readsum != written)
		fail("read %llu, written %llu", (unsigned long long)readsum, (unsigned long long)written);
	pass();
	return 0;
}
