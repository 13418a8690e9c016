/* A POSIX timer that notifies a thread (SIGEV_THREAD: glibc's helper thread waits for its signal 32, which
 * glibc's own sigprocmask never blocks), firing every 200 us, so that it fires during the restore. After
 * restore the timer is still armed with its interval and the helper thread still runs the notify function.
 * Before the fix the child of crshim had signal 32 unblocked (glibc's sigfillset leaves it out), the blob's
 * threads inherited that, and the restored timer's signal stopped the helper thread mid-restore ("signal
 * 32 during the restore"). */
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include "zdtmtst.h"

#define PERIOD_NS 200000

static int efd;

static void notify(union sigval v)
{
	uint64_t one = 1;
	(void)v;
	if (write(efd, &one, sizeof(one)) != sizeof(one))
		_exit(3);
}

int main(int argc, char **argv)
{
	struct sigevent sev;
	struct itimerspec its = {{0, PERIOD_NS}, {0, PERIOD_NS}};
	timer_t tid;
	uint64_t n;

	test_init(argc, argv);
	efd = eventfd(0, 0);
	if (efd < 0)
		fail("eventfd");
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD;
	sev.sigev_notify_function = notify;
	if (timer_create(CLOCK_MONOTONIC, &sev, &tid) || timer_settime(tid, 0, &its, NULL))
		fail("timer_create/settime");
	if (read(efd, &n, sizeof(n)) != sizeof(n)) /* the helper thread exists */
		fail("read eventfd");
	test_daemon();
	test_waitsig();
	memset(&its, 0, sizeof(its));
	if (timer_gettime(tid, &its))
		fail("timer_gettime");
	else if (its.it_interval.tv_sec || its.it_interval.tv_nsec != PERIOD_NS)
		fail("interval %ld.%09ld after restore", (long)its.it_interval.tv_sec,
		     its.it_interval.tv_nsec);
	for (int i = 0; i < 3; i++) /* old events, then new ones */
		if (read(efd, &n, sizeof(n)) != sizeof(n) || !n)
			fail("read eventfd %d", i);
	pass();
	return 0;
}
