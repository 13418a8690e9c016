/* Dumped while in nanosleep(1 h): after restore the sleep goes on (it does
 * not return early) until SIGTERM interrupts it with EINTR and a sane
 * remaining time. Also a clock_nanosleep(TIMER_ABSTIME) before that. */
#include <time.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct timespec req = {3600, 0}, rem = {0, 0}, t0, t1;
	int r;

	test_init(argc, argv);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	test_daemon();
	r = nanosleep(&req, &rem);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (r == 0)
		fail("nanosleep(3600 s) returned 0 after %ld s", (long)(t1.tv_sec - t0.tv_sec));
	else if (errno != EINTR)
		fail("nanosleep");
	else if (test_go())
		fail("nanosleep interrupted but not by SIGTERM");
	else if (rem.tv_sec > 3600 || rem.tv_sec < 3600 - (t1.tv_sec - t0.tv_sec) - 5)
		fail("remaining %ld s after %ld s of sleep", (long)rem.tv_sec, (long)(t1.tv_sec - t0.tv_sec));
	/* an absolute sleep still works after restore */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	t0.tv_nsec += 50000000;
	if (t0.tv_nsec >= 1000000000) {
		t0.tv_sec++;
		t0.tv_nsec -= 1000000000;
	}
	if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t0, NULL))
		fail("clock_nanosleep abs");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (t1.tv_sec < t0.tv_sec || (t1.tv_sec == t0.tv_sec && t1.tv_nsec < t0.tv_nsec))
		fail("clock_nanosleep woke early");
	pass();
	return 0;
}
