/* Session leaders inside the tree: two children lead their own sessions (one with a group of its own
 * inside, one with a zombie), and a grandchild leads a session under a child that stayed in the root's.
 * After restore every process has the same parent, group and session, and the zombie is still one. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { A, A1, A2, A21, B, B1, C, C1, C11, N };

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];
	tree_init(argc, argv, 0);
	if (tree_child(A) == 0) {
		setsid();
		if (tree_child(A1) == 0)
			tree_sleep();
		tree_leader(A2, A21, 0);
		tree_sleep();
	}
	if (tree_child(B) == 0) {
		setsid();
		if (tree_child(B1) == 0)
			_exit(7); /* stays a zombie of B */
		tree_sleep();
	}
	if (tree_child(C) == 0) {
		tree_leader(C1, C11, 1);
		tree_sleep();
	}
	tree_settle(tab, pids, N);
	if (tab[A].sid != pids[A] || tab[A2].pgid != pids[A2] || tab[A21].sid != pids[A] ||
	    tab[B1].state != 'Z' || tab[C1].sid != pids[C1] || tab[C].sid != getpid())
		fail("setup: sessions not as planned");
	tree_cr_check(tab, N + 1);
	return tree_pass(pids, N);
}
