/* A read-only sysfs of the test's network namespace. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("sysfs", "/nsmnt_sys", "sysfs", MS_RDONLY | MS_NOSUID, NULL);
	test_daemon();
	test_waitsig();

	struct mnt_line m;
	CHECK(!mnt_find("/nsmnt_sys", &m) && !strcmp(m.type, "sysfs") && has_opt(m.opts, "ro"),
	      "mount gone or rw");
	CHECK(!access("/nsmnt_sys/class/net/lo", F_OK), "no lo in the restored sysfs");
	pass();
	return 0;
}
