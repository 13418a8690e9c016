/* Processes born and dying all the time while the dump runs: a loop forks children that each write a
 * sequence number into a pipe and exit, and reaps them. The dump must freeze a tree that keeps changing
 * (new children, zombies). After restore the loop goes on: every child 1..N reported exactly once, every
 * exit status collected, no stray child left. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { R = 70, W = 71 };

static unsigned long seen;

static void read_reports(void)
{
	unsigned long v;
	while (read(R, &v, sizeof(v)) == (ssize_t)sizeof(v)) {
		if (v != seen + 1) {
			fail("child report %lu after %lu", v, seen);
			return;
		}
		seen = v;
	}
}

int main(int argc, char **argv)
{
	unsigned long born = 0;
	int st;
	pid_t c;

	test_init(argc, argv);
	pipe_at(R, W, O_NONBLOCK);
	test_daemon();
	while (test_go() && !test_failures) {
		unsigned long n = born + 1;
		c = fork();
		if (c < 0) {
			fail("fork");
			break;
		}
		if (c == 0) {
			_exit(write(W, &n, sizeof(n)) == (ssize_t)sizeof(n) ? (int)(n & 0x7f) : 255);
		}
		born = n;
		pid_t w;
		while ((w = waitpid(c, &st, 0)) < 0 && errno == EINTR) /* SIGTERM's handler */
			;
		if (w != c || !WIFEXITED(st) || WEXITSTATUS(st) != (int)(n & 0x7f)) {
			fail("child %lu (pid %d): status %#x", n, c, st);
			break;
		}
		read_reports();
	}
	read_reports();
	if (!test_failures && seen != born)
		fail("%lu children born, %lu reported", born, seen);
	no_child_left();
	test_msg("%lu children\n", born);
	if (!test_failures)
		pass();
	return 0;
}
