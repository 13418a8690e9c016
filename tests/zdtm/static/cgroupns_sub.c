/* A root task in a cgroup namespace of its own whose root is above the task's cgroup, as systemd in a
 * container leaves it when it moves itself down to /init.scope: the namespace is made in zdtm-cgns-PID, then
 * the task moves to zdtm-cgns-PID/sub. After the restore /proc/self/cgroup must still say /sub (not /: a
 * namespace made again in the task's own cgroup) in the v2 hierarchy and in v1 cpu, and the task must be in
 * that cgroup seen from outside. The cgroups are removed at the end, from the cgroup namespace of the test's
 * parent (the runner's reaper). */
#include <fcntl.h>
#include <sched.h>
#include "nsmnt.h"
#include "cgroup.h"

#define CG "/sys/fs/cgroup"
static const struct {
	const char *dir, *name; /* under CG; the hierarchy's name in /proc/PID/cgroup */
} hiers[] = {{"unified", ""}, {"cpu", "cpu"}};
#define NH 2
static char name[64];
static int have[NH];

static void cg_file(char *p, size_t len, int i, const char *sub, const char *file)
{
	snprintf(p, len, CG "/%s/%s%s%s", hiers[i].dir, name, sub, file);
}

static void cleanup(void)
{
	char p[512];
	snprintf(p, sizeof(p), "/proc/%d/ns/cgroup", (int)getppid());
	int fd = open(p, O_RDONLY);
	if (fd < 0 || setns(fd, CLONE_NEWCGROUP))
		fail("into the cgroup namespace of the parent (%s)", p);
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < NH; i++) {
		if (!have[i])
			continue;
		snprintf(p, sizeof(p), CG "/%s/cgroup.procs", hiers[i].dir);
		write_file(p, "0");
		cg_file(p, sizeof(p), i, "/sub", "");
		rmdir(p);
		cg_file(p, sizeof(p), i, "", "");
		rmdir(p);
	}
}

int main(int argc, char **argv)
{
	char p[512], v[512];
	int n = 0;
	test_init(argc, argv);
	if (getpid() == 1)
		test_skip("PID 1 of its own PID namespace: its parent's cgroup namespace is out of reach");
	snprintf(name, sizeof(name), "zdtm-cgns-%d", getpid());
	for (int i = 0; i < NH; i++) {
		cg_path_of(0, hiers[i].name, v, sizeof(v));
		snprintf(p, sizeof(p), CG "/%s", hiers[i].dir);
		n += have[i] = v[0] && !access(p, W_OK);
	}
	if (!n)
		test_skip("neither " CG "/unified nor " CG "/cpu is a hierarchy here");
	for (int i = 0; i < NH; i++) {
		if (!have[i])
			continue;
		cg_file(p, sizeof(p), i, "", "");
		mkdirs(p);
		cg_file(p, sizeof(p), i, "/sub", "");
		mkdirs(p);
		cg_file(p, sizeof(p), i, "", "/cgroup.procs");
		write_file(p, "0");
	}
	if (unshare(CLONE_NEWCGROUP))
		fail("unshare(CLONE_NEWCGROUP)");
	for (int i = 0; i < NH; i++) {
		if (!have[i])
			continue;
		cg_file(p, sizeof(p), i, "/sub", "/cgroup.procs");
		write_file(p, "0");
		cg_path_of(0, hiers[i].name, v, sizeof(v));
		CHECK(!strcmp(v, "/sub"), "setup: in '%s' of hierarchy '%s', want /sub", v, hiers[i].name);
	}
	if (test_failures) {
		cleanup();
		return 1;
	}
	test_daemon();
	test_waitsig();

	for (int i = 0; i < NH; i++) {
		if (!have[i])
			continue;
		cg_path_of(0, hiers[i].name, v, sizeof(v));
		CHECK(!strcmp(v, "/sub"),
		      "/proc/self/cgroup: '%s' in hierarchy '%s', want /sub (below the namespace's root)", v,
		      hiers[i].name);
		cg_file(p, sizeof(p), i, "/sub", "/cgroup.procs");
		CHECK(cg_lists(p, getpid()), "not in %s", p);
	}
	cleanup();
	if (!test_failures)
		pass();
	return 0;
}
