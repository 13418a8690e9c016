/* The test's cgroup (v1 pids: zdtm-cgsh-PID) is shared with a process outside the tree (an orphaned
 * grandchild, adopted by the runner or init), as a login session's or a test runner's cgroup is; below it
 * another's cgroup (other), which the .desc's pre-restore removes as its owner would. The restore must not
 * make it again: it is not the tree's. Before, every directory below a task's cgroup was saved and the
 * restore (soft) made it again: a dump and restore beside a container runtime in the same session brought
 * back the containers' cgroups after they were removed (tests/integration/nested.bats saw a memory cgroup
 * "left"). */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <sys/stat.h>
#include "zdtmtst.h"
#include "cgroup_pids.h"

static char top[512], orig[256];
static pid_t outsider = -1;

static void cleanup(void)
{
	char p[1024];
	if (outsider > 0)
		kill(outsider, SIGKILL);
	cg_back(orig);
	snprintf(p, sizeof(p), "%s/other", top);
	rmdir(p);
	for (int i = 0; i < 500 && rmdir(top) && errno == EBUSY; i++) /* (the outsider leaves as it dies) */
		usleep(10000);
}

/* A process of the cgroup that is not in the tree (test_outside: a grandchild whose parent exits). */
static pid_t start_outsider(void)
{
	int p[2];
	pid_t g = -1;
	char procs[600];
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", top);
	if (pipe(p))
		return -1;
	int r = test_outside();
	if (r == 0) {
		close(p[0]);
		g = getpid();
		if (cg_write(procs, g) || write(p[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		close(p[1]);
		while (1)
			pause();
	}
	close(p[1]);
	if (r < 0 || read(p[0], &g, sizeof(g)) != sizeof(g))
		g = -1;
	close(p[0]);
	return g;
}

int main(int argc, char **argv)
{
	char p[1024], now[512];
	struct stat st;
	test_init(argc, argv);
	if (getpid() == 1)
		test_skip("the test is its PID namespace's init: an orphan would be its child, in the tree");
	cg_test_top("zdtm-cgsh", orig, sizeof(orig), top, sizeof(top));
	snprintf(p, sizeof(p), "%s/other", top);
	if (mkdir(top, 0755) || mkdir(p, 0755))
		fail("mkdir %s: %m", p);
	snprintf(p, sizeof(p), "%s/cgroup.procs", top);
	if (cg_write(p, getpid())) {
		cleanup();
		fail("into %s: %m", top);
	}
	outsider = start_outsider();
	if (outsider <= 0) {
		cleanup();
		fail("start the process outside the tree");
	}
	test_daemon();
	test_waitsig();

	snprintf(p, sizeof(p), "%s/other", top);
	bool made = !stat(p, &st);
	cg_of(getpid(), now, sizeof(now));
	bool alive = kill(outsider, 0) == 0;
	cleanup();
	errno = 0; /* (not cleanup's) */
	if (made)
		fail("the restore made again %s, a cgroup below one the tree shares with others", p);
	if (!strstr(now, "/zdtm-cgsh-"))
		fail("the test is in %s after the restore", now);
	if (!alive)
		fail("the process outside the tree is gone");
	return test_pass();
}
