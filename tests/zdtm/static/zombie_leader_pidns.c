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
	int st;

	test_init_pidns(argc, argv);
	tree_slots();
	if (tree_child(G) == 0) {
		setpgid(0, 0);
		if (tree_child(GM) == 0)
			tree_sleep();
		tree_wait_slot(GM);
		_exit(31);
	}
	if (tree_child(S) == 0) {
		setsid();
		if (tree_child(SM) == 0)
			tree_sleep();
		tree_wait_slot(SM);
		_exit(32);
	}
	tree_wait_all(N);
	tree_record_slots(tab, pids, N);
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
	if (waitpid(pids[G], &st, WNOHANG) != pids[G] || !WIFEXITED(st) || WEXITSTATUS(st) != 31)
		fail("group leader: status %#x, want exit 31", st);
	if (waitpid(pids[S], &st, WNOHANG) != pids[S] || !WIFEXITED(st) || WEXITSTATUS(st) != 32)
		fail("session leader: status %#x, want exit 32", st);
	tree_end(pids, N + 1);
	if (!test_failures)
		pass();
	return 0;
}
