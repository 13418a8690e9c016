/* A net_prio cgroup (v1, the hierarchy mounted by the test in its dir, as CRIU's cgroup_ifpriomap does)
 * with an interface priority (net_prio.ifpriomap "lo 5") and a class id in net_cls when that hierarchy is
 * the same one. The .desc's pre-restore removes the cgroup (soft mode makes it again). After restore lo's
 * priority is 5 again. Before, net_prio.ifpriomap was not saved: lo came back with 0. */
#include <errno.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "zdtmtst.h"
#include "cgroup_pids.h"

static char mnt[512], sub[768];

static void cleanup(void)
{
	char p[1024];
	snprintf(p, sizeof(p), "%s/cgroup.procs", mnt);
	cg_write(p, getpid());
	rmdir(sub);
	umount2(mnt, MNT_DETACH);
	rmdir(mnt);
}

/* lo's priority in sub's ifpriomap, -1 if none */
static int lo_prio(void)
{
	char p[1024], line[128];
	int prio = -1;
	snprintf(p, sizeof(p), "%s/net_prio.ifpriomap", sub);
	FILE *f = fopen(p, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "lo %d", &prio) == 1)
			break;
	if (f)
		fclose(f);
	return prio;
}

int main(int argc, char **argv)
{
	char p[1024], cwd[256];
	test_init(argc, argv);
	if (getuid() != 0 || !getcwd(cwd, sizeof(cwd)))
		test_skip("needs root");
	snprintf(mnt, sizeof(mnt), "%s/netprio", cwd);
	snprintf(sub, sizeof(sub), "%s/zdtm-cgprio-%d", mnt, getpid());
	if (mkdir(mnt, 0755) || mount("none", mnt, "cgroup", 0, "net_prio")) {
		rmdir(mnt);
		test_skip("mount the net_prio hierarchy: %m (mounted with net_cls elsewhere?)");
	}
	snprintf(p, sizeof(p), "%s/cgroup.procs", sub);
	if (mkdir(sub, 0755) || cg_write(p, getpid())) {
		cleanup();
		fail("cgroup %s: %m", sub);
	}
	snprintf(p, sizeof(p), "%s/net_prio.ifpriomap", sub);
	int fd = open(p, O_WRONLY);
	if (fd < 0 || write(fd, "lo 5", 4) != 4 || lo_prio() != 5) {
		cleanup();
		fail("write 'lo 5' to %s: %m", p);
	}
	close(fd);
	test_daemon();
	test_waitsig();

	int prio = lo_prio();
	cleanup();
	if (prio != 5)
		fail("lo's priority %d after the restore, 5 before", prio);
	return test_pass();
}
