/* Process groups in a session whose leader is gone, with members under different parents: S led a
 * session and forked G and L (each leading a group of its own), P and Q; P forked P1 (joined G's group)
 * and P2 (joined L's), Q likewise Q1 and Q2; then P and Q called setsid(), S killed G and exited, and the
 * test (a subreaper) adopted L, P and Q. So group G has no leader and group L's leader is no ancestor of
 * its members. After restore every process has the same parent, group and session, no process S or G
 * exists, and no extra zombie stays. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { L, P, P1, P2, Q, Q1, Q2, N, S, G };

/* In the child of slot: fork kid (into group g) and kid2 (into group l), then lead a session of its own. */
static void leader_over(int slot, int kid, pid_t g, int kid2, pid_t l)
{
	if (tree_child(slot) != 0)
		return;
	tree_in_group(kid, g);
	tree_in_group(kid2, l);
	tree_wait_ready(kid);
	tree_wait_ready(kid2);
	setsid();
	tree_sleep();
}

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];
	int st;
	const volatile pid_t *sh = tree_init(argc, argv, TREE_SUBREAPER);
	pid_t s = tree_child(S);
	if (s == 0) {
		setsid();
		pid_t g = tree_in_group(G, 0), l = tree_in_group(L, 0);
		leader_over(P, P1, g, P2, l);
		leader_over(Q, Q1, g, Q2, l);
		tree_wait_all(N);
		tree_wait_ready(G);
		kill(g, SIGKILL);
		waitpid(g, &st, 0);
		_exit(0);
	}
	waitpid(s, &st, 0);
	tree_settle(tab, pids, N);
	pid_t g = sh[G];
	if (tab[L].ppid != getpid() || tab[L].sid != s || tab[L].pgid != pids[L] || tab[P].sid != pids[P] ||
	    tab[Q].sid != pids[Q] || tab[P1].pgid != g || tab[Q1].pgid != g || tab[P2].pgid != pids[L] ||
	    tab[Q2].pgid != pids[L] || tab[P1].sid != s || tab[Q2].sid != s || !kill(s, 0) || !kill(g, 0))
		fail("setup: groups not as planned");
	tree_cr_check(tab, N + 1);
	if (!kill(s, 0) || !kill(g, 0))
		fail("a dead leader (%d or %d) exists after restore", s, g);
	if (waitpid(-1, &st, WNOHANG) != 0)
		fail("a child ended (a helper left a zombie?)");
	return tree_pass(pids, N);
}
