/* A bind mount of a file onto a file. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	write_file("/nsmnt_fsrc", "bind-file");
	write_file("/nsmnt_fdst", "other");
	if (mount("/nsmnt_fsrc", "/nsmnt_fdst", NULL, MS_BIND, NULL))
		fail("bind a file");
	test_daemon();
	test_waitsig();

	struct mnt_line m;
	CHECK(!mnt_find("/nsmnt_fdst", &m), "no mount at /nsmnt_fdst after restore");
	CHECK(file_is("/nsmnt_fdst", "bind-file"), "/nsmnt_fdst does not show its source");
	write_file("/nsmnt_fdst", "changed");
	CHECK(file_is("/nsmnt_fsrc", "changed"), "a write through the file bind is not seen at its source");
	pass();
	return 0;
}
