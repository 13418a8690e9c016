/* Shared peers with children: a shared tmpfs, a bind of it (a peer) and a slave of it, then mounts under
 * the first one (they show under the peer and the slave, propagated: peers of theirs there, slaves under
 * the slave); and two peers with roots apart (binds of two dirs of a shared tmpfs, which is then made
 * private: no member's root holds the other's). The whole mount tree must come back with the same shape (no
 * mount propagated twice), and the peers and the slave must still propagate. */
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	tmpfs_prop("/nsmnt_pp", MS_SHARED, "make shared");
	must_mount("/nsmnt_pp", "/nsmnt_pp_peer", NULL, MS_BIND, NULL);
	must_mount("/nsmnt_pp", "/nsmnt_pp_slave", NULL, MS_BIND, NULL);
	CHECK(!mount(NULL, "/nsmnt_pp_slave", NULL, MS_SLAVE, NULL), "make slave");
	must_mount("nsmnt", "/nsmnt_pp/a", "tmpfs", 0, NULL);
	must_mount("nsmnt", "/nsmnt_pp/a/b", "tmpfs", 0, NULL);
	must_mount("nsmnt", "/nsmnt_pp/c", "tmpfs", 0, NULL);
	CHECK(mnt_count("/nsmnt_pp_peer/a/b") == 1 && mnt_count("/nsmnt_pp_slave/c") == 1, "no propagation");
	tmpfs_prop("/nsmnt_pp_gone", MS_SHARED, "make shared");
	mkdirs("/nsmnt_pp_gone/x");
	mkdirs("/nsmnt_pp_gone/y");
	must_mount("/nsmnt_pp_gone/x", "/nsmnt_pp_x", NULL, MS_BIND, NULL);
	must_mount("/nsmnt_pp_gone/y", "/nsmnt_pp_y", NULL, MS_BIND, NULL);
	CHECK(!mount(NULL, "/nsmnt_pp_gone", NULL, MS_PRIVATE, NULL), "make private");
	char *before = mnt_shape();
	test_daemon();
	test_waitsig();

	mnt_shape_check(before);
	must_mount("nsmnt", "/nsmnt_pp/new", "tmpfs", 0, NULL);
	CHECK(mnt_count("/nsmnt_pp_peer/new") == 1, "a mount under one peer did not propagate to the other");
	CHECK(mnt_count("/nsmnt_pp_slave/new") == 1,
	      "a mount under the master did not propagate to its slave");
	must_mount("nsmnt", "/nsmnt_pp_slave/own", "tmpfs", 0, NULL);
	CHECK(mnt_count("/nsmnt_pp/own") == 0, "a mount under the slave propagated to its master");
	CHECK(mnt_count("/nsmnt_pp_x") == 1 && mnt_count("/nsmnt_pp_y") == 1, "x, y");
	free(before);
	pass();
	return 0;
}
