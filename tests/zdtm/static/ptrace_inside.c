/* A process of the tree traced by another process of the tree: the dump refuses with one line. */
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	int st;
	test_init(argc, argv);
	pid_t ch = test_fork();
	if (ch == 0) {
		for (;;)
			pause();
	}
	if (ptrace(PTRACE_SEIZE, ch, NULL, NULL))
		fail("PTRACE_SEIZE");
	test_daemon();
	test_waitsig();
	ptrace(PTRACE_DETACH, ch, NULL, NULL);
	kill(ch, SIGKILL);
	waitpid(ch, &st, 0);
	pass();
	return 0;
}
