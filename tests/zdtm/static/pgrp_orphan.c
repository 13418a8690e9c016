/* Process groups whose leader is gone: two children (one with a child) in the group of a sibling that
 * exited, and in a child's own session a group whose leader exited. After restore the groups are the
 * same (crshim recreates the dead leader as a helper that leaves no trace: no new process, no zombie). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { Y, Y2, Y3, S, Z, N, G, H };
static volatile pid_t *sh;

static int count_children(void)
{
	char path[64], *buf;
	int n = 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", getpid());
	if (read_file(path, &buf) < 0)
		return -1;
	for (char *p = buf; *p; p++)
		n += *p == ' ';
	free(buf);
	return n;
}

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1], g;
	int st;
	sh = tree_init(argc, argv, 0);
	g = tree_in_group(G, 0);
	if (tree_child(Y) == 0) {
		setpgid(0, g);
		if (tree_child(Y2) == 0)
			tree_sleep();
		tree_sleep();
	}
	tree_in_group(Y3, g);
	if (tree_child(S) == 0) {
		setsid();
		pid_t h = tree_in_group(H, 0);
		tree_in_group(Z, h);
		tree_wait_ready(H); /* H wrote its slot (a kill before it ran would leave it empty) */
		tree_wait_ready(Z); /* and Z is in H's group: H can go */
		kill(h, SIGKILL);
		waitpid(h, &st, 0);
		tree_sleep();
	}
	tree_wait_ready(G); /* it wrote its slot before it is killed */
	tree_settle_killing(tab, pids, N, g);
	if (tab[Y].pgid != sh[G] || tab[Y2].pgid != sh[G] || tab[Y3].pgid != sh[G] || tab[Z].pgid != sh[H] ||
	    tab[Z].sid != pids[S] || !kill(sh[G], 0) || !kill(sh[H], 0))
		fail("setup: groups not as planned");
	int nch = count_children();
	tree_cr_check(tab, N + 1);
	if (!kill(sh[G], 0) || !kill(sh[H], 0))
		fail("a group leader (%d or %d) exists after restore", sh[G], sh[H]);
	if (count_children() != nch)
		fail("%d children after restore, %d before", count_children(), nch);
	if (waitpid(-1, &st, WNOHANG) != 0)
		fail("a child ended (a helper left a zombie?)");
	return tree_pass(pids, N);
}
