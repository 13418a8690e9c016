/* What the POSIX timer tests (and sig_pending) share: a periodic timer whose last signal taken counted N
 * missed expiries (its overrun count), its check after restore, and an ordinary signal queued with its
 * siginfo. */
#ifndef ZDTM_POSIX_TIMER_H
#define ZDTM_POSIX_TIMER_H
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "zdtmtst.h"

#define PT_NS 1000000000LL

struct pt_overrun {
	clockid_t clock;
	int notify; /* SIGEV_SIGNAL, or SIGEV_THREAD_ID to tid (0: the calling thread) */
	long long iv;
	int n; /* overrun wanted */
	pid_t tid;
	timer_t t;
	int sig, got;
};

static inline long long pt_now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec * PT_NS + ts.tv_nsec;
}

/* Timer c (made) of signal sig (blocked), armed on a grid N+1 intervals in the past so that it expires at
 * once; its signal taken here with sigtimedwait counts N missed and moves it on to the next expiry, 40 % of
 * an interval ahead. A clock younger than N+1 intervals (a fresh time namespace): as many as fit. 0: its
 * overrun count (got) is positive. */
static inline int pt_overrun_take(struct pt_overrun *c, int sig)
{
	c->sig = sig;
	long long next = pt_now(c->clock) + c->iv * 4 / 10;
	if (next / c->iv <= c->n)
		c->n = (int)(next / c->iv) - 1;
	long long at = next - (long long)(c->n + 1) * c->iv;
	struct itimerspec its = {{c->iv / PT_NS, c->iv % PT_NS}, {at / PT_NS, at % PT_NS}};
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
	test_msg("timer on clock %d, signal %d: overrun %d (si_overrun %d)", (int)c->clock, sig, c->got,
		 si.si_overrun);
	return c->got > 0 ? 0 : -1;
}

/* Timer c made (notify, clock of c) and taken as pt_overrun_take does. */
static inline int pt_overrun_make(struct pt_overrun *c, int sig)
{
	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = c->notify;
	sev.sigev_signo = sig;
	sev.sigev_value.sival_int = sig;
	if (c->notify == SIGEV_THREAD_ID)
		sev._sigev_un._tid = c->tid ? c->tid : (pid_t)syscall(SYS_gettid);
	if (timer_create(c->clock, &sev, &c->t))
		return -1;
	return pt_overrun_take(c, sig);
}

/* After restore: the same overrun count, the interval kept, the next expiry within 40 % of an interval. */
static inline void pt_overrun_check(const struct pt_overrun *c, const char *what)
{
	struct itimerspec cur;
	int ov = timer_getoverrun(c->t);
	if (ov != c->got)
		fail("%s (clock %d): timer_getoverrun %d after restore, %d before", what, (int)c->clock, ov,
		     c->got);
	if (timer_gettime(c->t, &cur) || cur.it_interval.tv_sec * PT_NS + cur.it_interval.tv_nsec != c->iv ||
	    cur.it_value.tv_sec * PT_NS + cur.it_value.tv_nsec <= 0 ||
	    cur.it_value.tv_sec * PT_NS + cur.it_value.tv_nsec > c->iv * 4 / 10)
		fail("%s: interval %ld s, value %ld.%09ld s after restore", what,
		     (long)cur.it_interval.tv_sec, (long)cur.it_value.tv_sec, cur.it_value.tv_nsec);
}

static inline int pt_pending(int sig)
{
	sigset_t p;
	sigpending(&p);
	return sigismember(&p, sig);
}

/* A pending signal sig taken: 1, or none (dropped, when stale): 0. */
static inline int pt_take(int sig)
{
	struct timespec zero = {0, 0};
	sigset_t s;
	siginfo_t si;
	sigemptyset(&s);
	sigaddset(&s, sig);
	return sigtimedwait(&s, &si, &zero) == sig;
}

/* The start time of the calling process (/proc/self/stat field 22, clock ticks since boot; -1: not read): a
 * restored process is a new one, started later. */
static inline long long pt_starttime(void)
{
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	long long v = -1;
	if (f)
		fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	/* (after the name: state, then fields 4 to 21, then the start time) */
	if (p && sscanf(p + 2,
			"%*c"
			"%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %lld",
			&v) != 1)
		v = -1;
	return v;
}

/* The pending signals sig (SI_TIMER) taken: the expiries they count (1 + si_overrun each) added to *n; their
 * number. */
static inline int pt_take_all(int sig, long long *n)
{
	struct timespec zero = {0, 0};
	sigset_t s;
	siginfo_t si;
	int k = 0;
	sigemptyset(&s);
	sigaddset(&s, sig);
	while (sigtimedwait(&s, &si, &zero) == sig && si.si_code == SI_TIMER)
		*n += 1 + si.si_overrun, k++;
	return k;
}

