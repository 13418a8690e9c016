/* An unbindable mount stays unbindable (a bind of it fails with EINVAL). */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	tmpfs_prop("/nsmnt_unb", MS_UNBINDABLE, "make unbindable");
	test_daemon();
	test_waitsig();

	struct mnt_line a;
	CHECK(!mnt_find("/nsmnt_unb", &a) && strstr(a.tags, "unbindable"), "not unbindable: '%s'", a.tags);
	mkdirs("/nsmnt_unb2");
	CHECK(mount("/nsmnt_unb", "/nsmnt_unb2", NULL, MS_BIND, NULL) && errno == EINVAL,
	      "a bind of an unbindable mount worked");
	pass();
	return 0;
}
