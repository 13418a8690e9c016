/* Zombies: two children that ended (one with exit status 42, one killed by SIGUSR2) and were not reaped.
 * After restore they are still zombies with the same PIDs, and waitpid returns the same statuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	pid_t a, b;
	siginfo_t si;
	test_init(argc, argv);
	a = test_fork();
	if (a == 0) {
		_exit(42);
	}
	b = test_fork();
	if (b == 0) {
		signal(SIGUSR2, SIG_DFL);
		for (;;)
			pause();
	}
	kill(b, SIGUSR2);
	/* wait until both are zombies, without reaping them */
	if (waitid(P_PID, a, &si, WEXITED | WNOWAIT) || waitid(P_PID, b, &si, WEXITED | WNOWAIT))
		fail("waitid");
	test_daemon();
	test_waitsig();
	if (proc_state(a) != 'Z' || proc_state(b) != 'Z')
		fail("children %d %d: states %c %c, want zombies", a, b, proc_state(a), proc_state(b));
	int st;
	if (waitpid(a, &st, WNOHANG) != a)
		fail("waitpid(%d)", a);
	else if (!WIFEXITED(st) || WEXITSTATUS(st) != 42)
		fail("child %d: status %#x, want exit 42", a, st);
	if (waitpid(b, &st, WNOHANG) != b)
		fail("waitpid(%d)", b);
	else if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGUSR2)
		fail("child %d: status %#x, want killed by SIGUSR2", b, st);
	return test_pass();
}
