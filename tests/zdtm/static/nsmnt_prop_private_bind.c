/* A private bind inside a shared mount: two peers, a bind mounted under the first (propagated to the
 * second), then made private; CRIU's private_bind_propagation. The whole mount tree must come back with
 * the same shape: the private one private, not a peer nor propagated again into the second. */
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	tmpfs_prop("/nsmnt_pb1", MS_SHARED, "make shared");
	must_mount("/nsmnt_pb1", "/nsmnt_pb2", NULL, MS_BIND, NULL);
	tmpfs_prop("/nsmnt_pb_src", MS_PRIVATE, "make private");
	mkdirs("/nsmnt_pb_src/d");
	must_mount("/nsmnt_pb_src/d", "/nsmnt_pb1/child", NULL, MS_BIND, NULL);
	CHECK(!mount(NULL, "/nsmnt_pb1/child", NULL, MS_PRIVATE, NULL), "make private");
	CHECK(mnt_count("/nsmnt_pb2/child") == 1, "no propagation");
	char *before = mnt_shape();
	test_daemon();
	test_waitsig();

	mnt_shape_check(before);
	must_mount("nsmnt", "/nsmnt_pb1/child/new", "tmpfs", 0, NULL);
	CHECK(mnt_count("/nsmnt_pb2/child/new") == 0, "a mount under the private bind propagated");
	free(before);
	pass();
	return 0;
}
