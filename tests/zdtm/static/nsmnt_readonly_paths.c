/* runc's read-only paths: a dir bound onto itself and remounted ro, under a rw parent. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	write_file_p("/nsmnt_rop/ro/f", "ro");
	must_mount("/nsmnt_rop/ro", "/nsmnt_rop/ro", NULL, MS_BIND, NULL);
	if (mount(NULL, "/nsmnt_rop/ro", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID, NULL))
		fail("remount ro");
	test_daemon();
	test_waitsig();

	struct mnt_line m;
	CHECK(!mnt_find("/nsmnt_rop/ro", &m) && has_opt(m.opts, "ro") && has_opt(m.opts, "nosuid"),
	      "not ro: %s", m.opts);
	CHECK(file_is("/nsmnt_rop/ro/f", "ro"), "file lost");
	CHECK(open("/nsmnt_rop/ro/g", O_CREAT | O_WRONLY, 0644) < 0 && errno == EROFS, "writable");
	write_file("/nsmnt_rop/rw", "rw");
	pass();
	return 0;
}
