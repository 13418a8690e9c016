/* A cgroup2 mount. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	if (mount("cgroup2", "/nsmnt_cg2", "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		mkdirs("/nsmnt_cg2");
		if (mount("cgroup2", "/nsmnt_cg2", "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
			fail("mount cgroup2");
	}
	test_daemon();
	test_waitsig();

	struct mnt_line m;
	CHECK(!mnt_find("/nsmnt_cg2", &m) && !strcmp(m.type, "cgroup2"), "mount gone");
	CHECK(!access("/nsmnt_cg2/cgroup.procs", F_OK), "no cgroup.procs");
	pass();
	return 0;
}
