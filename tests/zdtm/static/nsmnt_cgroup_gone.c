/* A mount of the container's own cgroup (v2, and v1 cpu): a bind of that cgroup only, as a runtime mounts it
 * without a cgroup namespace. The container's cgroup goes with the container: the .desc's pre-restore removes
 * it between dump and restore, and --manage-cgroups=ignore leaves the restored task in crshim's cgroup. The
 * mount must come back as a bind of the cgroup the task is in then. Before and after: each mount is of its
 * kind, its root is the task's cgroup, and its cgroup.procs lists the task. The cgroups are named after the
 * test's work dir (zdtm-cgm-XXXXXX of /tmp/zdtm.nsmnt_cgroup_gone.XXXXXX), which pre-restore knows too. */
#include "nsmnt.h"
#include "cgroup.h"

static const struct {
	const char *type, *opts, *name, *mp; /* name: the hierarchy's in /proc/PID/cgroup */
} kinds[] = {{"cgroup2", NULL, "", "/nsmnt_cgv2"}, {"cgroup", "cpu", "cpu", "/nsmnt_cgcpu"}};
#define NK 2
#define ALL "/nsmnt_cgall"
static char name[64];
static int have[NK];

/* Mount the whole hierarchy of kind i at ALL; 0 if it is there. */
static int mount_all(int i)
{
	mkdirs(ALL);
	return mount(kinds[i].type, ALL, kinds[i].type, 0, kinds[i].opts);
}

/* The cgroup the test made removed; the task moved out of it first if it is still there (no restore). */
static void cleanup(void)
{
	char p[1024], cur[512];
	for (int i = 0; i < NK; i++) {
		if (!have[i] || mount_all(i))
			continue;
		snprintf(p, sizeof(p), ALL "/%s", name);
		cg_path_of(0, kinds[i].name, cur, sizeof(cur));
		if (!strcmp(cur, p + strlen(ALL)))
			write_file(ALL "/cgroup.procs", "0");
		rmdir(p);
		umount2(ALL, MNT_DETACH);
	}
}

static void check(const char *when)
{
	char cur[512], p[1024];
	struct mnt_line m;
	for (int i = 0; i < NK; i++) {
		if (!have[i])
			continue;
		cg_path_of(0, kinds[i].name, cur, sizeof(cur));
		CHECK(!mnt_find(kinds[i].mp, &m), "%s: no mount at %s", when, kinds[i].mp);
		CHECK(!strcmp(m.type, kinds[i].type), "%s: %s is a %s mount, want %s", when, kinds[i].mp,
		      m.type, kinds[i].type);
		CHECK(!strcmp(m.root, cur), "%s: %s is a bind of cgroup %s, the task is in %s", when,
		      kinds[i].mp, m.root, cur);
		snprintf(p, sizeof(p), "%s/cgroup.procs", kinds[i].mp);
		CHECK(cg_lists(p, getpid()), "%s: %s does not list the task", when, p);
	}
}

int main(int argc, char **argv)
{
	char p[1024];
	test_init(argc, argv);
	const char *root = getenv("ZDTM_NSROOT"), *dot = root ? strrchr(root, '.') : NULL;
	if (!dot)
		test_skip("no ZDTM_NSROOT=/tmp/zdtm.NAME.XXXXXX/root (run.sh, ns: always)");
	snprintf(name, sizeof(name), "zdtm-cgm-%.*s", (int)strcspn(dot + 1, "/"), dot + 1);
	int n = 0;
	for (int i = 0; i < NK; i++) {
		char cur[512];
		cg_path_of(0, kinds[i].name, cur, sizeof(cur));
		if (!cur[0] || mount_all(i))
			continue;
		have[i] = 1, n++;
		snprintf(p, sizeof(p), ALL "/%s", name);
		mkdirs(p);
		snprintf(p, sizeof(p), ALL "/%s/cgroup.procs", name);
		write_file(p, "0");
		snprintf(p, sizeof(p), ALL "/%s", name);
		must_mount(p, kinds[i].mp, NULL, MS_BIND, NULL);
		if (umount2(ALL, MNT_DETACH))
			fail("umount " ALL);
	}
	if (!n)
		test_skip("no cgroup2 and no cgroup v1 cpu hierarchy to mount");
	check("setup");
	if (test_failures) {
		cleanup();
		return 1;
	}
	test_daemon();
	test_waitsig();

	check("after restore");
	cleanup();
	if (!test_failures)
		pass();
	return 0;
}
