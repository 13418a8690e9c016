/* zombie_leader inside a PID namespace: the test is its init, which adopts the orphans. A group leader that
 * exited with a live member in its group and a session leader that exited with a member: zombies again with
 * the same PIDs inside the namespace, members in the dead leaders' group and session, exit statuses kept. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { G, GM, S, SM, N };

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];

	tree_init(argc, argv, TREE_PIDNS);
	tree_dead_leader(G, GM, 0, 31);
	tree_dead_leader(S, SM, 1, 32);
	tree_settle(tab, pids, N);
	if (getpid() != 1 || tab[G].state != 'Z' || tab[S].state != 'Z' || tab[GM].pgid != pids[G] ||
	    tab[GM].ppid != 1 || tab[SM].sid != pids[S] || tab[SM].pgid != pids[S] || tab[SM].ppid != 1)
		fail("setup: zombie leaders not as planned");
	test_daemon();
	test_waitsig();

	if (getpid() != 1)
		fail("getpid %d after restore", getpid());
	tree_check(tab, N + 1);
	if (kill(-pids[G], 0) || kill(-pids[S], 0))
		fail("the dead leaders' groups are gone");
	tree_expect_exit(pids[G], 31, "group leader");
	tree_expect_exit(pids[S], 32, "session leader");
	return tree_pass(pids, N + 1);
}
