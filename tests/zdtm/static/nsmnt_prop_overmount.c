/* Overmounts under a shared parent: a shared tmpfs (and its peer) with a tmpfs under it, a tmpfs under that
 * one, then another tmpfs over the first (same mount point: the one below is hidden, its files must still be
 * saved), and a tmpfs under a dir over which another is mounted (CRIU's tempfs_overmounted); and a bind of
 * the shared one's a/b over its a, a bind put on a/c (propagated into the shared one at a/b/c, under the
 * overmount: hidden), as CRIU's overmount_with_shared_parent. The whole mount tree must come back with the
 * same shape (no mount propagated twice, each hidden one where it was), and taking a/c then a off must work
 * (the hidden copy goes with a/c). */
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	tmpfs_prop("/nsmnt_po", MS_SHARED, "make shared");
	must_mount("/nsmnt_po", "/nsmnt_po_peer", NULL, MS_BIND, NULL);
	must_mount("nsmnt", "/nsmnt_po/b", "tmpfs", 0, NULL);
	must_mount("nsmnt", "/nsmnt_po/b/c", "tmpfs", 0, NULL);
	write_file("/nsmnt_po/b/c/f", "under");
	must_mount("nsmnt", "/nsmnt_po/b", "tmpfs", 0, NULL); /* over b, c hidden */
	write_file("/nsmnt_po/b/top", "top");
	mkdirs("/nsmnt_po/a");
	mkdirs("/nsmnt_po/a/b");
	mkdirs("/nsmnt_po/a/b/c");
	mkdirs("/nsmnt_po/d");
	must_mount("/nsmnt_po/a/b", "/nsmnt_po/a", NULL, MS_BIND, NULL);
	must_mount("/nsmnt_po/d", "/nsmnt_po/a/c", NULL, MS_BIND, NULL);
	CHECK(mnt_count("/nsmnt_po/a/b/c") == 1, "no hidden propagated mount");
	CHECK(mnt_count("/nsmnt_po/b") == 2 && mnt_count("/nsmnt_po_peer/b") == 2, "stack");
	mkdirs("/nsmnt_po/e");
	must_mount("nsmnt", "/nsmnt_po/e/f", "tmpfs", 0, NULL);
	write_file("/nsmnt_po/e/f/file", "hidden");
	must_mount("nsmnt", "/nsmnt_po/e", "tmpfs", 0, NULL); /* over the dir above f: f hidden */
	char *before = mnt_shape();
	test_daemon();
	test_waitsig();

	mnt_shape_check(before);
	CHECK(file_is("/nsmnt_po/b/top", "top") && file_is("/nsmnt_po_peer/b/top", "top"),
	      "top mount's file");
	CHECK(!umount("/nsmnt_po/a/c"), "umount a/c");
	CHECK(!umount("/nsmnt_po/a"), "umount a (a mount left under it)");
	CHECK(mnt_count("/nsmnt_po/a/b/c") == 0, "the hidden mount stayed");
	CHECK(!umount("/nsmnt_po/b"), "umount the top b");
	CHECK(file_is("/nsmnt_po/b/c/f", "under"), "the files of the tmpfs hidden by a stack on its parent");
	CHECK(!umount("/nsmnt_po/e"), "umount e");
	CHECK(file_is("/nsmnt_po/e/f/file", "hidden"),
	      "the files of the tmpfs hidden by a mount over a dir above");
	pass();
	free(before);
	return 0;
}
