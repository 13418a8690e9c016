/* Stopped multi-threaded processes: a child with three threads stopped by SIGSTOP (group stop), and a
 * child stopped by a SIGSTOP sent to one of its threads with tgkill. After restore every thread of both is
 * stopped (T), they stay stopped, and on SIGCONT all threads run on with their data and the children exit
 * cleanly. */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NT 3

static volatile unsigned long ticks[NT];
static volatile pid_t tids[NT];

static void *spin(void *arg)
{
	int i = (int)(long)arg;
	tids[i] = (pid_t)syscall(SYS_gettid);
	for (;;) {
		ticks[i]++;
		usleep(1000);
	}
	return NULL;
}

/* The child: threads that tick; exits 0 once every thread ticked again after SIGCONT. */
static void child(int by_thread)
{
	pthread_t t;
	unsigned long before[NT];
	test_forked();
	for (long i = 0; i < NT; i++)
		if (pthread_create(&t, NULL, spin, (void *)i))
			_exit(2);
	for (int i = 0; i < NT; i++)
		while (!tids[i] || !ticks[i])
			usleep(1000);
	if (by_thread)
		syscall(SYS_tgkill, getpid(), tids[1], SIGSTOP);
	else
		raise(SIGSTOP);
	/* here after SIGCONT */
	for (int i = 0; i < NT; i++)
		before[i] = ticks[i];
	for (int n = 0; n < 5000; n++) {
		int all = 1;
		for (int i = 0; i < NT; i++)
			all &= ticks[i] > before[i] + 2;
		if (all)
			_exit(0);
		usleep(1000);
	}
	_exit(3);
}

/* Every thread of pid stopped? */
static int all_stopped(pid_t pid, int *nthreads)
{
	char path[64];
	pid_t t[256];
	int bad = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	int n = proc_pids(path, t, 256);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++)
		if (proc_state(t[i]) != 'T')
			bad++;
	*nthreads = n;
	return !bad;
}

int main(int argc, char **argv)
{
	pid_t ch[2];
	int st, n;

	test_init(argc, argv);
	for (int k = 0; k < 2; k++) {
		ch[k] = fork();
		if (ch[k] == 0)
			child(k);
		if (waitpid(ch[k], &st, WUNTRACED) != ch[k] || !WIFSTOPPED(st))
			fail("child %d did not stop", k);
	}
	for (int k = 0; k < 2; k++)
		if (!all_stopped(ch[k], &n) || n != NT + 1)
			fail("setup: child %d: %d threads, not all stopped", k, n);
	test_daemon();
	test_waitsig();
	for (int k = 0; k < 2; k++) {
		/* each restored thread stops once it runs: wait (30 s at most on a loaded machine) */
		for (int i = 0; i < 30000 && !(all_stopped(ch[k], &n) && n == NT + 1); i++)
			usleep(1000);
		if (!all_stopped(ch[k], &n) || n != NT + 1)
			fail("child %d: %d threads after restore, not all stopped (want %d stopped)", k, n,
			     NT + 1);
		kill(ch[k], SIGCONT);
		if (waitpid(ch[k], &st, 0) != ch[k] || !WIFEXITED(st) || WEXITSTATUS(st))
			fail("child %d: status %#x after SIGCONT, want exit 0", k, st);
	}
	return test_pass();
}
