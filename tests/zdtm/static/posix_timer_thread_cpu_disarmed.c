/* Two disarmed POSIX timers on CLOCK_THREAD_CPUTIME_ID in a process with two threads, one made by each
 * thread: after restore, armed again, each counts the CPU time of the thread that made it: its time left
 * drops by the 20 ms its thread spins and not while the other thread spins (asleep meanwhile). Before, the
 * dump refused both (which thread's time they count cannot be told from their time left, which stands
 * still). */
#include "posix_timer_spin.h"

static timer_t tl, tt; /* the first thread's, the other's */
static long long lt[2], ll[2];
/* at most this much CPU time of a thread asleep on cv (of its way into the sleep) while the other spins 20 ms
 */
#define IDLE_NS (2 * 1000000LL)

static void *thread(void *arg)
{
	struct sigevent sev;
	(void)arg;
	pt_sigev_blocked(&sev, SIGRTMIN + 3);
	int r = timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &tt);
	pt_turn_set(&pt_turns.made, r);
	pt_turn_wait(&pt_turns.go);
	/* the first thread waits on cv meanwhile: its CPU time stands still (but for the few microseconds it
	 * may still run on the other CPU between its broadcast and its sleep: IDLE_NS) */
	lt[0] = pt_left(tt), ll[0] = pt_left(tl);
	pt_spin(20);
	lt[1] = pt_left(tt), ll[1] = pt_left(tl);
	pt_turn_set(&pt_turns.done, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	struct itimerspec its = {{0, 0}, {3600, 0}};
	struct sigevent sev;
	pthread_t th;

	test_init(argc, argv);
	pt_sigev_blocked(&sev, SIGRTMIN + 3);
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &tl)) {
		fail("timer_create");
		return 1;
	}
	if (pt_thread_start(&th, thread, "timer_create"))
		return 1;
	test_daemon();
	test_waitsig();

	if (pt_left(tl) != 0 || pt_left(tt) != 0)
		fail("disarmed timers read %lld and %lld ns left", pt_left(tl), pt_left(tt));
	if (timer_settime(tl, 0, &its, NULL) || timer_settime(tt, 0, &its, NULL)) {
		fail("timer_settime");
		return 1;
	}
	/* the other thread waits on cv: only the first one runs */
	long long l0 = pt_left(tl), t0 = pt_left(tt);
	pt_spin(20);
	long long l1 = pt_left(tl), t1 = pt_left(tt);
	if (l0 - l1 < 10 * 1000000LL || t0 - t1 > IDLE_NS)
		fail("the first thread ran 20 ms: its timer went from %lld to %lld ns left, the other "
		     "thread's from %lld to %lld",
		     l0, l1, t0, t1);
	pt_thread_turn(th);
	if (lt[0] - lt[1] < 10 * 1000000LL || ll[0] - ll[1] > IDLE_NS)
		fail("the other thread ran 20 ms: its timer went from %lld to %lld ns left, the first "
		     "thread's from %lld to %lld",
		     lt[0], lt[1], ll[0], ll[1]);
	pass();
	return 0;
}
