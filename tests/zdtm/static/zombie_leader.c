/* Zombies that still lead (the test is a child subreaper, so the members stay in its tree): a child that made
 * its own process group, forked a member into it and exited (a zombie group leader with a live member), and a
 * child that made its own session with a member and exited (a zombie session leader). After restore both are
 * zombies again with the same ids, the members still in the dead leaders' group and session, and waitpid
 * returns the leaders' exit statuses. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { G, GM, S, SM, N };

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];

	tree_init(argc, argv, TREE_SUBREAPER);
	tree_dead_leader(G, GM, 0, 21);
	tree_dead_leader(S, SM, 1, 22);
	tree_settle(tab, pids, N);
	if (tab[G].state != 'Z' || tab[S].state != 'Z' || tab[GM].pgid != pids[G] || tab[SM].sid != pids[S] ||
	    tab[SM].pgid != pids[S])
		fail("setup: zombie leaders not as planned");
	tree_cr_check(tab, N + 1);
	if (kill(-pids[G], 0) || kill(-pids[S], 0))
		fail("the dead leaders' groups are gone");
	tree_expect_exit(pids[G], 21, "group leader");
	tree_expect_exit(pids[S], 22, "session leader");
	return tree_pass(pids, N + 1);
}
