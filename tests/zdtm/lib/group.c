/* zdtm_group PIDFILE CMD...: the parent of a group of tests checkpointed together (run.sh --mode group).
 * Daemonizes (new session, child subreaper), runs each CMD with /bin/sh -c (a test's starter, which exits
 * once its test is ready: the daemonized test is adopted by us), writes our pid to PIDFILE, then reaps
 * children until killed. The starter exits 0 if all went well, 1 if a CMD failed. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int run_cmd(const char *cmd)
{
	int st;
	pid_t p = fork();
	if (p < 0)
		return -1;
	if (p == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	while (waitpid(p, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

int main(int argc, char **argv)
{
	int pfd[2];
	char c = 0;
	if (argc < 3) {
		fprintf(stderr, "usage: %s PIDFILE CMD...\n", argv[0]);
		return 2;
	}
	if (pipe(pfd))
		return 1;
	pid_t p = fork();
	if (p < 0)
		return 1;
	if (p > 0) {
		close(pfd[1]);
		return read(pfd[0], &c, 1) == 1 && c == 'R' ? 0 : 1;
	}
	close(pfd[0]);
	setsid();
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	for (int i = 2; i < argc; i++)
		if (run_cmd(argv[i])) {
			fprintf(stderr, "zdtm_group: failed: %s\n", argv[i]);
			return 1;
		}
	FILE *f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f))
		return 1;
	int fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0), dup2(fd, 1), dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	if (write(pfd[1], "R", 1) != 1)
		return 1;
	close(pfd[1]);
	for (;;)
		if (wait(NULL) < 0 && errno == ECHILD)
			pause();
}
