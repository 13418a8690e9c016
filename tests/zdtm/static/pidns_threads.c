/* Threads inside a PID namespace: its init (PID 1, own mounts and /proc) runs 4 threads, and a child runs 2.
 * After restore every thread has the same TID inside the namespace (gettid, /proc/self/task, and a signal
 * sent with tgkill to that TID reaches that very thread), and the child the same PID and parent. */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { NT = 4, NC = 2 };
static struct zthr th[NT];
static pthread_barrier_t bar;
static volatile int got[NT + 1];
static __thread int my_idx = -1;

static pid_t tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void on_usr1(int sig)
{
	(void)sig;
	if (my_idx >= 0)
		got[my_idx]++;
}

/* Each thread: records its TID, waits, then checks it and takes the signal aimed at it. */
static void *thread_fn(void *arg)
{
	struct zthr *t = arg;
	sigset_t s;
	my_idx = t->idx;
	t->tid = tid();
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	pthread_barrier_wait(&bar);
	while (test_go())
		usleep(10000);
	if (tid() != t->tid)
		zthr_bad(t, "gettid %d, want %d", tid(), t->tid);
	pthread_barrier_wait(&bar); /* the main thread sends SIGUSR1 to each tid */
	pthread_barrier_wait(&bar);
	if (got[t->idx] != 1)
		zthr_bad(t, "tid %d got %d signals aimed at it, want 1", t->tid, got[t->idx]);
	return NULL;
}

/* The TIDs in /proc/self/task (our namespace's /proc): sorted into out; the count. */
static int task_list(pid_t *out, int max)
{
	return proc_pids("/proc/self/task", out, max);
}

static int run_threads(int n, pid_t *before, int *nbefore)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &s, NULL); /* only the threads take it */
	signal(SIGUSR1, on_usr1);
	zthr_start(th, n, thread_fn, &bar);
	*nbefore = task_list(before, 64);
	return *nbefore == n + 1 ? 0 : -1;
}

static void check_threads(int n, const pid_t *before, int nbefore, const char *who)
{
	pid_t now[64];
	int k = task_list(now, 64);
	pthread_barrier_wait(&bar);
	if (k != nbefore || memcmp(now, before, sizeof(pid_t) * (size_t)k))
		fail("%s: /proc/self/task has %d threads (first %d), had %d (first %d)", who, k, now[0],
		     nbefore, before[0]);
	for (int i = 0; i < n; i++)
		if (syscall(SYS_tgkill, getpid(), th[i].tid, SIGUSR1))
			fail("%s: tgkill %d", who, th[i].tid);
	usleep(100000);
	pthread_barrier_wait(&bar);
	zthr_join(th, n);
}

/* The child: 2 threads; reports through its exit status. */
static void child(volatile int *ready)
{
	pid_t before[64];
	int nb;
	test_forked();
	if (run_threads(NC, before, &nb))
		_exit(2);
	*ready = 1;
	while (test_go())
		usleep(10000);
	check_threads(NC, before, nb, "child");
	_exit(test_failures ? 1 : 0);
}

int main(int argc, char **argv)
{
	pid_t before[64], c;
	int nb;
	volatile int *ready;
	test_init_pidns(argc, argv);
	ready = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ready == MAP_FAILED)
		fail("mmap");
	c = test_fork();
	if (c == 0) {
		child(ready);
	}
	if (run_threads(NT, before, &nb))
		fail("setup: %d threads in /proc/self/task", nb);
	for (int n = 0; !*ready; n++) {
		if (n > 10000)
			fail("setup: the child did not start its threads");
		usleep(1000);
	}
	if (getpid() != 1 || c != 2 || th[0].tid < 3)
		fail("setup: pid %d, child %d, first tid %d", getpid(), c, th[0].tid);
	test_daemon();
	test_waitsig();
	check_threads(NT, before, nb, "init");
	kill(c, SIGTERM);
	child_exit_ok(c, "its threads or TIDs differ");
	return test_pass();
}
