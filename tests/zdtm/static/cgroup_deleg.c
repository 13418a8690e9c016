/* Cgroups no task is in and a delegated one (cgroup v1 pids): the test in zdtm-cgdel-PID, owned by uid/gid
 * 1000 with mode 0775 as is its cgroup.procs (0664), and empty cgroups below it (e0, e0/e1, e2 of mode
 * 0700). The .desc's pre-restore removes them all (soft mode makes them again). After restore they are
 * there with the same owners and modes. Before, only the test's own cgroup came back, root's (CRIU's
 * cgroup01, cgroup03, cgroup04). */
#include <errno.h>
#include <sys/stat.h>
#include "zdtmtst.h"
#include "cgroup_pids.h"

static char top[512], orig[256];
static const struct {
	const char *name; /* below top ("" for top itself) */
	unsigned mode, uid;
} want[] = {
    {"", 0775, 1000}, {"/cgroup.procs", 0664, 1000}, {"/e0", 0755, 0}, {"/e0/e1", 0755, 0}, {"/e2", 0700, 0}};
#define NW (sizeof(want) / sizeof(want[0]))

static void cleanup(void)
{
	char p[1024];
	cg_back(orig);
	for (int i = NW - 1; i >= 0; i--) {
		snprintf(p, sizeof(p), "%s%s", top, want[i].name);
		rmdir(p);
	}
}

/* 0 if every one is as wanted */
static int check(const char *when)
{
	int bad = 0;
	for (size_t i = 0; i < NW; i++) {
		char p[1024];
		struct stat st;
		snprintf(p, sizeof(p), "%s%s", top, want[i].name);
		if (stat(p, &st) || (st.st_mode & 07777) != want[i].mode || st.st_uid != want[i].uid ||
		    st.st_gid != want[i].uid) {
			test_msg("%s: %s: mode %o uid %d gid %d, want %o %u\n", when, p, st.st_mode & 07777,
				 (int)st.st_uid, (int)st.st_gid, want[i].mode, want[i].uid);
			bad++;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	char p[1024], now[512];
	test_init(argc, argv);
	cg_test_top("zdtm-cgdel", orig, sizeof(orig), top, sizeof(top));
	for (size_t i = 0; i < NW; i++) {
		snprintf(p, sizeof(p), "%s%s", top, want[i].name);
		if (strcmp(want[i].name, "/cgroup.procs") && mkdir(p, 0755))
			fail("mkdir %s: %m", p);
		if (chown(p, want[i].uid, want[i].uid) || chmod(p, want[i].mode))
			fail("chown/chmod %s: %m", p);
	}
	snprintf(p, sizeof(p), "%s/cgroup.procs", top);
	if (cg_write(p, getpid()))
		fail("into %s: %m", top);
	if (check("setup")) {
		cleanup();
		fail("setup");
	}
	test_daemon();
	test_waitsig();

	int bad = check("after the restore");
	cg_of(getpid(), now, sizeof(now));
	cleanup();
	if (bad)
		fail("%d cgroups or files are not as before", bad);
	if (!strstr(now, "/zdtm-cgdel-"))
		fail("the test is in %s after the restore", now);
	return test_pass();
}
