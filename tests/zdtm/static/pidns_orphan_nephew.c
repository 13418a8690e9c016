/* An orphan adopted by its PID namespace's init (the test) in the session of a living leader that is not the
 * init's child: init -> A -> L (own session; a subreaper once the orphan was adopted), L's child forked O and
 * exited (CRIU's zdtm child_subreaper_and_reparent). At restore a helper of L clones O and exits at once,
 * before L is a subreaper again, so that O is the init's child. Last, M joins the group of G, forked after
 * every other process, and G dies: its helper takes G's PID inside the namespace, which the handover helper
 * must not take too (free ids: above every id of the images). Same PIDs, parents, groups and sessions. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { A, L, O, M, N, X = N + 1, G };

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];
	tree_init(argc, argv, TREE_PIDNS);
	if (tree_child(A) == 0) {
		if (tree_child(L) == 0) {
			setsid();
			tree_orphan(X, O, 0); /* O: adopted by the init, in L's session */
			tree_subreaper();
			tree_sleep();
		}
		tree_sleep();
	}
	pid_t m = tree_child(M);
	if (m == 0)
		tree_sleep();
	pid_t g = tree_in_group(G, 0);
	tree_wait_ready(M);
	tree_wait_ready(G);
	if (setpgid(m, g))
		fail("setup: setpgid");
	kill(g, SIGKILL);
	waitpid(g, NULL, 0);
	tree_settle(tab, pids, N);
	if (getpid() != 1 || tab[O].ppid != 1 || tab[O].sid != pids[L] || tab[O].pgid != pids[L] ||
	    tab[L].ppid != pids[A] || tab[L].sid != pids[L] || tab[M].pgid != g)
		fail("setup: tree not as planned");
	tree_cr_check(tab, N + 1);
	return tree_pass(pids, N);
}
