/* A POSIX timer on CLOCK_THREAD_CPUTIME_ID made by the first thread of a process with another thread (the
 * dump tells it is the first thread's: its time left drops between two reads there): after restore it still
 * counts the first thread's CPU time, not the other's: read by the other thread before and after it spins
 * (the first thread asleep meanwhile), the time left is the same; its interval is kept. The dump refuses such
 * a timer of another thread (posix_timer_thread_cpu). */
#include "posix_timer_spin.h"

static timer_t tm;
static struct itimerspec got[2];

static void *thread(void *arg)
{
	(void)arg;
	pt_turn_wait(&pt_turns.go);
	/* the first thread waits on cv meanwhile: its CPU time stands still */
	timer_gettime(tm, &got[0]);
	pt_spin(20);
	timer_gettime(tm, &got[1]);
	pt_turn_set(&pt_turns.done, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigevent sev;
	struct itimerspec its = {{10, 0}, {3600, 0}};
	pthread_t th;

	test_init(argc, argv);
	pt_sigev_blocked(&sev, SIGRTMIN + 3);
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &tm) || timer_settime(tm, 0, &its, NULL) ||
	    pthread_create(&th, NULL, thread, NULL)) {
		fail("timer_create/timer_settime/pthread_create");
		return 1;
	}
	test_daemon();
	test_waitsig();

	pt_thread_turn(th);
	if (got[0].it_interval.tv_sec != 10 || got[0].it_interval.tv_nsec ||
	    (!got[0].it_value.tv_sec && !got[0].it_value.tv_nsec) || got[0].it_value.tv_sec > 3600)
		fail("the timer reads interval %ld s, value %ld s", (long)got[0].it_interval.tv_sec,
		     (long)got[0].it_value.tv_sec);
	if (got[0].it_value.tv_sec != got[1].it_value.tv_sec ||
	    got[0].it_value.tv_nsec != got[1].it_value.tv_nsec)
		fail("the time left went from %ld.%09ld to %ld.%09ld s while only the other thread ran: it "
		     "counts "
		     "that thread's CPU time",
		     (long)got[0].it_value.tv_sec, got[0].it_value.tv_nsec, (long)got[1].it_value.tv_sec,
		     got[1].it_value.tv_nsec);
	pass();
	return 0;
}
