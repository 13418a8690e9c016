/* A cgroup v1 mount of one controller (pids). */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	mkdirs("/nsmnt_cg1");
	if (mount("cgroup", "/nsmnt_cg1", "cgroup", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, "pids"))
		fail("mount cgroup v1 pids");
	test_daemon();
	test_waitsig();

	struct mnt_line m;
	CHECK(!mnt_find("/nsmnt_cg1", &m) && !strcmp(m.type, "cgroup") && has_opt(m.super, "pids") &&
		  has_opt(m.opts, "ro"),
	      "mount gone: %s %s", m.opts, m.super);
	CHECK(!access("/nsmnt_cg1/pids.max", F_OK) || !access("/nsmnt_cg1/cgroup.procs", F_OK),
	      "no pids files");
	pass();
	return 0;
}
