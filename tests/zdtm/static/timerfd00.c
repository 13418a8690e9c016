/* Timerfds: a periodic CLOCK_MONOTONIC timer (first expiry in 1 h, then every 2 s), an absolute
 * CLOCK_REALTIME timer (now + 1 h, TFD_TIMER_ABSTIME), a fast periodic CLOCK_BOOTTIME timer (every 10 ms,
 * non-blocking), a disarmed one, and a one-shot timer that expired before the dump and was not read
 * (ticks pending). After restore: clocks, intervals and flags are kept (fdinfo), the time left went
 * down and not up, the absolute one still ends at its time, the fast one keeps ticking, the disarmed
 * stays disarmed, and the expired one still has its tick. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { PER = 9, ABS = 10, FAST = 11, OFF = 12, DONE = 13 };

static void place(int fd, int want)
{
	if (fd < 0 || dup2(fd, want) != want)
		fail("place fd %d", want);
	close(fd);
}

static void arm(int fd, int flags, time_t vs, long vns, time_t is, long ins)
{
	struct itimerspec its = {{is, ins}, {vs, vns}};
	if (timerfd_settime(fd, flags, &its, NULL))
		fail("timerfd_settime fd %d", fd);
}

/* "clockid: N" and "settime flags: N" of fd */
static void info(int fd, int *clk, int *fl)
{
	*clk = (int)fdinfo_field(fd, "clockid:", 10, -1);
	*fl = (int)fdinfo_field(fd, "settime flags:", 8, -1);
}

static void check_info(int fd, int clk, int fl)
{
	int c, f;
	info(fd, &c, &f);
	if (c != clk || f != fl)
		fail("fd %d: clock %d flags %o, want %d %o", fd, c, f, clk, fl);
}

int main(int argc, char **argv)
{
	struct itimerspec g;
	struct timespec now;
	uint64_t ticks;
	time_t abs_end;

	test_init(argc, argv);
	place(timerfd_create(CLOCK_MONOTONIC, 0), PER);
	place(timerfd_create(CLOCK_REALTIME, 0), ABS);
	place(timerfd_create(CLOCK_BOOTTIME, TFD_NONBLOCK), FAST);
	place(timerfd_create(CLOCK_MONOTONIC, 0), OFF);
	place(timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK), DONE);
	arm(PER, 0, 3600, 0, 2, 0);
	clock_gettime(CLOCK_REALTIME, &now);
	abs_end = now.tv_sec + 3600;
	arm(ABS, TFD_TIMER_ABSTIME, abs_end, 0, 0, 0);
	arm(FAST, 0, 0, 10000000, 0, 10000000);
	arm(DONE, 0, 0, 1000000, 0, 0);
	usleep(20000); /* DONE expires: one tick, not read */
	test_daemon();
	test_waitsig();

	check_info(PER, CLOCK_MONOTONIC, 0);
	check_info(ABS, CLOCK_REALTIME, TFD_TIMER_ABSTIME);
	check_info(FAST, CLOCK_BOOTTIME, 0);
	check_info(OFF, CLOCK_MONOTONIC, 0);
	if (timerfd_gettime(PER, &g) || g.it_interval.tv_sec != 2 || g.it_interval.tv_nsec ||
	    g.it_value.tv_sec >= 3600 || (g.it_value.tv_sec == 0 && g.it_value.tv_nsec == 0))
		fail("periodic: value %ld.%09ld interval %ld.%09ld, want < 3600 s and 2 s",
		     (long)g.it_value.tv_sec, g.it_value.tv_nsec, (long)g.it_interval.tv_sec,
		     g.it_interval.tv_nsec);
	clock_gettime(CLOCK_REALTIME, &now);
	if (timerfd_gettime(ABS, &g) || g.it_interval.tv_sec ||
	    llabs((long long)now.tv_sec + (long long)g.it_value.tv_sec - (long long)abs_end) > 1)
		fail("absolute: ends at %lld, want %lld", (long long)(now.tv_sec + g.it_value.tv_sec),
		     (long long)abs_end);
	if (timerfd_gettime(OFF, &g) || g.it_value.tv_sec || g.it_value.tv_nsec)
		fail("the disarmed timer is armed");
	if (read(DONE, &ticks, sizeof(ticks)) != sizeof(ticks) || ticks != 1)
		fail("the expired timer: its unread tick is lost");
	if (fcntl(FAST, F_GETFL) & O_NONBLOCK) {
		int flags = fcntl(FAST, F_GETFL);
		fcntl(FAST, F_SETFL, flags & ~O_NONBLOCK);
		if (read(FAST, &ticks, sizeof(ticks)) != sizeof(ticks) || ticks < 1)
			fail("the fast timer does not tick");
	} else {
		fail("the fast timer lost O_NONBLOCK");
	}
	pass();
	return 0;
}
