/* A file open on a tmpfs that was then mounted over by another tmpfs holding a file of the same name: the
 * path now reaches the other file, so the dump must refuse the fd with one line (CRIU's overmounted_file,
 * crfail there); before, the restore reopened the path and the fd came back on the wrong file. */
#include "nsmnt.h"

int main(int argc, char **argv)
{
	char buf[16] = {0};
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_ovfd", "tmpfs", 0, NULL);
	write_file("/nsmnt_ovfd/f", "lower");
	int fd = open("/nsmnt_ovfd/f", O_RDONLY);
	CHECK(fd >= 0, "open /nsmnt_ovfd/f");
	must_mount("nsmnt", "/nsmnt_ovfd", "tmpfs", 0, NULL);
	write_file("/nsmnt_ovfd/f", "upper");
	test_daemon();
	test_waitsig();

	CHECK(pread(fd, buf, sizeof(buf) - 1, 0) == 5 && !strcmp(buf, "lower"), "fd reads '%s', want 'lower'",
	      buf);
	CHECK(file_is("/nsmnt_ovfd/f", "upper"), "the top mount lost its file");
	pass();
	return 0;
}
