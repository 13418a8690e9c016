/* The host paths bound into the test's root (external mounts) come back from --external mnt[KEY]:PATH. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	struct mnt_line u0;
	if (mnt_find("/usr", &u0))
		fail("no /usr bind");
	test_daemon();
	test_waitsig();

	struct mnt_line u;
	CHECK(!mnt_find("/usr", &u) && has_opt(u.opts, "ro") && !strcmp(u.root, u0.root), "/usr: %s %s",
	      u.opts, u.root);
	CHECK(!access("/usr/bin/env", X_OK), "/usr/bin/env missing");
	pass();
	return 0;
}
