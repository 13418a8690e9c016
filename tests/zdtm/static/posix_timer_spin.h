/* What the CPU-time POSIX timer tests share: a spin of the calling thread's CPU time, a time left in ns, the
 * turns of the first thread and a second one. */
#ifndef ZDTM_POSIX_TIMER_SPIN_H
#define ZDTM_POSIX_TIMER_SPIN_H
#include <pthread.h>
#include "posix_timer.h"

/* The calling thread runs for ms of its own CPU time, in user mode mostly. */
static inline void pt_spin(long long ms)
{
	long long from = pt_now(CLOCK_THREAD_CPUTIME_ID);
	volatile unsigned long x = 0;
	while (pt_now(CLOCK_THREAD_CPUTIME_ID) - from < ms * 1000000LL)
		for (int i = 0; i < 100000; i++)
			x = x + 1;
}

/* The time left of timer t in ns (-1: timer_gettime failed). */
static inline long long pt_left(timer_t t)
{
	struct itimerspec cur;
	if (timer_gettime(t, &cur))
		return -1;
	return cur.it_value.tv_sec * PT_NS + cur.it_value.tv_nsec;
}

/* The turns of the first thread and a second one: the second says it made its timers (made 0, non-zero:
 * that failed), waits for its turn (go), runs (the first asleep, its CPU time standing still), says it is
 * done. -1: not yet. */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int made, go, done;
} pt_turns __attribute__((unused)) = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, -1, -1, -1};

static inline void pt_turn_set(int *what, int v)
{
	pthread_mutex_lock(&pt_turns.mu);
	*what = v;
	pthread_cond_broadcast(&pt_turns.cv);
	pthread_mutex_unlock(&pt_turns.mu);
}

static inline void pt_turn_wait(const int *what)
{
	pthread_mutex_lock(&pt_turns.mu);
	while (*what < 0)
		pthread_cond_wait(&pt_turns.cv, &pt_turns.mu);
	pthread_mutex_unlock(&pt_turns.mu);
}

/* The second thread started (fn) and its timers made (what: said when that failed); -1: failed. */
static inline int pt_thread_start(pthread_t *th, void *(*fn)(void *), const char *what)
{
	if (pthread_create(th, NULL, fn, NULL)) {
		fail("pthread_create");
		return -1;
	}
	pt_turn_wait(&pt_turns.made);
	if (pt_turns.made) {
		fail("%s in the thread", what);
		return -1;
	}
	return 0;
}

/* The second thread's turn, until it is done; joined. */
static inline void pt_thread_turn(pthread_t th)
{
	pt_turn_set(&pt_turns.go, 1);
	pt_turn_wait(&pt_turns.done);
	pthread_join(th, NULL);
}
#endif