/* sig blocked, and *sev a SIGEV_SIGNAL of it. */
static inline void pt_sigev_blocked(struct sigevent *sev, int sig)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_BLOCK, &s, NULL);
	memset(sev, 0, sizeof(*sev));
	sev->sigev_notify = SIGEV_SIGNAL;
	sev->sigev_signo = sig;
}

/* Timer *t on CLOCK_REALTIME, its signal sig blocked (SIGEV_SIGNAL), armed with set (flags 0: relative);
 * what failed said by fail() as timer i (what). 0, or -1. */
static inline int pt_make(timer_t *t, int sig, const struct itimerspec *set, int flags, int i,
			  const char *what)
{
	struct sigevent sev;
	pt_sigev_blocked(&sev, sig);
	if (timer_create(CLOCK_REALTIME, &sev, t) || timer_settime(*t, flags, set, NULL)) {
		fail("timer %d (%s): timer_create/timer_settime", i, what);
		return -1;
	}
	return 0;
}

/* A periodic CLOCK_REALTIME timer *t armed relative (interval iv, first expiry 1 ms ahead: *first, ns of
 * CLOCK_REALTIME; its signal sig blocked), its first signal taken at 2.5 intervals (expired at 1 ms, 1 and
 * 2 intervals on: overrun 2; pending again from 3): its overrun count then (-1: not made or none taken;
 * fail() says the first), *taken: the expiries up to that signal. */
static inline int pt_rel_overrun_take(timer_t *t, int sig, long long iv, long long *first, long long *taken)
{
	const struct itimerspec its = {{iv / PT_NS, iv % PT_NS}, {0, 1000000}};
	*first = pt_now(CLOCK_REALTIME) + 1000000;
	if (pt_make(t, sig, &its, 0, 0, "relative, overrun count"))
		return -1;
	usleep((useconds_t)(iv * 5 / 2 / 1000));
	int ov = pt_take(sig) ? timer_getoverrun(*t) : -1;
	*taken = (pt_now(CLOCK_REALTIME) - *first) / iv + 1;
	return ov;
}

/* An ordinary signal (SI_QUEUE, value val) queued to thread tid, 0: to the process. */
static inline int pt_queue(int sig, pid_t tid, int val)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_int = val;
	if (!tid)
		return (int)syscall(SYS_rt_sigqueueinfo, getpid(), sig, &si);
	return (int)syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, sig, &si);
}
/* The posix_timer_fn timers of /proc/timer_list: each one's base ("clock N") into base[] and time left (ns)
 * into in[], max at most; how many (-3: not readable). */
static inline int pt_timer_list(int *base, long long *in, int max)
{
	char line[256];
	int b = -1, cur = -1, n = 0;
	FILE *f = fopen("/proc/timer_list", "r");
	if (!f)
		return -3;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " clock %d:", &cur) == 1 || strstr(line, "cpu:"))
			continue;
		if (strstr(line, "posix_timer_fn")) {
			b = cur;
			continue;
		}
		if (b >= 0 && n < max && sscanf(line, " # expires at %*d-%*d nsecs [in %lld", &in[n]) == 1)
			base[n++] = b;
		b = -1;
	}
	fclose(f);
	return n;
}

/* The test ready (test_daemon), then C/R done (test_waitsig): timer_gettime of each of the n timers t into
 * cur; -1 for one not read (fail() says which; its cur zero). */
static inline int pt_wait_gettime(const timer_t *t, struct itimerspec *cur, int n)
{
	int ret = 0;
	test_daemon();
	test_waitsig();
	for (int i = 0; i < n; i++)
		if (timer_gettime(t[i], &cur[i])) {
			memset(&cur[i], 0, sizeof(cur[i]));
			fail("timer_gettime %d", i);
			ret = -1;
		}
	return ret;
}

/* The base (/proc/timer_list "clock N") of timer t: its time left is read before and after the list, and
 * the timer is the one posix_timer_fn timer there whose time left lies between (1 ms more either way),
 * however long the test waited for a CPU meanwhile. -1: none (read again, 5 times at most: a periodic
 * timer may have started its next period between the reads), -2: more than one (read again too: the
 * window grows with the wait), -3: the list not readable, -4: timer_gettime failed. sig > 0: the timer's
 * signal (blocked), whose pending ones are taken before each round: a periodic timer whose signal is pending
 * is off the list until it is taken (seen: it expired again after the test took its signals, under load). */
