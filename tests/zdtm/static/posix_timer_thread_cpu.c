/* A POSIX timer on CLOCK_THREAD_CPUTIME_ID made by a thread other than the first counts that thread's CPU
 * time, which nothing the kernel shows tells (/proc/PID/timers says ClockID -2 or 3). After restore it must
 * still count that thread's time, not the first thread's: its time left drops by the 20 ms the thread spins
 * and not while the first thread spins (the other asleep); its interval is kept. Before, the dump refused it
 * (the restore made every timer in the first thread). */
#include <pthread.h>
#include "posix_timer_spin.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int made = -1, go, done;
static timer_t tm;
static long long left[2];

static void *thread(void *arg)
{
	struct sigevent sev;
	struct itimerspec its = {{10, 0}, {3600, 0}};
	(void)arg;
	pt_sigev_blocked(&sev, SIGRTMIN + 3);
	int r = timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &tm) || timer_settime(tm, 0, &its, NULL);
	pthread_mutex_lock(&mu);
	made = r;
	pthread_cond_broadcast(&cv);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	/* the first thread waits on cv meanwhile: its CPU time stands still */
	left[0] = pt_left(tm);
	pt_spin(20);
	left[1] = pt_left(tm);
	pthread_mutex_lock(&mu);
	done = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
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
	if (pthread_create(&th, NULL, thread, NULL)) {
		fail("pthread_create");
		return 1;
	}
	pthread_mutex_lock(&mu);
	while (made < 0)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	if (made) {
		fail("timer_create/timer_settime in the thread");
		return 1;
	}
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
	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	while (!done)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	pthread_join(th, NULL);
	if (left[0] - left[1] < 10 * 1000000LL)
		fail("the time left went from %lld to %lld ns while its thread ran for 20 ms", left[0],
		     left[1]);
	pass();
	return 0;
}
