/* ITIMER_REAL, ITIMER_VIRTUAL and ITIMER_PROF armed with intervals: after
 * restore the intervals are the same, the values still armed (not reset, not
 * lost) and all three keep firing. */
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include "zdtmtst.h"

static volatile int hits[3];
static void h(int sig)
{
	hits[sig == SIGALRM ? 0 : sig == SIGVTALRM ? 1 : 2]++;
}

static long us(const struct timeval *tv)
{
	return tv->tv_sec * 1000000L + tv->tv_usec;
}

static void burn_cpu(long usec)
{
	struct timespec a, b;
	volatile unsigned long x = 0;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 1000000; i++) /* user time, for ITIMER_VIRTUAL */
			x += i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < usec);
	(void)x;
}

int main(int argc, char **argv)
{
	static const int which[3] = {ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF};
	static const char *names[3] = {"REAL", "VIRTUAL", "PROF"};
	/* value, interval in us */
	static const long val[3] = {150000, 1000000, 1200000}, ivl[3] = {150000, 30000, 40000};
	struct itimerval it, before[3];
	struct sigaction sa;
	int i, h0[3];

	test_init(argc, argv);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGVTALRM, &sa, NULL);
	sigaction(SIGPROF, &sa, NULL);
	for (i = 0; i < 3; i++) {
		it.it_value.tv_sec = val[i] / 1000000;
		it.it_value.tv_usec = val[i] % 1000000;
		it.it_interval.tv_sec = ivl[i] / 1000000;
		it.it_interval.tv_usec = ivl[i] % 1000000;
		if (setitimer(which[i], &it, NULL))
			fail("setitimer %s", names[i]);
	}
	/* use 0.4 s of CPU so the CPU timers are well below their initial values */
	burn_cpu(400000);
	for (i = 0; i < 3; i++)
		getitimer(which[i], &before[i]);
	if (us(&before[1].it_value) > 700000 || hits[1])
		fail("VIRTUAL timer did not run before dump: %ld us", us(&before[1].it_value));
	test_daemon();
	test_waitsig();

	for (i = 0; i < 3; i++) {
		getitimer(which[i], &it);
		if (us(&it.it_interval) != us(&before[i].it_interval))
			fail("%s interval %ld us, want %ld", names[i], us(&it.it_interval),
			     us(&before[i].it_interval));
		if (us(&it.it_value) <= 0)
			fail("%s disarmed", names[i]);
		/* CPU timers barely advanced while we slept: not reset (a few ticks of slack) */
		if (i > 0 && hits[i] == 0 &&
		    (us(&it.it_value) > us(&before[i].it_value) + 25000 ||
		     us(&it.it_value) < us(&before[i].it_value) - 200000))
			fail("%s value %ld us, want about %ld", names[i], us(&it.it_value),
			     us(&before[i].it_value));
		if (i == 0 && us(&it.it_value) > ivl[0])
			fail("REAL value %ld us > interval", us(&it.it_value));
		h0[i] = hits[i];
	}
	/* all keep firing: burn CPU until each fired twice more (at most 3 s) */
	for (int n = 0; n < 30; n++) {
		burn_cpu(100000);
		if (hits[0] - h0[0] >= 2 && hits[1] - h0[1] >= 2 && hits[2] - h0[2] >= 2)
			break;
	}
	for (i = 0; i < 3; i++)
		if (hits[i] - h0[i] < 2)
			fail("%s fired %d times in 3 s after restore", names[i], hits[i] - h0[i]);
	pass();
	return 0;
}
