/* Read-only mounts: a tmpfs mounted ro and a read-only bind of a writable dir. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_rotmp", "tmpfs", MS_RDONLY, "size=1m");
	mkdirs("/nsmnt_rw");
	must_mount("/nsmnt_rw", "/nsmnt_robind", NULL, MS_BIND, NULL);
	if (mount(NULL, "/nsmnt_robind", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL))
		fail("remount ro");
	test_daemon();
	test_waitsig();

	struct mnt_line m;
	CHECK(!mnt_find("/nsmnt_rotmp", &m) && has_opt(m.opts, "ro") && has_opt(m.super, "ro"),
	      "/nsmnt_rotmp not ro (%s / %s)", m.opts, m.super);
	CHECK(!mnt_find("/nsmnt_robind", &m) && has_opt(m.opts, "ro"), "/nsmnt_robind not ro (%s)", m.opts);
	CHECK(open("/nsmnt_robind/x", O_CREAT | O_WRONLY, 0644) < 0 && errno == EROFS,
	      "write to a ro bind worked");
	CHECK(open("/nsmnt_rotmp/x", O_CREAT | O_WRONLY, 0644) < 0 && errno == EROFS,
	      "write to a ro tmpfs worked");
	write_file("/nsmnt_rw/y", "still rw");
	pass();
	return 0;
}
