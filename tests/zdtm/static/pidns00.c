/* A tree whose root is PID 1 of its own PID namespace, with its own mount namespace and /proc (as under
 * `unshare --pid --fork --mount-proc`): two children, a grandchild and a zombie. After restore the root is
 * still PID 1, every process has the same PID and parent inside the namespace, /proc shows this namespace
 * (only our processes, /proc/self is 1), and the zombie reports its status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { C1, C2, G, Z, N };
static volatile pid_t *sh;

static void check(const pid_t *p, const struct tree_ids *tab, const char *when)
{
	if (getpid() != 1 || pidns_proc_self() != 1)
		fail("%s: getpid %d, /proc/self %d, want 1", when, getpid(), pidns_proc_self());
	if (pidns_count_proc() != N + 1)
		fail("%s: %d processes in /proc, want %d", when, pidns_count_proc(), N + 1);
	for (int i = 0; i < N; i++) {
		struct tree_ids now;
		/* a zombie or not (running and sleeping change all the time, R while setting up) */
		if (tree_ids_of(p[i], &now) || now.ppid != tab[i].ppid ||
		    (now.state == 'Z') != (tab[i].state == 'Z'))
			fail("%s: process %d: ppid %d state %c, want %d %c", when, p[i], now.ppid, now.state,
			     tab[i].ppid, tab[i].state);
	}
}

int main(int argc, char **argv)
{
	pid_t p[N];
	struct tree_ids tab[N];
	int st;
	test_init_pidns(argc, argv);
	sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		fail("mmap");
	if ((p[C1] = fork()) == 0)
		tree_sleep();
	if ((p[C2] = fork()) == 0) {
		pid_t g = tree_sleeper();
		sh[G] = g;
		tree_sleep();
	}
	if ((p[Z] = fork()) == 0)
		_exit(5);
	while (!sh[G])
		usleep(1000);
	p[G] = sh[G];
	siginfo_t zi = {0}; /* Z is a zombie (not reaped: WNOWAIT) before the ids are recorded */
	if (waitid(P_PID, (id_t)p[Z], &zi, WEXITED | WNOWAIT))
		fail("setup: waitid for the zombie");
	for (int i = 0; i < N; i++)
		if (tree_ids_of(p[i], &tab[i]))
			fail("setup: no process %d", p[i]);
	if (tab[Z].state != 'Z' || tab[G].ppid != p[C2] || p[C1] < 2 || p[C1] > 10)
		fail("setup: tree not as planned (%d %c)", p[C1], tab[Z].state);
	check(p, tab, "setup");
	test_daemon();
	test_waitsig();
	check(p, tab, "after restore");
	if (waitpid(p[Z], &st, 0) != p[Z] || !WIFEXITED(st) || WEXITSTATUS(st) != 5)
		fail("zombie %d: status %#x", p[Z], st);
	tree_end(p, N);
	return test_pass();
}
