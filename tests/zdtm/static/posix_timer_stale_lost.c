/* A periodic POSIX timer (CLOCK_MONOTONIC, 30 s) whose own signal (blocked) is stale at the dump: queued,
 * then the timer armed again within its interval (20 s left). The dump takes the signal to read the
 * expiries it counts, finds it dropped (stale) and has the timer queue it again. Mode fault, point
 * dump-timer-lost: the dump fails there as if the timer could not queue it again, and the task queues the
 * signal back itself (engine/task/dump-core.c stale_back): a plain signal now, no longer stale. Then
 * (fault-redump) a dump and a restore of the tree that went on. After that the signal must still be the
 * plain one: pending, and taken (not dropped) after the timer is armed again. Before, that copy carried no
 * mark of crshim's copies: the second dump took it for the timer's own, had the timer queue a live one in
 * its place, which the timer's arming then made stale: dropped. Other modes (and points): the signal is
 * still stale after C/R: pending, dropped when taken after the timer is armed again. */
#include <libgen.h>
#include "posix_timer.h"

/* Whether the failed dump's line (fault.out next to the outfile, mode fault) names point. */
static int fault_at(const char *point)
{
	const char *out = test_opt("outfile");
	char dir[4096], path[4200], line[4096] = "";
	if (!out)
		return 0;
	snprintf(dir, sizeof(dir), "%s", out);
	snprintf(path, sizeof(path), "%s/fault.out", dirname(dir));
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	return strstr(line, point) != NULL;
}

int main(int argc, char **argv)
{
	const struct itimerspec first = {{30, 0}, {0, 1000000}}, again = {{30, 0}, {20, 0}};
	const int sig = SIGRTMIN + 23;
	struct sigevent sev;
	timer_t t;

	test_init(argc, argv);
	pt_sigev_blocked(&sev, sig);
	if (timer_create(CLOCK_MONOTONIC, &sev, &t) || timer_settime(t, 0, &first, NULL)) {
		fail("timer_create/timer_settime");
		return 1;
	}
	while (!pt_pending(sig))
		usleep(10000);
	if (timer_settime(t, 0, &again, NULL)) {
		fail("timer_settime again");
		return 1;
	}
	test_daemon();
	test_waitsig();

	int lost = fault_at("fault injected at dump-timer-lost");
	test_msg("the dump %s at dump-timer-lost\n", lost ? "failed" : "did not fail");
	if (!pt_pending(sig))
		fail("the timer's signal is no longer pending: lost");
	/* (armed again as it is: a live timer signal pending becomes stale, a plain one stays) */
	struct itimerspec cur;
	if (timer_gettime(t, &cur) || timer_settime(t, 0, &cur, NULL))
		fail("timer_gettime/timer_settime");
	int taken = pt_take(sig);
	test_msg("after timer_settime, the signal %s\n", taken ? "taken" : "dropped");
	if (lost && !taken)
		fail("the plain signal the failed dump queued back was dropped after timer_settime: the dump "
		     "after it took it for the timer's own");
	if (!lost && taken)
		fail("the stale signal was taken (not stale any more)");
	pass();
	return 0;
}
