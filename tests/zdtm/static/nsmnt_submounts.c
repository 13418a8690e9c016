/* A tmpfs inside a bind inside a tmpfs, and a bind of a subdirectory of a tmpfs. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_t", "tmpfs", 0, NULL);
	write_file_p("/nsmnt_t/d/e/f", "deep");
	must_mount("/nsmnt_t/d", "/nsmnt_t/bd", NULL, MS_BIND, NULL);
	must_mount("nsmnt", "/nsmnt_t/bd/e", "tmpfs", 0, NULL);
	write_file("/nsmnt_t/bd/e/g", "inner");
	test_daemon();
	test_waitsig();

	struct mnt_line m;
	CHECK(!mnt_find("/nsmnt_t/bd", &m) && !strcmp(m.root, "/d"), "bind root '%s', want /d", m.root);
	CHECK(file_is("/nsmnt_t/bd/e/g", "inner"), "the inner tmpfs lost its file");
	CHECK(file_is("/nsmnt_t/d/e/f", "deep"), "the tmpfs lost its file");
	pass();
	return 0;
}
