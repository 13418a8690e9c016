/* 32 threads (sleeping, waiting on a condition variable, spinning) keep their TIDs, TLS and stacks. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NTHR 32

static __thread uint64_t tls_val;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile int stop;
static pthread_barrier_t bar;

static void *thr_fn(void *arg)
{
	struct zthr *t = arg;
	uint64_t stackbuf[512];
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	t->tid = (pid_t)syscall(SYS_gettid);
	tls_val = 0x9e3779b97f4a7c15ull * (uint64_t)(t->idx + 1);
	datagen(stackbuf, sizeof(stackbuf), (uint64_t)t->idx);
	pthread_barrier_wait(&bar);
	switch (t->idx % 3) {
	case 0:
		while (!stop) {
			struct timespec ts = {0, 2 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
		break;
	case 1:
		pthread_mutex_lock(&mu);
		while (!stop)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		break;
	default:
		while (!stop)
			__asm__ volatile("" ::: "memory");
	}
	if (tls_val != 0x9e3779b97f4a7c15ull * (uint64_t)(t->idx + 1))
		snprintf(t->why, sizeof(t->why), "TLS changed"), t->bad = 1;
	if ((pid_t)syscall(SYS_gettid) != t->tid)
		snprintf(t->why, sizeof(t->why), "tid changed"), t->bad = 1;
	if (datachk(stackbuf, sizeof(stackbuf), (uint64_t)t->idx, NULL))
		snprintf(t->why, sizeof(t->why), "stack data changed"), t->bad = 1;
	return NULL;
}

int main(int argc, char **argv)
{
	static struct zthr t[NTHR];
	test_init(argc, argv);
	zthr_start(t, NTHR, thr_fn, &bar);
	test_daemon();
	test_waitsig();
	char path[64];
	int n = 0;
	for (int i = 0; i < NTHR; i++) {
		snprintf(path, sizeof(path), "/proc/self/task/%d", t[i].tid);
		n += access(path, F_OK) == 0;
	}
	if (n != NTHR)
		fail("%d of %d threads there after restore", n, NTHR);
	pthread_mutex_lock(&mu);
	stop = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	zthr_join(t, NTHR);
	return test_pass();
}
