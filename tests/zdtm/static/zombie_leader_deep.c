/* Zombie leaders that are not our children (the test is a child subreaper): a live child P (no subreaper,
 * it reaps nothing) has a child S that made its session with a member SM and exited, and a child G that made
 * its group with a member GM and exited. S and G are P's zombies, their members were adopted by us. After
 * restore: the same parents (the members ours, the zombies P's), groups and sessions, and the zombies'
 * exit codes (from /proc: P does not wait). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { P, S, SM, G, GM, N };

/* Field 52 of /proc/PID/stat: the exit code of a zombie. */
static int exit_code(pid_t pid)
{
	char path[64], buf[1024];
	int code = -1;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	for (int field = 2; p && field < 52; field++)
		p = strchr(p + 1, ' ');
	if (p)
		sscanf(p + 1, "%d", &code);
	return code;
}

static void parent(void)
{
	tree_dead_leader(S, SM, 1, 25);
	tree_dead_leader(G, GM, 0, 26);
	tree_sleep();
}

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];

	tree_start(argc, argv, TREE_SUBREAPER, P, parent);
	tree_settle(tab, pids, N);
	if (tab[S].state != 'Z' || tab[G].state != 'Z' || tab[S].ppid != pids[P] || tab[G].ppid != pids[P] ||
	    tab[SM].ppid != getpid() || tab[GM].ppid != getpid() || tab[SM].sid != pids[S] ||
	    tab[SM].pgid != pids[S] || tab[GM].pgid != pids[G] || exit_code(pids[S]) != 25 << 8 ||
	    exit_code(pids[G]) != 26 << 8)
		fail("setup: zombie leaders not as planned");
	tree_cr_check(tab, N + 1);
	if (kill(-pids[G], 0) || kill(-pids[S], 0))
		fail("the dead leaders' groups are gone");
	if (exit_code(pids[S]) != 25 << 8 || exit_code(pids[G]) != 26 << 8)
		fail("exit codes %#x %#x, want %#x %#x", exit_code(pids[S]), exit_code(pids[G]), 25 << 8,
		     26 << 8);
	return tree_pass(pids, N + 1);
}
