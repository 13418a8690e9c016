/* Children made by clone() with an exit signal other than SIGCHLD: a live one with SIGUSR1, a live one with
 * none (0), a zombie with SIGUSR2 and a zombie with none. After restore the live ones have the same exit
 * signal (/proc/PID/stat field 38) and, when killed, the one with SIGUSR1 sends it; all four are "clone"
 * children still: waitpid without __WCLONE does not see them (ECHILD), with __WCLONE it reaps each with its
 * status (before: every restored child had SIGCHLD, so a plain wait() reaped them and the SIGUSR1 never
 * came, without a word). */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define STK (64 << 10)
static char stacks[4][STK] __attribute__((aligned(16)));
static volatile sig_atomic_t usr1;

static void on_usr1(int s)
{
	(void)s;
	usr1++;
}

static int sleeper(void *arg)
{
	(void)arg;
	test_forked();
	for (;;)
		pause();
	return 0;
}

static int quitter(void *arg)
{
	return (int)(long)arg;
}

static long exit_signal(pid_t pid)
{
	char path[64], *b = NULL;
	long v = -1;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	char *s = read_file(path, &b) > 0 ? strrchr(b, ')') : NULL;
	int f = 2;
	for (char *t = s ? strtok(s + 2, " ") : NULL; t; t = strtok(NULL, " "))
		if (++f == 38) {
			v = atol(t);
			break;
		}
	free(b);
	return v;
}

/* A clone child: not seen without __WCLONE, reaped with it (status want). */
static void reap_clone_child(pid_t pid, int want, const char *what)
{
	int st = -1;
	errno = 0;
	if (waitpid(pid, &st, WNOHANG) != -1 || errno != ECHILD)
		fail("%s: seen by waitpid without __WCLONE (a SIGCHLD child)", what);
	if (waitpid(pid, &st, __WCLONE) != pid || st != want)
		fail("%s: waitpid(__WCLONE): status %#x, want %#x", what, st, want);
}

int main(int argc, char **argv)
{
	pid_t live[2], dead[2];

	test_init(argc, argv);
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, SIG_IGN);
	live[0] = clone(sleeper, stacks[0] + STK, SIGUSR1, NULL);
	live[1] = clone(sleeper, stacks[1] + STK, 0, NULL);
	dead[0] = clone(quitter, stacks[2] + STK, SIGUSR2, (void *)7L);
	dead[1] = clone(quitter, stacks[3] + STK, 0, (void *)9L);
	if (live[0] < 0 || live[1] < 0 || dead[0] < 0 || dead[1] < 0) {
		fail("clone");
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		siginfo_t si;
		if (waitid(P_PID, (id_t)dead[i], &si, WEXITED | WNOWAIT | __WCLONE)) {
			fail("waitid zombie %d", i);
			return 1;
		}
	}
	if (exit_signal(live[0]) != SIGUSR1 || exit_signal(live[1]) != 0) {
		fail("exit signals before the dump: %ld %ld", exit_signal(live[0]), exit_signal(live[1]));
		return 1;
	}
	test_daemon();
	test_waitsig();

	if (exit_signal(live[0]) != SIGUSR1)
		fail("exit signal %ld, want SIGUSR1", exit_signal(live[0]));
	if (exit_signal(live[1]) != 0)
		fail("exit signal %ld, want none", exit_signal(live[1]));
	reap_clone_child(dead[0], 7 << 8, "zombie (SIGUSR2)");
	reap_clone_child(dead[1], 9 << 8, "zombie (none)");
	usr1 = 0;
	kill(live[0], SIGKILL);
	kill(live[1], SIGKILL);
	reap_clone_child(live[0], SIGKILL, "child (SIGUSR1)");
	reap_clone_child(live[1], SIGKILL, "child (none)");
	if (!usr1)
		fail("no SIGUSR1 when the child with exit signal SIGUSR1 ended");
	pass();
	return 0;
}
