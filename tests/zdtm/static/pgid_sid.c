/* Process groups and sessions in a tree: a child leading its own group, a child that joined its
 * sibling's group, a child leading its own session with a grandchild in that session. After restore
 * every process has the same PID, parent, group and session. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

static volatile sig_atomic_t go;

static void on_usr1(int s)
{
	(void)s;
	go = 1;
}

static void ids_of(pid_t pid, int *ppid, int *pgid, int *sid)
{
	char path[64], *buf;
	*ppid = *pgid = *sid = -1;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, &buf) < 0)
		return;
	char *p = strrchr(buf, ')');
	if (p)
		sscanf(p + 2, "%*c %d %d %d", ppid, pgid, sid);
	free(buf);
}

/* Wait for SIGUSR1 (blocked, then sigsuspend), reap an optional child, exit 0. */
__attribute__((noreturn)) static void wait_and_exit(pid_t child)
{
	sigset_t empty;
	sigemptyset(&empty);
	while (!go)
		sigsuspend(&empty);
	if (child > 0) {
		int st;
		kill(child, SIGUSR1);
		waitpid(child, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			_exit(1);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	pid_t p[4];
	int want[4][3], ppid, pgid, sid;
	sigset_t m;
	int pfd[2];
	test_init(argc, argv);
	signal(SIGUSR1, on_usr1);
	usr1_mask(&m);
	if (pipe(pfd))
		fail("pipe");
	/* p[0]: own group */
	if ((p[0] = fork()) == 0) {
		test_forked();
		setpgid(0, 0);
		wait_and_exit(-1);
	}
	setpgid(p[0], p[0]);
	/* p[1]: in p[0]'s group */
	if ((p[1] = fork()) == 0) {
		test_forked();
		setpgid(0, p[0]);
		wait_and_exit(-1);
	}
	setpgid(p[1], p[0]);
	/* p[2]: own session, with a child p[3] in it */
	if ((p[2] = fork()) == 0) {
		test_forked();
		setsid();
		pid_t gc = fork();
		if (gc == 0)
			wait_and_exit(-1);
		if (write(pfd[1], &gc, sizeof(gc)) != sizeof(gc))
			_exit(2);
		wait_and_exit(gc);
	}
	if (read(pfd[0], &p[3], sizeof(p[3])) != sizeof(p[3]))
		fail("read grandchild pid");
	usleep(100000);
	for (int i = 0; i < 4; i++)
		ids_of(p[i], &want[i][0], &want[i][1], &want[i][2]);
	if (want[0][1] != p[0] || want[1][1] != p[0] || want[2][2] != p[2] || want[3][2] != p[2])
		fail("setup: groups/sessions not as planned");
	test_daemon();
	test_waitsig();
	for (int i = 0; i < 4; i++) {
		ids_of(p[i], &ppid, &pgid, &sid);
		if (ppid != want[i][0] || pgid != want[i][1] || sid != want[i][2])
			fail("task %d: ppid/pgid/sid %d/%d/%d, want %d/%d/%d", p[i], ppid, pgid, sid,
			     want[i][0], want[i][1], want[i][2]);
	}
	for (int i = 0; i < 3; i++) {
		int st;
		kill(p[i], SIGUSR1);
		if (waitpid(p[i], &st, 0) != p[i] || !WIFEXITED(st) || WEXITSTATUS(st))
			fail("child %d did not end well", p[i]);
	}
	return test_pass();
}
