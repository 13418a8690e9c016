/* A child subreaper and its adopted orphans: one in the session of a living sibling (its parent died),
 * one whose session leader died (with a child of its own), one in the root's session. After restore the
 * root is still a subreaper, the orphans are its children with their sessions and groups, and a new
 * orphan is adopted by it again. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { L, M, N1, N11, V, N, X, K, W, T2, T3 };

static int ppid_of(pid_t pid)
{
	struct tree_ids t;
	return tree_ids_of(pid, &t) ? -1 : t.ppid;
}

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1], p;
	int st, on = 0;
	const volatile pid_t *sh = tree_init(argc, argv, TREE_SUBREAPER);
	tree_orphan_session(L, X, M);	/* L leads a session; its child X leaves M behind */
	if ((p = tree_child(K)) == 0) { /* K leads a session and leaves N1 (with N11) behind */
		setsid();
		if (tree_child(N1) == 0) {
			if (tree_child(N11) == 0)
				tree_sleep();
			tree_sleep();
		}
		tree_wait_slot(N11);
		_exit(0);
	}
	waitpid(p, &st, 0);
	tree_orphan(W, V, 0);
	tree_settle(tab, pids, N);
	if (tab[M].ppid != getpid() || tab[M].sid != pids[L] || tab[N1].ppid != getpid() ||
	    tab[N1].sid != sh[K] || tab[N11].ppid != pids[N1] || tab[V].ppid != getpid())
		fail("setup: orphans not as planned");
	tree_cr_check(tab, N + 1);
	if (prctl(PR_GET_CHILD_SUBREAPER, &on, 0, 0, 0) || on != 1)
		fail("not a child subreaper any more (%d)", on);
	tree_orphan(T2, T3, 0);
	tree_wait_slot(T3);
	for (int n = 0; ppid_of(sh[T3]) != getpid() && n < 2000; n++)
		usleep(1000);
	if (ppid_of(sh[T3]) != getpid())
		fail("a new orphan went to %d, not to us", ppid_of(sh[T3]));
	kill(sh[T3], SIGKILL);
	return tree_pass(pids, N);
}
