/* timerfds on CLOCK_REALTIME set with TFD_TIMER_CANCEL_ON_SET (a read fails with ECANCELED once the clock
 * is set; CLOCK_REALTIME is not namespaced, so the test cannot set it): the flags are kept over C/R as
 * /proc/PID/fdinfo says them ("settime flags", octal), with the expiry: an absolute timer an hour ahead
 * (TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET: the kernel cancels it on a clock set), a relative one with
 * the flag alone (which the kernel keeps but ignores), and one disarmed since it was set with both. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include "timerfd_flags.h"
#include "zdtmtst.h"

#define NS 1000000000LL
#define N 3

static const int flags[N] = {TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, TFD_TIMER_CANCEL_ON_SET,
			     TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET};

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * NS + ts.tv_nsec;
}

/* fd's expiry (CLOCK_REALTIME, ns; 0: disarmed) */
static long long expiry(int fd)
{
	struct itimerspec g;
	if (timerfd_gettime(fd, &g))
		return -1;
	long long left = g.it_value.tv_sec * NS + g.it_value.tv_nsec;
	return left ? now_ns() + left : 0;
}

int main(int argc, char **argv)
{
	int fd[N], fl[N];
	long long at[N];
	test_init(argc, argv);
	for (int i = 0; i < N; i++) {
		long long v = (flags[i] & TFD_TIMER_ABSTIME) ? now_ns() + 3600 * NS : 3600 * NS;
		struct itimerspec its = {.it_value = {v / NS, v % NS}}, off = {{0, 0}, {0, 0}};
		fd[i] = timerfd_create(CLOCK_REALTIME, 0);
		if (fd[i] < 0 || timerfd_settime(fd[i], flags[i], &its, NULL) ||
		    (i == 2 && timerfd_settime(fd[i], flags[i], &off, NULL))) {
			fail("timerfd %d", i);
			return 1;
		}
		fl[i] = tfd_settime_flags(fd[i]);
		at[i] = expiry(fd[i]);
		test_msg("timerfd %d: settime flags 0%o, expiry %lld\n", i, fl[i], at[i]);
		if (fl[i] != flags[i])
			fail("timerfd %d: fdinfo says settime flags 0%o, set with 0%o", i, fl[i], flags[i]);
	}
	test_daemon();
	test_waitsig();

	for (int i = 0; i < N; i++) {
		int f = tfd_settime_flags(fd[i]);
		long long a = expiry(fd[i]);
		if (f != fl[i])
			fail("timerfd %d: settime flags 0%o after restore, 0%o before", i, f, fl[i]);
		if ((a == 0) != (at[i] == 0) || llabs(a - at[i]) > NS / 10)
			fail("timerfd %d: expires at %lld after restore, %lld before", i, a, at[i]);
	}
	return test_pass();
}
