/* A peer group: a shared tmpfs and a bind of it stay peers (a mount under one shows under the other). */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	tmpfs_prop("/nsmnt_sha", MS_SHARED, "make shared");
	must_mount("/nsmnt_sha", "/nsmnt_shb", NULL, MS_BIND, NULL);
	test_daemon();
	test_waitsig();

	struct mnt_line a, b;
	CHECK(!mnt_find("/nsmnt_sha", &a) && !mnt_find("/nsmnt_shb", &b), "mounts gone");
	CHECK(tag_num(&a, "shared:") && tag_num(&a, "shared:") == tag_num(&b, "shared:"),
	      "not peers: '%s' and '%s'", a.tags, b.tags);
	must_mount("nsmnt", "/nsmnt_sha/new", "tmpfs", 0, NULL);
	CHECK(mnt_count("/nsmnt_shb/new") == 1, "a mount under one peer did not propagate to the other");
	pass();
	return 0;
}
