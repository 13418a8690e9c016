/* A session whose leader is gone, with a member M below another member G through a leader: the leader S
 * forked G; G forked P, which forked M and then called setsid(); S exited and the test (a subreaper)
 * adopted G. So M is in session (and group) S under P, which leads a session of its own and is born in S
 * below G: no helper needs to reach M, P clones it before its setsid. After restore every process has the
 * same parent, group and session, no process S exists, and no extra child or zombie stays. Before, the
 * restore asked one helper of S to reach both G (from the test) and M (from P or G): refused. */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { G, P, M, N, S };

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];
	int st;
	volatile pid_t *sh = tree_init(argc, argv, TREE_SUBREAPER);
	pid_t s = tree_child(S);
	if (s == 0) {
		setsid();
		if (tree_child(G) == 0) {
			if (tree_child(P) == 0) {
				if (tree_child(M) == 0)
					tree_sleep();
				tree_wait_slot(M);
				setsid();
				tree_sleep();
			}
			tree_sleep();
		}
		tree_wait_all(N);
		_exit(0);
	}
	waitpid(s, &st, 0);
	tree_settle(tab, pids, N);
	if (tab[G].ppid != getpid() || tab[P].ppid != pids[G] || tab[M].ppid != pids[P])
		fail("setup: parents not as planned");
	if (tab[G].sid != s || tab[P].sid != pids[P] || tab[M].sid != s || tab[M].pgid != s || !kill(s, 0))
		fail("setup: sessions not as planned");
	tree_cr_check(tab, N + 1);
	if (!kill(sh[S], 0))
		fail("the session leader %d exists after restore", sh[S]);
	if (waitpid(-1, &st, WNOHANG) != 0)
		fail("a child ended (a helper left a zombie?)");
	return tree_pass(pids, N);
}
