/* Children in another session than their parent's: a child that called setsid() after it forked a child
 * (the grandchild stays in the root's session), and two levels of it (a session leader whose leading
 * parent forked it before its own setsid, with a child still in the root's session). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { P, C1, C2, P2, Q, Q1, N };
static volatile pid_t *sh;

static pid_t child(int slot)
{
	pid_t p = fork();
	if (p < 0)
		fail("fork");
	if (p == 0)
		sh[slot] = getpid();
	return p;
}

static void wait_slot(int i)
{
	for (int n = 0; !sh[i]; n++) {
		if (n > 10000)
			fail("setup: process %d not there", i);
		usleep(1000);
	}
}

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];
	test_init(argc, argv);
	sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		fail("mmap");
	if (child(P) == 0) {
		if (child(C1) == 0)
			tree_sleep();
		wait_slot(C1);
		setsid();
		if (child(C2) == 0)
			tree_sleep();
		tree_sleep();
	}
	if (child(P2) == 0) {
		if (child(Q) == 0) {
			if (child(Q1) == 0)
				tree_sleep();
			wait_slot(Q1);
			setsid();
			tree_sleep();
		}
		wait_slot(Q);
		setsid();
		tree_sleep();
	}
	for (int i = 0; i < N; i++)
		wait_slot(i);
	usleep(200000);
	for (int i = 0; i < N; i++)
		pids[i] = sh[i];
	pids[N] = getpid();
	tree_record(tab, pids, N + 1);
	if (tab[P].sid != pids[P] || tab[C1].sid != getpid() || tab[C2].sid != pids[P] ||
	    tab[Q].sid != pids[Q] || tab[Q1].sid != getpid() || tab[P2].sid != pids[P2])
		fail("setup: sessions not as planned");
	test_daemon();
	test_waitsig();
	tree_check(tab, N + 1);
	tree_end(pids, N);
	if (!test_failures)
		pass();
	return 0;
}