static inline int pt_base_of_sig(timer_t t, int sig)
{
	enum { PT_LIST_MAX = 256 };
	int base[PT_LIST_MAX], found = -1;
	long long in[PT_LIST_MAX];
	for (int r = 0; found < 0 && r < 5; r++) {
		struct itimerspec a, b;
		while (sig > 0 && pt_take(sig))
			;
		if (timer_gettime(t, &a))
			return -4;
		int n = pt_timer_list(base, in, PT_LIST_MAX);
		if (n == -3)
			return -3;
		if (timer_gettime(t, &b))
			return -4;
		long long hi = a.it_value.tv_sec * PT_NS + a.it_value.tv_nsec;
		long long lo = b.it_value.tv_sec * PT_NS + b.it_value.tv_nsec;
		found = -1;
		for (int i = 0; i < n && lo <= hi; i++)
			if (in[i] > lo - 1000000 && in[i] < hi + 1000000)
				found = found == -1 ? base[i] : -2;
	}
	return found;
}

static inline int pt_base_of(timer_t t)
{
	return pt_base_of_sig(t, 0);
}

/* Whether timer t (what; its signal sig > 0 taken first, as pt_base_of_sig) is on the hrtimer base want (0:
 * CLOCK_MONOTONIC's, where a relative CLOCK_REALTIME one is; 1: CLOCK_REALTIME's, where an absolute one
 * follows clock_settime): fail() says it when not. -1: /proc/timer_list not readable (said), nothing checked.
 */
static inline int pt_base_check_sig(timer_t t, int sig, int want, const char *what)
{
	int b = pt_base_of_sig(t, sig);
	test_msg("%s: on the kernel's clock base %d\n", what, b);
	if (b == -3) {
		test_msg("/proc/timer_list: %s: bases not checked\n", strerror(errno));
		return -1;
	}
	if (b != want)
		fail("%s: on clock base %d of /proc/timer_list, want %d%s", what, b, want,
		     b == 1   ? ": armed absolute (follows clock_settime)"
		     : b == 0 ? ": armed relative"
			      : "");
	return 0;
}

static inline int pt_base_check(timer_t t, int want, const char *what)
{
	return pt_base_check_sig(t, 0, want, what);
}

/* The expiry of timer t (ns of clock c): its time left plus the clock, read right before and after it (their
 * middle), again until the two lie within 10 us (on a loaded machine the test may wait for a CPU between
 * them; 100 tries at most). -1: timer_gettime failed. */
static inline long long pt_expiry(timer_t t, clockid_t c)
{
	long long best = -1, span = -1;
	for (int n = 0; n < 100 && (span < 0 || span > 10000); n++) {
		struct itimerspec cur;
		long long before = pt_now(c);
		if (timer_gettime(t, &cur))
			return -1;
		long long after = pt_now(c);
		if (span < 0 || after - before < span)
			span = after - before,
			best = (before + after) / 2 + cur.it_value.tv_sec * PT_NS + cur.it_value.tv_nsec;
	}
	return best;
}
/* After C/R, periodic CLOCK_REALTIME timer t armed relative (interval iv, its first expiry at first, ns of
 * CLOCK_REALTIME; its signal sig blocked): its pending signals must count every expiry since the one at from
 * (2 either way), its next expiry be within an interval and on the grid of its first (20 ms), and it must
 * be on the kernel's CLOCK_MONOTONIC hrtimer base, as one armed relative is (what: for the messages). */
static inline void pt_rel_check(timer_t t, int sig, long long iv, long long first, long long from,
				const char *what)
{
	long long n = 0, now = pt_now(CLOCK_REALTIME);
	int k = pt_take_all(sig, &n);
	long long since = now < from ? 0 : (now - from) / iv + 1;
	test_msg("%s: %d signals counting %lld expiries, %lld since the first not taken before\n", what, k, n,
		 since);
	if (llabs(n - since) > 2)
		fail("%s: %d signals counting %lld expiries, %lld since the first not taken before", what, k,
		     n, since);
	struct itimerspec cur;
	if (timer_gettime(t, &cur)) {
		fail("%s: timer_gettime", what);
		return;
	}
	long long next = cur.it_value.tv_sec * PT_NS + cur.it_value.tv_nsec,
		  d = ((pt_now(CLOCK_REALTIME) + next - first) % iv + iv) % iv;
	d = d > iv / 2 ? d - iv : d;
	test_msg("%s: %lld us left, %lld us off its grid\n", what, next / 1000, d / 1000);
	if (next <= 0 || next > iv || llabs(d) > 20000000)
		fail("%s: %lld us left, %lld us off its grid", what, next / 1000, d / 1000);
	pt_base_check_sig(t, sig, 0, what);
}
#endif
