/* Timers on clocks that do not depend on the thread that set them, set by a thread other than the first:
 * a POSIX timer on CLOCK_PROCESS_CPUTIME_ID, setitimer ITIMER_PROF and ITIMER_VIRTUAL (per process). Dumped
 * (not refused as the thread CPU-time timers of posix_timer_thread_cpu once were) and after restore armed,
 * interval kept, counting the process's CPU time: the first thread's spin moves each on (20 ms of it, or
 * more until the itimers moved by a tick: 2 s at most). (A guard:
 * passes before the change that restores those thread CPU-time timers.) */
#include <sys/time.h>
#include "posix_timer_spin.h"

static timer_t tm;

static void *thread(void *arg)
{
	struct sigevent sev;
	struct itimerspec its = {{10, 0}, {3600, 0}};
	struct itimerval iv = {{10, 0}, {3600, 0}};
	(void)arg;
	pt_sigev_blocked(&sev, SIGRTMIN + 3);
	int r = timer_create(CLOCK_PROCESS_CPUTIME_ID, &sev, &tm) || timer_settime(tm, 0, &its, NULL) ||
		setitimer(ITIMER_PROF, &iv, NULL) || setitimer(ITIMER_VIRTUAL, &iv, NULL);
	pt_turn_set(&pt_turns.made, r);
	pt_turn_wait(&pt_turns.go);
	pt_turn_set(&pt_turns.done, 1);
	return NULL;
}

static long long itv_left(int which, long *isec)
{
	struct itimerval v;
	if (getitimer(which, &v))
		return -1;
	*isec = v.it_interval.tv_sec;
	return v.it_value.tv_sec * 1000000LL + v.it_value.tv_usec;
}

int main(int argc, char **argv)
{
	static const int which[2] = {ITIMER_PROF, ITIMER_VIRTUAL};
	static const char *const name[2] = {"ITIMER_PROF", "ITIMER_VIRTUAL"};
	struct itimerspec cur;
	long long a[2], b[2];
	long isec[2];
	pthread_t th;

	test_init(argc, argv);
	if (pt_thread_start(&th, thread, "timer_create/timer_settime/setitimer"))
		return 1;
	test_daemon();
	test_waitsig();

	long long p0 = pt_left(tm);
	for (int i = 0; i < 2; i++)
		a[i] = itv_left(which[i], &isec[i]);
	long long p1;
	/* the itimers move by ticks, which go to whoever runs then: under load, 20 ms may get none */
	for (int n = 0; n < 100; n++) {
		pt_spin(20);
		p1 = pt_left(tm);
		for (int i = 0; i < 2; i++)
			b[i] = itv_left(which[i], &isec[i]);
		if (a[0] > b[0] && a[1] > b[1])
			break;
	}
	if (timer_gettime(tm, &cur) || cur.it_interval.tv_sec != 10 || cur.it_interval.tv_nsec || p0 <= 0 ||
	    p0 > 3600 * PT_NS || p0 - p1 < 10 * 1000000LL)
		fail("the CLOCK_PROCESS_CPUTIME_ID timer reads interval %ld s, %lld then %lld ns left around "
		     "a spin",
		     (long)cur.it_interval.tv_sec, p0, p1);
	for (int i = 0; i < 2; i++)
		if (isec[i] != 10 || a[i] <= 0 || a[i] > 3601 * 1000000LL || a[i] <= b[i])
			fail("%s reads interval %ld s, %lld then %lld us left after its spin", name[i],
			     isec[i], a[i], b[i]);
	pt_thread_turn(th);
	pass();
	return 0;
}
