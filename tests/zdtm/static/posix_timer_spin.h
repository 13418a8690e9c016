/* What the CPU-time POSIX timer tests share: a spin of the calling thread's CPU time, a time left in ns. */
#ifndef ZDTM_POSIX_TIMER_SPIN_H
#define ZDTM_POSIX_TIMER_SPIN_H
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
#endif
