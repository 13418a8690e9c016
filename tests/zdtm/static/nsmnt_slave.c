/* A slave: a bind of a shared tmpfs made its slave receives its mounts, not the other way. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_ma", "tmpfs", 0, NULL);
	mkdirs("/nsmnt_ma/a");
	mkdirs("/nsmnt_ma/b");
	if (mount(NULL, "/nsmnt_ma", NULL, MS_SHARED, NULL))
		fail("make shared");
	must_mount("/nsmnt_ma", "/nsmnt_sl", NULL, MS_BIND, NULL);
	if (mount(NULL, "/nsmnt_sl", NULL, MS_SLAVE, NULL))
		fail("make slave");
	test_daemon();
	test_waitsig();

	struct mnt_line a, b;
	CHECK(!mnt_find("/nsmnt_ma", &a) && !mnt_find("/nsmnt_sl", &b), "mounts gone");
	CHECK(tag_num(&a, "shared:") && tag_num(&b, "master:") == tag_num(&a, "shared:") &&
		  !tag_num(&b, "shared:"),
	      "not master and slave: '%s' and '%s'", a.tags, b.tags);
	must_mount("nsmnt", "/nsmnt_ma/a", "tmpfs", 0, NULL);
	CHECK(mnt_count("/nsmnt_sl/a") == 1, "the slave did not receive a mount of its master");
	must_mount("nsmnt", "/nsmnt_sl/b", "tmpfs", 0, NULL);
	CHECK(mnt_count("/nsmnt_ma/b") == 0, "the master received a mount of its slave");
	pass();
	return 0;
}
