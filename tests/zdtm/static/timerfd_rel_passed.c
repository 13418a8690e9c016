/* Relative timerfds whose expiry passes while the test is dumped and not yet restored: 24 of them armed just
 * before the test is ready, 20 ms to about 9 s ahead (a factor of 1.3 between two), one-shot and periodic
 * (10 s), on CLOCK_MONOTONIC (settime flags 0) and CLOCK_REALTIME with TFD_TIMER_CANCEL_ON_SET alone (02,
 * which the kernel keeps but ignores on a relative timer). After restore each keeps its settime flags as
 * /proc/PID/fdinfo shows them, one whose expiry passed reads at least one expiration, and a periodic one
 * then runs again (time left in (0, 10 s]). Before, one whose expiry passed during the downtime was armed at
 * that absolute expiry: TFD_TIMER_ABSTIME added (fdinfo 02 -> 03, 0 -> 01). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include "timerfd_flags.h"
#include "zdtmtst.h"

#define NS 1000000000LL
#define N 24
#define IV 10

static long long now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec * NS + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int fd[N], fl[N];
	clockid_t clk[N];
	long long at[N], v = 20000000;
	test_init(argc, argv);
	for (int i = 0; i < N; i++, v = v * 13 / 10) {
		struct itimerspec its = {{(i & 1) ? IV : 0, 0}, {v / NS, v % NS}};
		clk[i] = (i & 2) ? CLOCK_REALTIME : CLOCK_MONOTONIC;
		fl[i] = (i & 2) ? TFD_TIMER_CANCEL_ON_SET : 0;
		fd[i] = timerfd_create(clk[i], TFD_NONBLOCK);
		at[i] = now_ns(clk[i]) + v;
		if (fd[i] < 0 || timerfd_settime(fd[i], fl[i], &its, NULL)) {
			fail("timerfd %d", i);
			return 1;
		}
	}
	test_daemon();
	test_waitsig();

	for (int i = 0; i < N; i++) {
		int f = tfd_settime_flags(fd[i]);
		uint64_t ticks = 0;
		struct itimerspec g;
		long long late = now_ns(clk[i]) - at[i];
		ssize_t r = read(fd[i], &ticks, sizeof(ticks));
		if (f != fl[i])
			fail("timerfd %d (clock %d, %s, expiry %lld ms ago): settime flags 0%o after "
			     "restore, set "
			     "with 0%o",
			     i, (int)clk[i], (i & 1) ? "periodic" : "one-shot", late / 1000000, f, fl[i]);
		if (late > 0 && (r != sizeof(ticks) || !ticks))
			fail("timerfd %d: expiry %lld ms ago, read %zd (%s), %llu expirations", i,
			     late / 1000000, r, r < 0 ? strerror(errno) : "-", (unsigned long long)ticks);
		if ((i & 1) && (timerfd_gettime(fd[i], &g) || (!g.it_value.tv_sec && !g.it_value.tv_nsec) ||
				g.it_value.tv_sec > IV || g.it_interval.tv_sec != IV))
			fail("timerfd %d: after the read %lld.%09ld s left, interval %lld s", i,
			     (long long)g.it_value.tv_sec, g.it_value.tv_nsec,
			     (long long)g.it_interval.tv_sec);
	}
	return test_pass();
}
