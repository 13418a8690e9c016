/* Two sessions whose leaders are gone (S and T), each with a member under the same two session leaders P
 * and Q (the shape of CRIU's session02): S, P's child, forked P1 into P's children with CLONE_PARENT; Q,
 * born in session S below S, forked T, which forked Q2 into Q's children with CLONE_PARENT and P2 below
 * it, which P (a subreaper then) adopted; then the test adopted Q. No one helper of S or T reaches both of
 * its members by clones alone: the restore plays such a history again (restore-tree.c plan_cross: helpers
 * whose orphans are adopted, P a subreaper for the time). */
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { P, P1, P2, Q, Q1, Q2, N, S, X, T, Y, ROOT = 16, GO = 17 };

#ifndef SPLIT_FLAGS /* (session_split_init: the same tree below its PID namespace's init, no subreaper) */
#define SPLIT_FLAGS TREE_SUBREAPER
#endif

/* fork(), but the child (sleeping in slot) is a child of our parent (tree_sleep does not mark it ready:
 * its slot is not the one tree_child gave; its slot is set once it is set up) */
static void fork_sibling(int slot)
{
	if (syscall(SYS_clone, CLONE_PARENT, 0, 0, 0, 0) == 0) {
		test_forked();
		tree_slots()[slot] = getpid();
		tree_sleep();
	}
}

static void wait_parent(int slot, pid_t ppid)
{
	struct tree_ids t;
	tree_wait_slot(slot);
	while (tree_ids_of(tree_slots()[slot], &t) || t.ppid != ppid)
		usleep(1000);
}

/* In T (Q's child): session T, Q2 into Q's children, P2 below Y, which exits: P adopts P2. */
static void in_t(void)
{
	setsid();
	fork_sibling(Q2);
	pid_t y = tree_child(Y);
	if (y == 0) {
		if (tree_child(P2) == 0)
			tree_sleep();
		tree_wait_slot(P2);
		_exit(0);
	}
	waitpid(y, NULL, 0);
	tree_wait_slot(Q2);
	_exit(0);
}

/* In Q (S's grandchild, in session S): Q1 and T; once the test adopted it, a session of its own. */
static void in_q(void)
{
	if (tree_child(Q1) == 0)
		tree_sleep();
	pid_t t = tree_child(T);
	if (t == 0)
		in_t();
	waitpid(t, NULL, 0);
	wait_parent(Q, tree_slots()[ROOT]);
	setsid();
	tree_sleep();
}

/* In S (P's child): session S, P1 into P's children, Q below X; X exits once P is no subreaper. */
static void in_s(void)
{
	setsid();
	fork_sibling(P1);
	pid_t x = tree_child(X);
	if (x == 0) {
		if (tree_child(Q) == 0)
			in_q();
		while (!tree_slots()[GO])
			usleep(1000);
		_exit(0);
	}
	waitpid(x, NULL, 0);
	tree_wait_ready(Q);
	_exit(0);
}

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];
	volatile pid_t *sh = tree_init(argc, argv, SPLIT_FLAGS);
	sh[ROOT] = getpid();
	if (tree_child(P) == 0) {
		tree_subreaper();
		pid_t s = tree_child(S);
		if (s == 0)
			in_s();
		wait_parent(P2, getpid());
		prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
		sh[GO] = 1;
		waitpid(s, NULL, 0);
		setsid();
		tree_sleep();
	}
	for (int i = 0; i < N; i++)
		if (i == P1 || i == Q2)
			tree_wait_slot(i);
		else
			tree_wait_ready(i);
	tree_record_slots(tab, pids, N);
	if (tab[P].sid != pids[P] || tab[Q].sid != pids[Q] || tab[Q].ppid != getpid() ||
	    tab[P1].ppid != pids[P] || tab[P2].ppid != pids[P] || tab[Q1].ppid != pids[Q] ||
	    tab[Q2].ppid != pids[Q] || tab[P1].sid != sh[S] || tab[Q1].sid != sh[S] || tab[P2].sid != sh[T] ||
	    tab[Q2].sid != sh[T])
		fail("setup: sessions not as planned");
	tree_cr_check(tab, N + 1);
	return tree_pass(pids, N);
}
