/* Children in groups led by processes other than their parent: a grandchild in its uncle's group, a
 * grandchild in its cousin's group (a leader in another branch), a child in a grandchild's group. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { A, B, A1, A2, B1, C, N };
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
	if (child(B) == 0) {
		setpgid(0, 0);
		wait_slot(A2);
		usleep(50000);
		if (child(B1) == 0) {
			setpgid(0, sh[A2]);
			tree_sleep();
		}
		tree_sleep();
	}
	if (child(A) == 0) {
		wait_slot(B);
		usleep(50000);
		if (child(A1) == 0) {
			setpgid(0, sh[B]);
			tree_sleep();
		}
		if (child(A2) == 0) {
			setpgid(0, 0);
			tree_sleep();
		}
		tree_sleep();
	}
	wait_slot(A2);
	usleep(50000);
	if (child(C) == 0) {
		setpgid(0, sh[A2]);
		tree_sleep();
	}
	for (int i = 0; i < N; i++)
		wait_slot(i);
	usleep(200000);
	for (int i = 0; i < N; i++)
		pids[i] = sh[i];
	pids[N] = getpid();
	tree_record(tab, pids, N + 1);
	if (tab[A1].pgid != pids[B] || tab[B1].pgid != pids[A2] || tab[C].pgid != pids[A2] ||
	    tab[B].pgid != pids[B])
		fail("setup: groups not as planned");
	test_daemon();
	test_waitsig();
	tree_check(tab, N + 1);
	tree_end(pids, N);
	if (!test_failures)
		pass();
	return 0;
}
