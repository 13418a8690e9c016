/* Session leaders inside the tree: two children lead their own sessions (one with a group of its own
 * inside, one with a zombie), and a grandchild leads a session under a child that stayed in the root's.
 * After restore every process has the same parent, group and session, and the zombie is still one. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { A, A1, A2, A21, B, B1, C, C1, C11, N };
static volatile pid_t *sh;

static void wait_slot(int i)
{
	for (int n = 0; !sh[i]; n++) {
		if (n > 10000)
			fail("setup: process %d not there", i);
		usleep(1000);
	}
}

static pid_t child(int slot)
{
	pid_t p = fork();
	if (p < 0)
		fail("fork");
	if (p == 0)
		sh[slot] = getpid();
	return p;
}

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];
	test_init(argc, argv);
	sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		fail("mmap");
	if (child(A) == 0) {
		setsid();
		if (child(A1) == 0)
			tree_sleep();
		if (child(A2) == 0) {
			setpgid(0, 0);
			if (child(A21) == 0)
				tree_sleep();
			tree_sleep();
		}
		tree_sleep();
	}
	if (child(B) == 0) {
		setsid();
		if (child(B1) == 0)
			_exit(7); /* stays a zombie of B */
		tree_sleep();
	}
	if (child(C) == 0) {
		if (child(C1) == 0) {
			setsid();
			if (child(C11) == 0)
				tree_sleep();
			tree_sleep();
		}
		tree_sleep();
	}
	for (int i = 0; i < N; i++)
		wait_slot(i);
	usleep(200000);
	for (int i = 0; i < N; i++)
		pids[i] = sh[i];
	pids[N] = getpid();
	tree_record(tab, pids, N + 1);
	if (tab[A].sid != pids[A] || tab[A2].pgid != pids[A2] || tab[A21].sid != pids[A] ||
	    tab[B1].state != 'Z' || tab[C1].sid != pids[C1] || tab[C].sid != getpid())
		fail("setup: sessions not as planned");
	test_daemon();
	test_waitsig();
	tree_check(tab, N + 1);
	tree_end(pids, N);
	if (!test_failures)
		pass();
	return 0;
}
