/* --manage-cgroups=none (every cgroup must exist) with an empty cgroup below the test's (cgroup v1 pids:
 * zdtm-cgsp-PID/e), which the .desc's pre-restore removes: the restore needs only the cgroups tasks are in,
 * and puts the test back in its own. Before, the empty one (saved since cgroup_deleg's change) was required
 * too: "cgroup .../e does not exist (--manage-cgroups none)". */
#include <errno.h>
#include <sys/stat.h>
#include "zdtmtst.h"
#include "cgroup_pids.h"

static char top[512], orig[256];

static void cleanup(void)
{
	char p[1024];
	cg_back(orig);
	snprintf(p, sizeof(p), "%s/e", top);
	rmdir(p);
	rmdir(top);
}

int main(int argc, char **argv)
{
	char p[1024], now[512];
	test_init(argc, argv);
	cg_test_top("zdtm-cgsp", orig, sizeof(orig), top, sizeof(top));
	snprintf(p, sizeof(p), "%s/e", top);
	if (mkdir(top, 0755) || mkdir(p, 0755))
		fail("mkdir %s: %m", p);
	snprintf(p, sizeof(p), "%s/cgroup.procs", top);
	if (cg_write(p, getpid())) {
		cleanup();
		fail("into %s: %m", top);
	}
	test_daemon();
	test_waitsig();

	cg_of(getpid(), now, sizeof(now));
	cleanup();
	if (!strstr(now, "/zdtm-cgsp-") || strstr(now, "/e"))
		fail("the test is in %s after the restore", now);
	return test_pass();
}
