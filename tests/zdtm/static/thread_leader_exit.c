/* A child whose main thread ended with pthread_exit while another thread lives on: a zombie leader with a
 * live thread, which crshim cannot restore. The dump must fail at once with one line saying so (before, the
 * seize took it for an exec in progress and tried again for 20 s, then blamed a tree that keeps changing),
 * and the tree keep running: after SIGTERM the child's thread checks its leader is still a zombie. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

static pid_t self;
static int ready[2];

static char leader_state(void)
{
	char p[64];
	char *s = NULL;
	snprintf(p, sizeof(p), "/proc/%d/task/%d/stat", (int)self, (int)self);
	if (read_file(p, &s) < 0)
		return 0;
	const char *c = strrchr(s, ')');
	char st = c && c[1] ? c[2] : 0;
	free(s);
	return st;
}

static void *thr(void *arg)
{
	sigset_t *term = arg;
	int sig;
	while (leader_state() != 'Z')
		usleep(1000);
	if (write(ready[1], "R", 1) != 1)
		_exit(2);
	sigwait(term, &sig);
	_exit(leader_state() == 'Z' && file_field("/proc/self/status", "Threads:", 10, -1) == 2 ? 0 : 3);
}

int main(int argc, char **argv)
{
	static sigset_t term;
	char c;
	int st;
	test_init(argc, argv);
	if (pipe(ready))
		return fail("pipe"), 1;
	pid_t kid = fork();
	if (kid == 0) {
		pthread_t t;
		test_forked();
		self = getpid();
		sigemptyset(&term);
		sigaddset(&term, SIGTERM);
		sigprocmask(SIG_BLOCK, &term, NULL);
		if (pthread_create(&t, NULL, thr, &term))
			_exit(1);
		pthread_exit(NULL);
	}
	if (kid < 0 || read(ready[0], &c, 1) != 1)
		return fail("child not ready"), 1;
	test_daemon();
	test_waitsig();
	kill(kid, SIGTERM);
	if (waitpid(kid, &st, 0) != kid || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: status %#x (3: its main thread no longer a zombie)", st);
	return test_pass();
}
