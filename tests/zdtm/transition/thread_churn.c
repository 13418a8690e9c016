/* Threads and a child changing memory all the time while the dump runs: each rewrites its own buffer
 * in sweeps, every word of a sweep the sweep number. All threads and processes are frozen together, so
 * after restore every buffer holds one consistent sweep boundary: words [0, k) of sweep g+1, the rest g,
 * with k the position the writer itself remembers. Checked after every sweep and at the end. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NTHR 3
#define WORDS (256 * 1024)

static volatile int stop;

struct w {
	pthread_t th;
	uint64_t *buf;
	int bad;
};

/* One writer: sweeps until stop; returns 0 if every check held. */
static int churn(uint64_t *buf, volatile int *stopp)
{
	uint64_t g = 1;
	memset(buf, 0, WORDS * sizeof(*buf));
	for (;;) {
		for (size_t i = 0; i < WORDS; i++) {
			if (buf[i] != g - 1)
				return -1; /* the rest of the buffer must still hold the previous sweep */
			buf[i] = g;
		}
		for (size_t i = 0; i < WORDS; i++)
			if (buf[i] != g)
				return -1;
		g++;
		if (*stopp)
			return 0;
	}
}

static void *thr_fn(void *arg)
{
	struct w *w = arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	w->bad = churn(w->buf, &stop) != 0;
	return NULL;
}

static volatile sig_atomic_t child_stop;
static void on_usr1(int s)
{
	(void)s;
	child_stop = 1;
}

int main(int argc, char **argv)
{
	struct w w[NTHR];
	test_init(argc, argv);
	pid_t ch = fork();
	if (ch == 0) {
		test_forked();
		signal(SIGUSR1, on_usr1);
		uint64_t *b = malloc(WORDS * sizeof(*b));
		_exit(churn(b, (volatile int *)&child_stop) ? 1 : 0);
	}
	for (int i = 0; i < NTHR; i++) {
		w[i].buf = malloc(WORDS * sizeof(uint64_t));
		w[i].bad = 0;
		if (pthread_create(&w[i].th, NULL, thr_fn, &w[i]))
			fail("pthread_create");
	}
	test_daemon();
	test_waitsig();
	stop = 1;
	for (int i = 0; i < NTHR; i++) {
		pthread_join(w[i].th, NULL);
		if (w[i].bad)
			fail("thread %d: its buffer is not one consistent sweep", i);
	}
	int st;
	kill(ch, SIGUSR1);
	if (waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: its buffer is not one consistent sweep (status %#x)", st);
	if (!test_failures)
		pass();
	return 0;
}
