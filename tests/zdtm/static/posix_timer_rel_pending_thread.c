/* A periodic CLOCK_REALTIME POSIX timer armed relative (100 ms) that signals a thread other than the first
 * (SIGEV_THREAD_ID; its signal blocked in every thread), its own signal pending in that thread at the dump.
 * While its signal is pending the timer is off /proc/timer_list, which alone tells how a CLOCK_REALTIME
 * timer was armed: the dump took the pending signal of a timer of the process or of the first thread only,
 * and restored this one armed absolute (TIMER_ABSTIME, "clock 1": it follows clock_settime). After C/R, in
 * the thread: its signals must count every expiry since its first, its next expiry be on its grid, and it
 * must be on the kernel's CLOCK_MONOTONIC hrtimer base ("clock 0"), as one armed relative is. */
#include <pthread.h>
#include "posix_timer.h"

#define IV (100 * 1000000LL)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int stage; /* 1: the timer made and its signal pending; 2: check */
static timer_t t;
static int sig;
static long long first;

static void stage_set(int s)
{
	pthread_mutex_lock(&mu);
	stage = s;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

static void stage_wait(int s)
{
	pthread_mutex_lock(&mu);
	while (stage < s)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static void *thread(void *arg)
{
	const struct itimerspec set = {{0, IV}, {0, 1000000}};
	struct sigevent sev;
	(void)arg;
	pt_sigev_blocked(&sev, sig);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	first = pt_now(CLOCK_REALTIME) + 1000000;
	if (timer_create(CLOCK_REALTIME, &sev, &t) || timer_settime(t, 0, &set, NULL)) {
		fail("timer_create/timer_settime");
		stage_set(-1);
		return NULL;
	}
	while (!pt_pending(sig))
		usleep(10000);
	stage_set(1);
	stage_wait(2);
	pt_rel_check(t, sig, IV, first, first, "CLOCK_REALTIME timer armed relative, signalling a thread");
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	sigset_t s;

	test_init(argc, argv);
	sig = SIGRTMIN + 21;
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_BLOCK, &s, NULL); /* (the thread inherits it) */
	if (pthread_create(&th, NULL, thread, NULL)) {
		fail("pthread_create");
		return 1;
	}
	stage_wait(1);
	if (stage < 0)
		return 1;
	if (pt_pending(sig))
		fail("the timer's signal is pending in the first thread too");
	test_daemon();
	test_waitsig();
	stage_set(2);
	pthread_join(th, NULL);
	pass();
	return 0;
}
