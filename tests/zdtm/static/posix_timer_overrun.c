/* POSIX timers whose last signal taken counted missed expiries: timer_getoverrun() (the overrun count of the
 * last signal taken) must read the same after restore, and the timers keep their interval and next expiry.
 * Each is armed on a grid N+1 intervals in the past so that it expires at once; its signal (blocked) is taken
 * with sigtimedwait, which counts N missed and moves it on to the next expiry, 40 % of an interval ahead.
 * Intervals are long (10 s and more): no expiry during the test, so no signal is pending at the dump. */
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NS 1000000000LL
#define NT 4

struct tm_case {
	clockid_t clock;
	int notify; /* SIGEV_SIGNAL or SIGEV_THREAD_ID (this thread) */
	long long iv;
	int n; /* overrun wanted */
	timer_t t;
	int sig, got;
};

static struct tm_case cases[NT] = {
    {CLOCK_REALTIME, SIGEV_SIGNAL, 3600 * NS, 5, 0, 0, 0},
    {CLOCK_MONOTONIC, SIGEV_SIGNAL, 10 * NS, 3, 0, 0, 0},
    {CLOCK_BOOTTIME, SIGEV_THREAD_ID, 20 * NS, 2, 0, 0, 0},
    {CLOCK_REALTIME, SIGEV_THREAD_ID, 7200 * NS, 1000, 0, 0, 0},
};

static long long now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec * NS + ts.tv_nsec;
}

static int make(struct tm_case *c, int sig)
{
	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = c->notify;
	sev.sigev_signo = sig;
	sev.sigev_value.sival_int = sig;
	if (c->notify == SIGEV_THREAD_ID)
		sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	c->sig = sig;
	if (timer_create(c->clock, &sev, &c->t))
		return -1;
	/* a clock younger than N+1 intervals (a fresh time namespace): as many as fit */
	long long now = now_ns(c->clock), next = now + c->iv * 4 / 10;
	if (next / c->iv <= c->n)
		c->n = (int)(next / c->iv) - 1;
	long long at = next - (long long)(c->n + 1) * c->iv;
	struct itimerspec its = {{c->iv / NS, c->iv % NS}, {at / NS, at % NS}};
	if (timer_settime(c->t, TIMER_ABSTIME, &its, NULL))
		return -1;
	sigset_t s;
	siginfo_t si;
	struct timespec wait = {2, 0};
	sigemptyset(&s);
	sigaddset(&s, sig);
	if (sigtimedwait(&s, &si, &wait) != sig || si.si_code != SI_TIMER)
		return -1;
	c->got = timer_getoverrun(c->t);
	test_msg("timer on clock %d: overrun %d (si_overrun %d)", (int)c->clock, c->got, si.si_overrun);
	return c->got > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	sigset_t s;
	test_init(argc, argv);
	sigemptyset(&s);
	for (int k = 0; k < NT; k++)
		sigaddset(&s, SIGRTMIN + 2 + k);
	sigprocmask(SIG_BLOCK, &s, NULL);
	for (int k = 0; k < NT; k++)
		if (make(&cases[k], SIGRTMIN + 2 + k)) {
			fail("timer %d: no overrun to keep", k);
			return 1;
		}
	test_daemon();
	test_waitsig();

	for (int k = 0; k < NT; k++) {
		struct tm_case *c = &cases[k];
		struct itimerspec cur;
		int ov = timer_getoverrun(c->t);
		if (ov != c->got)
			fail("timer %d (clock %d): timer_getoverrun %d after restore, %d before", k,
			     (int)c->clock, ov, c->got);
		if (timer_gettime(c->t, &cur) ||
		    cur.it_interval.tv_sec * NS + cur.it_interval.tv_nsec != c->iv ||
		    cur.it_value.tv_sec * NS + cur.it_value.tv_nsec <= 0 ||
		    cur.it_value.tv_sec * NS + cur.it_value.tv_nsec > c->iv * 4 / 10)
			fail("timer %d: interval %ld s, value %ld.%09ld s after restore", k,
			     (long)cur.it_interval.tv_sec, (long)cur.it_value.tv_sec, cur.it_value.tv_nsec);
	}
	sigpending(&s);
	for (int k = 0; k < NT; k++)
		if (sigismember(&s, cases[k].sig))
			fail("timer %d: a signal pending after restore", k);
	return test_pass();
}
