/* A zombie session leader with more inside its session (the test is a child subreaper, so every orphan is
 * ours): a live member X that leads a group of its own with its child Y in it, a member Z in the dead
 * leader's own group, and a zombie group leader G of that session (the dead leader's child, a zombie
 * adopted by us) with a live member GM. After restore: the same parents, groups, sessions and zombies, and
 * waitpid returns both leaders' exit statuses. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { S, X, Y, Z, G, GM, N };

static void session_leader(void)
{
	setsid();
	tree_leader(X, Y, 0); /* a group of its own in S's session, with its child in it */
	if (tree_child(Z) == 0)
		tree_sleep();
	tree_dead_leader(G, GM, 0, 24); /* a group leader that dies while GM stays in its group */
	tree_wait_ready(Y);
	tree_wait_ready(G); /* G exited: its zombie goes to our parent with us, unreaped */
	_exit(23);
}

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];

	tree_start(argc, argv, TREE_SUBREAPER, S, session_leader);
	tree_settle(tab, pids, N);
	if (tab[S].state != 'Z' || tab[G].state != 'Z' || tab[G].ppid != getpid() || tab[X].sid != pids[S] ||
	    tab[X].pgid != pids[X] || tab[Y].ppid != pids[X] || tab[Y].pgid != pids[X] ||
	    tab[Z].pgid != pids[S] || tab[Z].ppid != getpid() || tab[GM].pgid != pids[G] ||
	    tab[GM].sid != pids[S] || tab[G].sid != pids[S])
		fail("setup: tree not as planned");
	tree_cr_check(tab, N + 1);
	if (kill(-pids[G], 0) || kill(-pids[S], 0) || kill(-pids[X], 0))
		fail("a group is gone");
	tree_expect_exit(pids[S], 23, "session leader");
	tree_expect_exit(pids[G], 24, "group leader");
	return tree_pass(pids, N + 1);
}
