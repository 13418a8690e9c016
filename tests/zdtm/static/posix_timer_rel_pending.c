/* Periodic CLOCK_REALTIME POSIX timers armed relative (on the kernel's CLOCK_MONOTONIC hrtimer base,
 * /proc/timer_list "clock 0", where clock_settime does not move them) that the restore cannot arm on its
 * expiry with TIMER_ABSTIME: one whose own signal (blocked) is pending at the dump with expiries missed
 * (100 ms), one whose overrun count (timer_getoverrun 1, its last signal taken) the restore would give back
 * by arming it in the past (2 s: its next expiry 1.8 s after the dump begins; pending by then, it is the
 * first case). After C/R each must be on clock 0, its next expiry on its grid, and the first one's signals
 * must count every expiry since its first. Before, the restore armed both with TIMER_ABSTIME to expire at
 * once (restorer.c timer_fire_now, timer_overrun): they came back on clock 1, following clock_settime. The
 * second one's overrun count reads 0 after restore (the restore says so): relative, it cannot be armed in
 * the past. (/proc/timer_list not readable: the bases not checked.) */
#include "posix_timer.h"

#define NT 2

static const long long iv[NT] = {100 * 1000000LL, 2 * PT_NS};
static const char *const what[NT] = {"pending signal", "overrun count"};

int main(int argc, char **argv)
{
	timer_t t[NT];
	int sig[NT];
	long long armed[NT];

	test_init(argc, argv);
	for (int i = 0; i < NT; i++) {
		const struct itimerspec set = {{iv[i] / PT_NS, iv[i] % PT_NS}, {0, i ? 1000000 : iv[i]}};
		sig[i] = SIGRTMIN + 14 + i;
		armed[i] = pt_now(CLOCK_REALTIME);
		if (pt_make(&t[i], sig[i], &set, 0, i, what[i]))
			return 1;
	}
	/* timer 1: expired at 1 ms and 2001 ms, its signal taken at 2.2 s: overrun 1, next expiry at 4.001 s
	 */
	usleep(2200000);
	int ov = -1;
	if (!pt_take(sig[1]) || (ov = timer_getoverrun(t[1])) != 1 || !pt_pending(sig[0])) {
		fail("timer 1: overrun %d (want 1), timer 0's signal pending %d", ov, pt_pending(sig[0]));
		return 1;
	}
	test_daemon();
	test_waitsig();

	long long now = pt_now(CLOCK_REALTIME), n = 0;
	int k = pt_take_all(sig[0], &n);
	long long least = (now - armed[0] - iv[0]) / iv[0] + 1 - 2,
		  most = (pt_now(CLOCK_REALTIME) - armed[0]) / iv[0] + 2;
	test_msg("timer 0: %d signals, %lld expiries counted, %lld to %lld expected\n", k, n, least, most);
	if (!k || n < least || n > most)
		fail("timer 0 (%s): %d signals counting %lld expiries, %lld to %lld since the first", what[0],
		     k, n, least, most);
	long long n1 = 0;
	pt_take_all(sig[1], &n1);
	test_msg("timer 1: overrun %d after restore, %lld expiries in pending signals\n",
		 timer_getoverrun(t[1]), n1);
	for (int i = 0; i < NT; i++) {
		struct itimerspec cur;
		if (timer_gettime(t[i], &cur)) {
			fail("timer_gettime %d", i);
			continue;
		}
		/* (its next expiry on the grid of its first, within 20 ms) */
		long long left = cur.it_value.tv_sec * PT_NS + cur.it_value.tv_nsec,
			  first = armed[i] + (i ? 1000000 : iv[i]),
			  d = ((pt_now(CLOCK_REALTIME) + left - first) % iv[i] + iv[i]) % iv[i];
		test_msg("timer %d (%s): %lld us left, %lld us off its grid\n", i, what[i], left / 1000,
			 (d > iv[i] / 2 ? d - iv[i] : d) / 1000);
		if (left <= 0 || left > iv[i] || (d > 20000000 && d < iv[i] - 20000000))
			fail("timer %d (%s): %lld us left, %lld us off its grid", i, what[i], left / 1000,
			     (d > iv[i] / 2 ? d - iv[i] : d) / 1000);
		char name[64];
		snprintf(name, sizeof(name), "timer %d (CLOCK_REALTIME, armed relative, %s)", i, what[i]);
		if (pt_base_check_sig(t[i], sig[i], 0, name))
			break;
	}
	pass();
	return 0;
}
