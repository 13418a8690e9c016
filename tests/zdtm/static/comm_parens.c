/* A process, its thread and its child named with parentheses, spaces and state-like letters (what
 * /proc/PID/stat puts between "(" and ")", from where the dump takes the name) keep their names. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NAME_MAIN "z) S 1 (q) x y" /* 14 chars */
#define NAME_THR "t) R 2 ((("
#define NAME_KID ") ( )"

static pid_t ttid;
static pthread_barrier_t bar;

static void *thr(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, NAME_THR, 0, 0, 0);
	ttid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&bar);
	for (;;)
		pause();
	return NULL;
}

static int check(const char *path, const char *want)
{
	char *c = NULL, exp[32];
	snprintf(exp, sizeof(exp), "%s\n", want);
	if (read_file(path, &c) < 0 || strcmp(c, exp)) {
		fail("%s: '%s', expected '%s'", path, c ? c : "?", want);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int p[2];
	char path[64], b;

	test_init(argc, argv);
	if (pipe(p))
		fail("pipe");
	pid_t kid = fork();
	if (kid < 0)
		fail("fork");
	if (!kid) {
		prctl(PR_SET_NAME, NAME_KID, 0, 0, 0);
		close(p[0]);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		/* (the test's ready pipe too: its starter waits for EOF) */
		syscall(SYS_close_range, 3, ~0U, 0);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &b, 1) != 1)
		fail("child not ready");
	if (prctl(PR_SET_NAME, NAME_MAIN))
		fail("PR_SET_NAME");
	pthread_barrier_init(&bar, NULL, 2);
	if (pthread_create(&t, NULL, thr, NULL))
		fail("pthread_create");
	pthread_barrier_wait(&bar);
	test_daemon();
	test_waitsig();
	int bad = check("/proc/self/comm", NAME_MAIN);
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)ttid);
	bad |= check(path, NAME_THR);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)kid);
	bad |= check(path, NAME_KID);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	if (!bad)
		pass();
	return 0;
}
