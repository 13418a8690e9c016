/* tmpfs superblock options (size, nr_inodes, mode) come back. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_to", "tmpfs", 0, "size=2m,nr_inodes=321,mode=700");
	test_daemon();
	test_waitsig();

	struct mnt_line m;
	CHECK(!mnt_find("/nsmnt_to", &m), "mount gone");
	CHECK(has_opt(m.super, "size=2048k") && has_opt(m.super, "nr_inodes=321") &&
		  has_opt(m.super, "mode=700"),
	      "options: %s", m.super);
	pass();
	return 0;
}
