/* Threads: each thread has its own blocked mask and its own pending signals (queued with a value to the
 * thread), and a process-wide signal is pending too; after restore every thread has the same mask, the
 * same pending set, and dequeues the same values. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NTHR 4
#define SIG_SHARED (SIGRTMIN + 10)

static pthread_barrier_t bar;

static int sig_of(int idx)
{
	return SIGRTMIN + 1 + idx; /* each thread's own signal */
}

static void mask_of(int idx, sigset_t *s)
{
	sigemptyset(s);
	sigaddset(s, SIGTERM); /* only the main thread takes SIGTERM */
	sigaddset(s, SIG_SHARED);
	sigaddset(s, sig_of(idx));
	if (idx % 2)
		sigaddset(s, SIGUSR1);
	else
		sigaddset(s, SIGUSR2);
	for (int k = 0; k < idx; k++)
		sigaddset(s, SIGRTMIN + 20 + k);
}

static void *thr_fn(void *arg)
{
	struct zthr *t = arg;
	sigset_t want, cur, pend;
	t->tid = (pid_t)syscall(SYS_gettid);
	mask_of(t->idx, &want);
	pthread_sigmask(SIG_SETMASK, &want, NULL);
	pthread_barrier_wait(&bar); /* main queues the signals */
	pthread_barrier_wait(&bar); /* after restore */
	pthread_sigmask(SIG_SETMASK, NULL, &cur);
	for (int s = 1; s < SIGRTMAX; s++)
		if (sigismember(&cur, s) != sigismember(&want, s)) {
			snprintf(t->why, sizeof(t->why), "signal %d %sblocked", s,
				 sigismember(&cur, s) ? "" : "not ");
			t->bad = 1;
			return NULL;
		}
	sigpending(&pend);
	for (int s = 1; s < SIGRTMAX; s++) {
		int exp = s == sig_of(t->idx) || s == SIG_SHARED;
		if (sigismember(&pend, s) != exp) {
			snprintf(t->why, sizeof(t->why), "signal %d %spending", s, exp ? "not " : "");
			t->bad = 1;
			return NULL;
		}
	}
	sigset_t one;
	siginfo_t si;
	struct timespec ts = {0, 0};
	sigemptyset(&one);
	sigaddset(&one, sig_of(t->idx));
	for (int n = 0; n < 2; n++) {
		if (sigtimedwait(&one, &si, &ts) != sig_of(t->idx) ||
		    si.si_value.sival_int != t->idx * 100 + n) {
			snprintf(t->why, sizeof(t->why), "queued signal %d: value %d, want %d", n,
				 si.si_value.sival_int, t->idx * 100 + n);
			t->bad = 1;
			return NULL;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct zthr t[NTHR];
	test_init(argc, argv);
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIG_SHARED);
	pthread_sigmask(SIG_BLOCK, &m, NULL);
	zthr_start(t, NTHR, thr_fn, &bar);
	for (int i = 0; i < NTHR; i++)
		for (int n = 0; n < 2; n++)
			if (pthread_sigqueue(t[i].th, sig_of(i), (union sigval){.sival_int = i * 100 + n}))
				fail("pthread_sigqueue");
	if (sigqueue(getpid(), SIG_SHARED, (union sigval){.sival_int = 4242}))
		fail("sigqueue");
	test_daemon();
	test_waitsig();
	pthread_barrier_wait(&bar);
	zthr_join(t, NTHR);
	siginfo_t si;
	struct timespec ts = {0, 0};
	if (sigtimedwait(&m, &si, &ts) != SIG_SHARED || si.si_value.sival_int != 4242)
		fail("process-wide pending signal lost");
	return test_pass();
}
