/* The shape of CRIU's zdtm flavor ns: the PID namespace's init is a small reaper and the real tree its child,
 * adopted only once that tree is set up (zdtm's test_init daemonizes then), so the orphans of the setup are
 * the init's children before the tree's root is. R leads a session; adopted by init before R: O, an orphan
 * in R's session (R clones it with CLONE_PARENT at restore); O2, in R's session and in the group of its dead
 * parent (a helper R clones with CLONE_PARENT, which init reaps); ZM, whose zombie parent Z (R's child) led
 * its session (Z clones it). Same PIDs, parents, groups, sessions and states inside the namespace. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { R, O, O2, Z, ZM, N, P = N + 1, X, X2 };

/* In R: a child that leads a group of its own, forks O2 into it and exits (reaped here). */
static void dead_group_orphan(void)
{
	pid_t x = tree_child(X2);
	if (x == 0) {
		setpgid(0, 0);
		if (tree_child(O2) == 0)
			tree_sleep();
		tree_wait_slot(O2);
		_exit(0);
	}
	waitpid(x, NULL, 0);
}

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];
	const volatile pid_t *sh = tree_init(argc, argv, TREE_PIDNS);
	pid_t p = tree_child(P);
	if (p == 0) { /* the starter: gone once the tree is set up, R adopted last */
		if (tree_child(R) == 0) {
			setsid();
			tree_orphan(X, O, 0);
			dead_group_orphan();
			tree_dead_leader(Z, ZM, 1, 23);
			tree_sleep();
		}
		tree_wait_all(N);
		_exit(0);
	}
	waitpid(p, NULL, 0);
	tree_settle(tab, pids, N);
	if (getpid() != 1 || tab[R].ppid != 1 || tab[O].ppid != 1 || tab[O2].ppid != 1 || tab[ZM].ppid != 1 ||
	    tab[O].sid != pids[R] || tab[O2].sid != pids[R] || tab[O2].pgid != sh[X2] ||
	    tab[Z].state != 'Z' || tab[Z].ppid != pids[R] || tab[ZM].sid != pids[Z])
		fail("setup: tree not as planned");
	tree_cr_check(tab, N + 1);
	return tree_pass(pids, N);
}
