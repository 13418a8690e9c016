/* Children in another session than their parent's: a child that called setsid() after it forked a child
 * (the grandchild stays in the root's session), and two levels of it (a session leader whose leading
 * parent forked it before its own setsid, with a child still in the root's session). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { P, C1, C2, P2, Q, Q1, N };

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];
	tree_init(argc, argv, 0);
	if (tree_child(P) == 0) {
		if (tree_child(C1) == 0)
			tree_sleep();
		tree_wait_slot(C1);
		setsid();
		if (tree_child(C2) == 0)
			tree_sleep();
		tree_sleep();
	}
	if (tree_child(P2) == 0) {
		if (tree_child(Q) == 0) {
			if (tree_child(Q1) == 0)
				tree_sleep();
			tree_wait_slot(Q1);
			setsid();
			tree_sleep();
		}
		tree_wait_slot(Q);
		setsid();
		tree_sleep();
	}
	tree_settle(tab, pids, N);
	if (tab[P].sid != pids[P] || tab[C1].sid != getpid() || tab[C2].sid != pids[P] ||
	    tab[Q].sid != pids[Q] || tab[Q1].sid != getpid() || tab[P2].sid != pids[P2])
		fail("setup: sessions not as planned");
	tree_cr_check(tab, N + 1);
	return tree_pass(pids, N);
}
