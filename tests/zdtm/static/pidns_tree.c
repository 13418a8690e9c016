/* A PID namespace's init with a tree: a child session with a group, an orphan adopted by the init whose
 * session leader died (helper inside the namespace), a group whose leader is gone, and an orphan in a
 * living sibling's session. Same PIDs, parents, groups and sessions inside the namespace after restore. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { L, M, A, A1, N1, Y, N, X, K, G };

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1], g;
	const volatile pid_t *sh = tree_init(argc, argv, TREE_PIDNS);
	tree_orphan_session(L, X, M); /* a session whose member M loses its parent X */
	if (tree_child(A) == 0) {     /* a session with a group of its own */
		setsid();
		if (tree_child(A1) == 0) {
			setpgid(0, 0);
			tree_sleep();
		}
		tree_sleep();
	}
	tree_orphan(K, N1, 1);	 /* a session leader that dies: N1 is adopted by us */
	g = tree_in_group(G, 0); /* a group leader that dies: Y stays in its group */
	tree_in_group(Y, g);
	tree_wait_ready(G); /* it wrote its slot before it is killed */
	tree_settle_killing(tab, pids, N, g);
	if (getpid() != 1 || tab[M].ppid != 1 || tab[M].sid != pids[L] || tab[N1].ppid != 1 ||
	    tab[N1].sid != sh[K] || tab[Y].pgid != g || tab[A1].pgid != pids[A1])
		fail("setup: tree not as planned");
	tree_cr_check(tab, N + 1);
	return tree_pass(pids, N);
}
