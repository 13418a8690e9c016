/* A periodic POSIX timer (10 ms) that signals a thread (SIGEV_THREAD_ID) which has exited since: it keeps
 * expiring, its signals go nowhere. After restore the timer is still there with its id and interval, still
 * running, and no signal of its number comes. Before, the dump succeeded and the restore failed
 * (timer_create: EINVAL, the thread is gone): the process was lost. */
#include <pthread.h>
#include "posix_timer.h"

static pid_t tid;
static pthread_barrier_t bar;

static void *thread(void *arg)
{
	tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&bar); /* the timer made */
	pthread_barrier_wait(&bar);
	return arg;
}

/* The timer's interval kept, its value running (within one interval), no signal of sig pending. */
static void check(timer_t t, int sig, const char *when)
{
	struct itimerspec cur;
	if (timer_gettime(t, &cur) || cur.it_interval.tv_sec || cur.it_interval.tv_nsec != 10000000L ||
	    (!cur.it_value.tv_sec && !cur.it_value.tv_nsec) || cur.it_value.tv_sec)
		fail("%s: interval %ld.%09ld s, value %ld.%09ld s", when, (long)cur.it_interval.tv_sec,
		     cur.it_interval.tv_nsec, (long)cur.it_value.tv_sec, cur.it_value.tv_nsec);
	if (pt_pending(sig))
		fail("%s: a signal %d pending", when, sig);
}

int main(int argc, char **argv)
{
	struct itimerspec its = {{0, 10000000L}, {0, 10000000L}};
	struct sigevent sev;
	pthread_t th;
	timer_t t;
	sigset_t s;
	int sig = SIGRTMIN + 2;
	test_init(argc, argv);
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_BLOCK, &s, NULL);
	pthread_barrier_init(&bar, NULL, 2);
	if (pthread_create(&th, NULL, thread, NULL)) {
		fail("pthread_create");
		return 1;
	}
	pthread_barrier_wait(&bar);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = sig;
	sev._sigev_un._tid = tid;
	if (timer_create(CLOCK_MONOTONIC, &sev, &t) || timer_settime(t, 0, &its, NULL)) {
		fail("timer to thread %d", tid);
		return 1;
	}
	pthread_barrier_wait(&bar);
	pthread_join(th, NULL);
	usleep(50000);
	check(t, sig, "before");
	test_daemon();
	test_waitsig();

	usleep(50000);
	check(t, sig, "after restore");
	return test_pass();
}
