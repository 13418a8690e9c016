/* A POSIX timer on CLOCK_THREAD_CPUTIME_ID made by a thread other than the first counts that thread's CPU
 * time, which nothing the kernel shows tells (/proc/PID/timers says ClockID -2 or 3). After restore it must
 * still count that thread's time, not the first thread's: its time left drops by the 20 ms the thread spins
 * and not while the first thread spins (the other asleep); its interval is kept. Before, the dump refused it
 * (the restore made every timer in the first thread). */
#include "posix_timer_spin.h"

static timer_t tm;
static long long left[2];

static void *thread(void *arg)
{
	struct sigevent sev;
	struct itimerspec its = {{10, 0}, {3600, 0}};
	(void)arg;
	pt_sigev_blocked(&sev, SIGRTMIN + 3);
	int r = timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &tm) || timer_settime(tm, 0, &its, NULL);
	pt_turn_set(&pt_turns.made, r);
	pt_turn_wait(&pt_turns.go);
	/* the first thread waits on cv meanwhile: its CPU time stands still */
	left[0] = pt_left(tm);
	pt_spin(20);
	left[1] = pt_left(tm);
	pt_turn_set(&pt_turns.done, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	struct itimerspec cur;
	sigset_t s;

	test_init(argc, argv);
	sigemptyset(&s);
	sigaddset(&s, SIGRTMIN + 3);
	sigprocmask(SIG_BLOCK, &s, NULL);
	if (pt_thread_start(&th, thread, "timer_create/timer_settime"))
		return 1;
	test_daemon();
	test_waitsig();

	/* the other thread waits on cv: only the first one runs */
	long long a = pt_left(tm);
	pt_spin(20);
	long long b = pt_left(tm);
	if (timer_gettime(tm, &cur) || cur.it_interval.tv_sec != 10 || cur.it_interval.tv_nsec || a <= 0 ||
	    a > 3600 * PT_NS)
		fail("the thread's CPU-time timer reads interval %ld s, value %lld ns",
		     (long)cur.it_interval.tv_sec, a);
	if (a != b)
		fail(
		    "the time left went from %lld to %lld ns while only the first thread ran: it counts that "
		    "thread's CPU time",
		    a, b);
	pt_thread_turn(th);
	if (left[0] - left[1] < 10 * 1000000LL)
		fail("the time left went from %lld to %lld ns while its thread ran for 20 ms", left[0],
		     left[1]);
	pass();
	return 0;
}
