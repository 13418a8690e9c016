/* A SIGTRAP handler (and an ignored SIGTRAP in a child) survives the restore; raise(SIGTRAP) runs it. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

static volatile sig_atomic_t got;

static void on_trap(int sig)
{
	(void)sig;
	got++;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_trap}, old;
	int p[2] = {-1, -1}, st = 0;
	test_init(argc, argv);
	if (sigaction(SIGTRAP, &sa, NULL) || pipe(p))
		fail("setup");
	pid_t ch = fork();
	if (ch == 0) {
		char c;
		test_forked();
		signal(SIGTRAP, SIG_IGN);
		close(p[1]);
		read(p[0], &c, 1);
		struct sigaction o;
		sigaction(SIGTRAP, NULL, &o);
		if (o.sa_handler != SIG_IGN)
			_exit(2);
		raise(SIGTRAP);
		_exit(0);
	}
	close(p[0]);
	test_daemon();
	test_waitsig();
	if (sigaction(SIGTRAP, NULL, &old) || old.sa_handler != on_trap)
		fail("SIGTRAP handler %p after restore, want %p", (void *)old.sa_handler, (void *)on_trap);
	else {
		raise(SIGTRAP);
		if (got != 1)
			fail("the handler ran %d times", (int)got);
	}
	close(p[1]);
	if (waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child (SIGTRAP ignored): status %#x", st);
	return test_pass();
}
