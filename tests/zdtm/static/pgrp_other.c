/* Children in groups led by processes other than their parent: a grandchild in its uncle's group, a
 * grandchild in its cousin's group (a leader in another branch), a child in a grandchild's group. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { A, B, A1, A2, B1, C, N };

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];
	const volatile pid_t *sh = tree_init(argc, argv, 0);
	if (tree_child(B) == 0) {
		setpgid(0, 0);
		tree_wait_leader(A2);
		if (tree_child(B1) == 0) {
			setpgid(0, sh[A2]);
			tree_sleep();
		}
		tree_sleep();
	}
	if (tree_child(A) == 0) {
		tree_wait_leader(B);
		if (tree_child(A1) == 0) {
			setpgid(0, sh[B]);
			tree_sleep();
		}
		if (tree_child(A2) == 0) {
			setpgid(0, 0);
			tree_sleep();
		}
		tree_sleep();
	}
	tree_wait_leader(A2);
	if (tree_child(C) == 0) {
		setpgid(0, sh[A2]);
		tree_sleep();
	}
	tree_settle(tab, pids, N);
	if (tab[A1].pgid != pids[B] || tab[B1].pgid != pids[A2] || tab[C].pgid != pids[A2] ||
	    tab[B].pgid != pids[B])
		fail("setup: groups not as planned");
	tree_cr_check(tab, N + 1);
	return tree_pass(pids, N);
}
