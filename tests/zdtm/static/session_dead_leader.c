/* A session whose leader is gone, with members under different parents: the leader S forked P, Q and a
 * plain member M; P and Q each forked a child (P1, Q1) and then called setsid(); S exited and the test (a
 * subreaper) adopted P, Q and M. So P1 and Q1 are in session (and group) S under parents that lead sessions
 * of their own. After restore every process has the same parent, group and session, no process S exists,
 * and no extra child or zombie stays (the helper that made session S again is gone). */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { P, P1, Q, Q1, M, N, S };

/* In the child of slot: fork the child of slot kid (sleeping), then lead a session of its own. */
static void leader_over(int slot, int kid)
{
	if (tree_child(slot) != 0)
		return;
	if (tree_child(kid) == 0)
		tree_sleep();
	tree_wait_slot(kid);
	setsid();
	tree_sleep();
}

/* How many children the test has (its /proc children list). */
static int nchildren(void)
{
	char path[64];
	int n = 0, pid;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", getpid(), getpid());
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%d", &pid) == 1)
		n++;
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];
	int st;
	volatile pid_t *sh = tree_init(argc, argv, TREE_SUBREAPER);
	pid_t s = tree_child(S);
	if (s == 0) {
		setsid();
		leader_over(P, P1);
		leader_over(Q, Q1);
		if (tree_child(M) == 0)
			tree_sleep();
		tree_wait_all(N);
		_exit(0);
	}
	waitpid(s, &st, 0);
	tree_settle(tab, pids, N);
	for (int i = P; i < N; i++)
		if (tab[i].ppid != (i == P1 ? pids[P] : i == Q1 ? pids[Q] : getpid()))
			fail("setup: process %d has parent %d", pids[i], tab[i].ppid);
	if (tab[P].sid != pids[P] || tab[Q].sid != pids[Q] || tab[P1].sid != s || tab[P1].pgid != s ||
	    tab[Q1].sid != s || tab[Q1].pgid != s || tab[M].sid != s || !kill(s, 0))
		fail("setup: sessions not as planned");
	int nch = nchildren();
	tree_cr_check(tab, N + 1);
	if (!kill(sh[S], 0))
		fail("the session leader %d exists after restore", sh[S]);
	if (nchildren() != nch)
		fail("%d children after restore, %d before", nchildren(), nch);
	if (waitpid(-1, &st, WNOHANG) != 0)
		fail("a child ended (a helper left a zombie?)");
	return tree_pass(pids, N);
}
