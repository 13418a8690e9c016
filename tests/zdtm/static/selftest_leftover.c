/* Runner self-check: passes, but leaves a daemonized process behind (double fork, own session), which the
 * runner's reaper would wait for. Must show up as "not ok ... left processes behind". */
#include <signal.h>
#include <sys/wait.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	test_daemon();
	pid_t p = fork();
	if (p < 0) {
		fail("fork");
		return 1;
	}
	if (p == 0) {
		setsid();
		if (fork() == 0) {
			for (int i = 0; i < 600; i++)
				sleep(1);
			_exit(0);
		}
		_exit(0);
	}
	waitpid(p, NULL, 0);
	test_waitsig();
	pass();
	return 0;
}
