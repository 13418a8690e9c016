/* Threads waiting in futexes: on a condition variable, on a raw futex without and with a timeout, on a
 * mutex held by another thread, and in a barrier. After restore each wakes when it should, and not before. */
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "zdtmtst.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER, held = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t bar;
static int ready_cv, go_cv, woke_early;
static volatile int fword, fword_to, go_to, holder_go, got_held, held_taken;
static volatile int started;

static long futex(volatile int *p, int op, int val, const struct timespec *ts)
{
	return syscall(SYS_futex, p, op, val, ts, NULL, 0);
}

static void block_sigs(void)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

/* A waiter that is up: signals blocked, counted in started. */
static void waiter_up(void)
{
	block_sigs();
	__sync_fetch_and_add(&started, 1);
}

static void *cv_waiter(void *arg)
{
	(void)arg;
	block_sigs();
	pthread_mutex_lock(&mu);
	ready_cv++;
	__sync_fetch_and_add(&started, 1);
	while (!go_cv)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return (void *)1;
}

static void *futex_waiter(void *arg)
{
	(void)arg;
	waiter_up();
	while (fword == 0)
		futex(&fword, FUTEX_WAIT, 0, NULL);
	return fword == 7 ? (void *)1 : NULL;
}

static void *futex_timed(void *arg)
{
	(void)arg;
	waiter_up();
	while (!go_to) {
		struct timespec ts = {0, 20 * 1000 * 1000};
		if (futex(&fword_to, FUTEX_WAIT, 0, &ts) == 0 && !go_to)
			woke_early = 1; /* nobody wakes it before go_to */
	}
	return (void *)1;
}

static void *holder(void *arg)
{
	(void)arg;
	block_sigs();
	pthread_mutex_lock(&held);
	held_taken = 1;
	__sync_fetch_and_add(&started, 1);
	while (!holder_go)
		futex(&holder_go, FUTEX_WAIT, 0, NULL);
	pthread_mutex_unlock(&held);
	return (void *)1;
}

static void *locker(void *arg)
{
	(void)arg;
	block_sigs();
	while (!held_taken) /* the holder has the mutex (the others' count does not say so) */
		usleep(1000);
	__sync_fetch_and_add(&started, 1);
	pthread_mutex_lock(&held); /* blocks until the holder lets go */
	got_held = holder_go;
	pthread_mutex_unlock(&held);
	return (void *)1;
}

static void *bar_waiter(void *arg)
{
	(void)arg;
	waiter_up();
	pthread_barrier_wait(&bar);
	return (void *)1;
}

int main(int argc, char **argv)
{
	void *(*fns[])(void *) = {cv_waiter, futex_waiter, futex_timed, holder, locker, bar_waiter};
	const char *names[] = {"condvar",      "futex",	       "futex timeout",
			       "mutex holder", "mutex waiter", "barrier"};
	pthread_t th[6];
	test_init(argc, argv);
	pthread_barrier_init(&bar, NULL, 2);
	for (int i = 0; i < 6; i++)
		if (pthread_create(&th[i], NULL, fns[i], NULL))
			fail("pthread_create");
	while (started < 6)
		usleep(1000);
	usleep(100000); /* all of them inside their waits */
	test_daemon();
	test_waitsig();
	usleep(100000);
	if (got_held)
		fail("the mutex waiter got the mutex while it was held");
	if (woke_early)
		fail("a timed futex wait returned 0 without a wake");
	pthread_mutex_lock(&mu);
	go_cv = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	fword = 7;
	futex(&fword, FUTEX_WAKE, 1, NULL);
	go_to = 1;
	holder_go = 1;
	futex(&holder_go, FUTEX_WAKE, 1, NULL);
	pthread_barrier_wait(&bar);
	for (int i = 0; i < 6; i++) {
		void *r = NULL;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 5;
		if (pthread_timedjoin_np(th[i], &r, &ts))
			fail("%s thread does not end after the wake", names[i]);
		else if (r != (void *)1)
			fail("%s thread: wrong value after the wake", names[i]);
	}
	if (!got_held)
		fail("the mutex waiter ran before the holder let go");
	return test_pass();
}
