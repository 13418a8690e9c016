/* Sessions whose leader is an ancestor further up than the parent. A living one: A leads a session, its
 * child B forked C and D (D stays in A's session), C forked E and then both called setsid(): E is in A's
 * session under two leaders. A dead one: S led a session, its child P forked Q and P2, Q forked Q1, then Q
 * and P called setsid() and S exited (the test, a subreaper, adopted P): Q1 and P2 are in session S at two
 * depths under leaders. After restore every process has the same parent, group and session, no process S
 * exists and no extra zombie stays. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { A, B, C, D, E, P, Q, Q1, P2, N, S };

/* In the child of slot: fork the children of slots kid and kid2 (kid2 < 0: none) with fn (NULL: they
 * sleep), then lead a session of its own. */
static void leader_over(int slot, int kid, int kid2, void (*fn)(void))
{
	if (tree_child(slot) != 0)
		return;
	if (tree_child(kid) == 0) {
		if (fn)
			fn();
		tree_sleep();
	}
	if (kid2 >= 0 && tree_child(kid2) == 0)
		tree_sleep();
	tree_wait_ready(kid);
	if (kid2 >= 0)
		tree_wait_slot(kid2);
	setsid();
	tree_sleep();
}

static void c_over_e(void)
{
	if (tree_child(E) == 0)
		tree_sleep();
	tree_wait_slot(E);
	setsid();
}

static void q_over_q1(void)
{
	if (tree_child(Q1) == 0)
		tree_sleep();
	tree_wait_slot(Q1);
	setsid();
}

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];
	int st;
	volatile pid_t *sh = tree_init(argc, argv, TREE_SUBREAPER);
	if (tree_child(A) == 0) {
		setsid();
		leader_over(B, C, D, c_over_e);
		tree_sleep();
	}
	pid_t s = tree_child(S);
	if (s == 0) {
		setsid();
		leader_over(P, Q, P2, q_over_q1);
		tree_wait_ready(P);
		_exit(0);
	}
	waitpid(s, &st, 0);
	tree_settle(tab, pids, N);
	if (tab[B].sid != pids[B] || tab[C].sid != pids[C] || tab[D].sid != pids[A] ||
	    tab[E].sid != pids[A] || tab[E].ppid != pids[C] || tab[P].ppid != getpid() ||
	    tab[P].sid != pids[P] || tab[Q].sid != pids[Q] || tab[Q1].sid != s || tab[Q1].pgid != s ||
	    tab[Q1].ppid != pids[Q] || tab[P2].sid != s || tab[P2].ppid != pids[P] || !kill(s, 0))
		fail("setup: sessions not as planned");
	tree_cr_check(tab, N + 1);
	if (!kill(sh[S], 0))
		fail("the session leader %d exists after restore", sh[S]);
	if (waitpid(-1, &st, WNOHANG) != 0)
		fail("a child ended (a helper left a zombie?)");
	return tree_pass(pids, N);
}
