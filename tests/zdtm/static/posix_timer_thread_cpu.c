/* A POSIX timer on CLOCK_THREAD_CPUTIME_ID made by a thread other than the first: it counts that thread's CPU
 * time, and nothing the kernel shows (/proc/PID/timers says ClockID 3, timer_gettime the time left) tells
 * which thread's; the restore would make it again in the first thread, counting the wrong thread's time.
 * The dump must refuse with one line, the test running on with its timer still armed, its interval kept.
 * Before, the dump went on. */
#include <pthread.h>
#include "posix_timer.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int made = -1, end;
static timer_t tm;

static void *thread(void *arg)
{
	struct sigevent sev;
	struct itimerspec its = {{10, 0}, {3600, 0}};
	(void)arg;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGRTMIN + 3;
	int r = timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &tm) || timer_settime(tm, 0, &its, NULL);
	pthread_mutex_lock(&mu);
	made = r;
	pthread_cond_broadcast(&cv);
	while (!end)
		pthread_cond_wait(&cv, &mu);
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

	if (timer_gettime(tm, &cur) || cur.it_interval.tv_sec != 10 || cur.it_interval.tv_nsec ||
	    (!cur.it_value.tv_sec && !cur.it_value.tv_nsec) || cur.it_value.tv_sec > 3600)
		fail("the thread's CPU-time timer reads interval %ld s, value %ld s",
		     (long)cur.it_interval.tv_sec, (long)cur.it_value.tv_sec);
	pthread_mutex_lock(&mu);
	end = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(th, NULL);
	pass();
	return 0;
}
