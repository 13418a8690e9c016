/* A slave of a shared group that is shared itself (shared:N master:M), a peer of it, and a child mounted
 * under it (propagated to its peer); CRIU's shared_slave_mount_children. The whole mount tree must come
 * back with the same shape, the slave still a slave (a mount under its master reaches it and its peer). */
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	tmpfs_prop("/nsmnt_ps", MS_SHARED, "make shared");
	must_mount("/nsmnt_ps", "/nsmnt_ps_s1", NULL, MS_BIND, NULL);
	CHECK(!mount(NULL, "/nsmnt_ps_s1", NULL, MS_SLAVE, NULL), "make slave");
	CHECK(!mount(NULL, "/nsmnt_ps_s1", NULL, MS_SHARED, NULL), "make shared");
	must_mount("/nsmnt_ps_s1", "/nsmnt_ps_s2", NULL, MS_BIND, NULL);
	must_mount("nsmnt", "/nsmnt_ps_s2/child", "tmpfs", 0, NULL);
	CHECK(mnt_count("/nsmnt_ps_s1/child") == 1 && mnt_count("/nsmnt_ps/child") == 0, "propagation");
	char *before = mnt_shape();
	test_daemon();
	test_waitsig();

	mnt_shape_check(before);
	must_mount("nsmnt", "/nsmnt_ps/new", "tmpfs", 0, NULL);
	CHECK(mnt_count("/nsmnt_ps_s1/new") == 1 && mnt_count("/nsmnt_ps_s2/new") == 1,
	      "a mount under the master did not propagate to its slaves");
	must_mount("nsmnt", "/nsmnt_ps_s1/own", "tmpfs", 0, NULL);
	CHECK(mnt_count("/nsmnt_ps_s2/own") == 1 && mnt_count("/nsmnt_ps/own") == 0,
	      "the slave's peers: wrong propagation");
	free(before);
	pass();
	return 0;
}
