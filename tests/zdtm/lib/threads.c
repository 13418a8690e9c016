/* Threads of the thread tests (thread00, thread_state, thread_many, thread_sigmask): start, join, report. */
#include <pthread.h>
#include <string.h>
#include "zdtmtst.h"

void zthr_start(struct zthr *t, int n, void *(*fn)(void *), pthread_barrier_t *bar)
{
	pthread_barrier_init(bar, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].idx = i;
		if (pthread_create(&t[i].th, NULL, fn, &t[i]))
			fail("pthread_create");
	}
	pthread_barrier_wait(bar);
}

void zthr_join(struct zthr *t, int n)
{
	for (int i = 0; i < n; i++) {
		pthread_join(t[i].th, NULL);
		if (t[i].bad)
			fail("thread %d (tid %d): %s", i, t[i].tid, t[i].why);
	}
}
