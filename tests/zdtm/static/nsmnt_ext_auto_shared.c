/* --external mnt[] without --enable-external-sharing: a directory of a tmpfs the host mounts, bound into the
 * test's root and made shared there, is refused by the dump with one line naming the option (CRIU makes
 * such a mount external only with it), and the test keeps running (.desc dump-expect). */
#include "nsmnt.h"

int main(int argc, char **argv)
{
	char dir[1200], file[1200];
	struct stat d0, d1;
	nsmnt_host_tmpfs("rw", dir, file, sizeof(dir));
	test_init(argc, argv);
	if (mount(NULL, dir, NULL, MS_SHARED, NULL) || stat(dir, &d0))
		fail("make %s shared", dir);
	test_daemon();
	test_waitsig();
	struct mnt_line s;
	CHECK(!mnt_find(dir, &s) && has_opt(s.tags, "shared:"), "%s: '%s'", dir, s.tags);
	CHECK(!stat(dir, &d1) && d1.st_dev == d0.st_dev, "%s: another filesystem", dir);
	pass();
	return 0;
}
