/* Several POSIX timers on different clocks and signals (one disarmed, one
 * far in the future, periodic ones): same timer ids, same /proc/self/timers,
 * still armed after restore and firing with their sigev values. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "zdtmtst.h"

#define NT 5
static volatile int hits[NT], badval;

static void h(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int i = si->si_value.sival_int - 1000;
	if (si->si_code != SI_TIMER || i < 0 || i >= NT || sig != SIGRTMIN + 3 + i)
		badval++;
	else
		hits[i]++;
}

static long long ns(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

int main(int argc, char **argv)
{
	const clockid_t clk[NT] = {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_MONOTONIC,
				   CLOCK_PROCESS_CPUTIME_ID};
	/* value, interval (ms): periodic, periodic, far one-shot, disarmed, cpu periodic */
	const long v[NT] = {100, 70, 3600 * 1000, 0, 300}, iv[NT] = {100, 70, 0, 0, 20};
	struct itimerspec its, before[NT];
	struct sigevent sev;
	struct sigaction sa;
	timer_t t[NT];
	char *timers0, *timers1;
	int i, h0[NT];

	test_init(argc, argv);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = h;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NT; i++) {
		sigaction(SIGRTMIN + 3 + i, &sa, NULL);
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_SIGNAL;
		sev.sigev_signo = SIGRTMIN + 3 + i;
		sev.sigev_value.sival_int = 1000 + i;
		if (timer_create(clk[i], &sev, &t[i]))
			fail("timer_create %d", i);
		its.it_value.tv_sec = v[i] / 1000;
		its.it_value.tv_nsec = v[i] % 1000 * 1000000;
		its.it_interval.tv_sec = iv[i] / 1000;
		its.it_interval.tv_nsec = iv[i] % 1000 * 1000000;
		if (timer_settime(t[i], 0, &its, NULL))
			fail("timer_settime %d", i);
	}
	for (i = 0; i < NT; i++)
		timer_gettime(t[i], &before[i]);
	read_file("/proc/self/timers", &timers0);
	test_daemon();
	test_waitsig();

	read_file("/proc/self/timers", &timers1);
	if (strcmp(timers0, timers1))
		fail("/proc/self/timers changed:\n%s---- want:\n%s", timers1, timers0);
	for (i = 0; i < NT; i++) {
		if (timer_gettime(t[i], &its)) {
			fail("timer id %ld is gone", (long)(intptr_t)t[i]);
			continue;
		}
		if (ns(&its.it_interval) != ns(&before[i].it_interval))
			fail("timer %d interval %lld, want %lld", i, ns(&its.it_interval),
			     ns(&before[i].it_interval));
		if (v[i] == 0 && ns(&its.it_value) != 0)
			fail("disarmed timer %d got armed", i);
		if (v[i] && ns(&its.it_value) == 0)
			fail("timer %d disarmed", i);
		if (i == 2 && (ns(&its.it_value) > ns(&before[i].it_value) ||
			       ns(&its.it_value) < ns(&before[i].it_value) - 600 * 1000000000LL))
			fail("one-shot timer value %lld, want a bit below %lld", ns(&its.it_value),
			     ns(&before[i].it_value));
		h0[i] = hits[i];
	}
	/* periodic ones keep firing: burn CPU until each fired 3 times. The CPU-time timer needs our CPU
	 * time (300 ms + 3 x 20 ms at most), which a loaded machine gives slowly: the bound is 3 s of it
	 * (or 20 s of wall time), not wall time alone (under load 40 on 2 CPUs, 5 s of wall time gave us
	 * less than 300 ms of CPU time and the timer had not fired yet). */
	struct timespec a, b, ca, cb;
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
	for (;;) {
		int done = 1;
		clock_gettime(CLOCK_MONOTONIC, &b);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
		for (i = 0; i < NT; i++)
			if (iv[i] && hits[i] - h0[i] < 3)
				done = 0;
		if (done || ns(&cb) - ns(&ca) > 3000000000LL || ns(&b) - ns(&a) > 20000000000LL)
			break;
	}
	for (i = 0; i < NT; i++) {
		int got = hits[i] - h0[i];
		if (iv[i] && got < 3)
			fail("timer %d fired %d times in %lld ms after restore (%lld ms of CPU time)", i, got,
			     (ns(&b) - ns(&a)) / 1000000, (ns(&cb) - ns(&ca)) / 1000000);
		if (!iv[i] && got)
			fail("timer %d fired unexpectedly", i);
	}
	if (badval)
		fail("%d timer signals with a wrong code/value", badval);
	pass();
	return 0;
}
