/* A bind mount of a directory of the root onto another: same files, root path kept. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	write_file_p("/nsmnt_src/sub/f", "bind-dir");
	must_mount("/nsmnt_src/sub", "/nsmnt_dst", NULL, MS_BIND, NULL);
	struct mnt_line m0;
	if (mnt_find("/nsmnt_dst", &m0))
		fail("no mount at /nsmnt_dst");
	test_daemon();
	test_waitsig();

	struct mnt_line m;
	struct stat a, b;
	CHECK(!mnt_find("/nsmnt_dst", &m), "no mount at /nsmnt_dst after restore");
	CHECK(!strcmp(m.root, m0.root), "root %s, was %s", m.root, m0.root);
	CHECK(file_is("/nsmnt_dst/f", "bind-dir"), "/nsmnt_dst/f lost its contents");
	CHECK(!stat("/nsmnt_dst/f", &a) && !stat("/nsmnt_src/sub/f", &b) && a.st_ino == b.st_ino,
	      "/nsmnt_dst/f is not /nsmnt_src/sub/f");
	write_file("/nsmnt_dst/g", "x");
	CHECK(file_is("/nsmnt_src/sub/g", "x"), "a write through the bind is not seen at its source");
	pass();
	return 0;
}
