/* A bind whose source is gone, a file that held data (a removed empty file or directory is made again:
 * nsmnt_bind_removed): the dump fails with one line, the tree keeps running. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	write_file("/nsmnt_gone", "gone");
	write_file("/nsmnt_gone_dst", "");
	if (mount("/nsmnt_gone", "/nsmnt_gone_dst", NULL, MS_BIND, NULL) || unlink("/nsmnt_gone"))
		fail("bind then unlink");
	test_daemon();
	test_waitsig();

	CHECK(file_is("/nsmnt_gone_dst", "gone"), "the bind lost its file");
	pass();
	return 0;
}
