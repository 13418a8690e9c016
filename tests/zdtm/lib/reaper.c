/* zdtm_reaper CMD ARGS...: run CMD as a child subreaper so that orphaned test
 * processes (daemonized tests, tasks restored with -d) are reaped at once
 * instead of lingering as zombies under pid 1. Exits with CMD's status. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t child, p;
	int st, ret = 1;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CMD [ARGS...]\n", argv[0]);
		return 2;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		perror("PR_SET_CHILD_SUBREAPER");
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[1], argv + 1);
		fprintf(stderr, "exec %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	for (;;) {
		p = waitpid(-1, &st, 0);
		if (p < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p == child)
			ret = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	return ret;
}
