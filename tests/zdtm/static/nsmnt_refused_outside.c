/* A mount from outside the root not named external: the dump fails with one line. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	mkdirs("/nsmnt_out");
	/* /etc is an external bind: a bind of a subdirectory of it is a second mount from outside */
	if (mount("/etc/default", "/nsmnt_out", NULL, MS_BIND, NULL))
		fail("bind /etc/default");
	test_daemon();
	test_waitsig();

	CHECK(!access("/nsmnt_out", F_OK), "the mount point is gone");
	pass();
	return 0;
}
