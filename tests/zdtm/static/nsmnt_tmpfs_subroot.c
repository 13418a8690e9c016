/* A tmpfs seen only below its root: a bind of its subdirectory a/b at /nsmnt_sr, and the tmpfs's own mount
 * taken off. The restore makes a new tmpfs, its directories down to a/b, the files there, and binds a/b:
 * mountinfo's root is /a/b again, the files and a second bind of a deeper directory are back, and what was
 * outside a/b is not (it was not reachable). */
#include "nsmnt.h"

int main(int argc, char **argv)
{
	struct mnt_line m, d;
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_sr_full", "tmpfs", 0, "mode=755");
	write_file_p("/nsmnt_sr_full/a/b/f", "deep");
	write_file_p("/nsmnt_sr_full/a/b/c/g", "deeper");
	write_file("/nsmnt_sr_full/top", "top");
	must_mount("/nsmnt_sr_full/a/b", "/nsmnt_sr", NULL, MS_BIND, NULL);
	must_mount("/nsmnt_sr_full/a/b/c", "/nsmnt_sr_c", NULL, MS_BIND, NULL);
	if (umount("/nsmnt_sr_full"))
		fail("umount /nsmnt_sr_full");
	if (mnt_find("/nsmnt_sr", &m) || strcmp(m.root, "/a/b") || mnt_find("/nsmnt_sr_c", &d) ||
	    strcmp(d.root, "/a/b/c"))
		fail("setup: the binds' roots are not /a/b and /a/b/c");
	test_daemon();
	test_waitsig();

	CHECK(!mnt_find("/nsmnt_sr", &m) && !strcmp(m.type, "tmpfs") && !strcmp(m.root, "/a/b"),
	      "/nsmnt_sr: %s with root %s, want tmpfs with root /a/b", m.type, m.root);
	CHECK(!mnt_find("/nsmnt_sr_c", &d) && !strcmp(d.type, "tmpfs") && !strcmp(d.root, "/a/b/c"),
	      "/nsmnt_sr_c: %s with root %s, want tmpfs with root /a/b/c", d.type, d.root);
	CHECK(file_is("/nsmnt_sr/f", "deep") && file_is("/nsmnt_sr/c/g", "deeper") &&
		  file_is("/nsmnt_sr_c/g", "deeper"),
	      "the files below the binds' roots");
	CHECK(mnt_count("/nsmnt_sr_full") == 0, "the tmpfs's own mount is back");
	/* one superblock for both: a file made through one bind is seen through the other */
	write_file("/nsmnt_sr/c/new", "one fs");
	CHECK(file_is("/nsmnt_sr_c/new", "one fs"), "the two binds are not of one tmpfs");
	pass();
	return 0;
}
