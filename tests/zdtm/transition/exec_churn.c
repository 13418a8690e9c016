/* Processes that exec while the dump seizes the tree: one loop forks children that execve this program
 * (a short run that exits with a code of its own), one child re-execs itself in a chain (its pid stays, its
 * image changes) and one child's second thread execs (the kernel kills the other threads and the exec'ing
 * thread takes the leader's pid). After restore the loops go on; every exit status is the one expected. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

static char *self;

static void run_exec(const char *kind, unsigned long n)
{
	char a[32];
	snprintf(a, sizeof(a), "%lu", n);
	char *args[] = {self, (char *)"--exec-child", (char *)kind, a, NULL};
	execv(self, args);
	_exit(120);
}

/* The exec'ed program: "plain N" exits with N & 0x3f; "chain N" execs itself with N - 1 until 0, then exits
 * with 42. */
static int exec_child(char **argv)
{
	unsigned long n = strtoul(argv[3], NULL, 10);
	if (!strcmp(argv[2], "chain") && n > 0)
		run_exec("chain", n - 1);
	if (!strcmp(argv[2], "chain"))
		return 42;
	return (int)(n & 0x3f);
}

static void *thread_exec(void *arg)
{
	run_exec("plain", (unsigned long)arg);
	return NULL;
}

/* A child whose second thread execs while the main thread spins. */
static pid_t spawn(int kind, unsigned long n)
{
	pid_t c = fork();
	if (c)
		return c;
	if (kind == 0)
		run_exec("plain", n);
	if (kind == 1)
		run_exec("chain", 5);
	pthread_t t;
	if (pthread_create(&t, NULL, thread_exec, (void *)n))
		_exit(121);
	for (;;)
		;
}

static int expected(int kind, unsigned long n)
{
	return kind == 1 ? 42 : (int)(n & 0x3f);
}

int main(int argc, char **argv)
{
	unsigned long n = 0;
	int st;

	self = realpath("/proc/self/exe", NULL);
	if (argc >= 4 && !strcmp(argv[1], "--exec-child"))
		return exec_child(argv);
	test_init(argc, argv);
	if (!self)
		fail("realpath /proc/self/exe");
	test_daemon();
	while (test_go() && !test_failures) {
		int kind = (int)(n % 3);
		pid_t c = spawn(kind, n);
		if (c < 0) {
			fail("fork");
			break;
		}
		pid_t w;
		while ((w = waitpid(c, &st, 0)) < 0 && errno == EINTR) /* SIGTERM's handler */
			;
		if (w != c || !WIFEXITED(st) || WEXITSTATUS(st) != expected(kind, n)) {
			fail("child %lu (pid %d, kind %d): status %#x", n, c, kind, st);
			break;
		}
		n++;
	}
	no_child_left();
	test_msg("%lu children\n", n);
	if (!test_failures)
		pass();
	return 0;
}
