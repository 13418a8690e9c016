/* A devpts of its own (newinstance, ptmxmode, mode, gid) with a pty open across C/R. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("devpts", "/nsmnt_pts", "devpts", MS_NOSUID | MS_NOEXEC,
		   "newinstance,ptmxmode=0640,mode=600");
	test_daemon();
	test_waitsig();

	struct mnt_line m;
	CHECK(!mnt_find("/nsmnt_pts", &m) && !strcmp(m.type, "devpts"), "mount gone");
	CHECK(has_opt(m.super, "ptmxmode=640") && has_opt(m.super, "mode=600"), "options: %s", m.super);
	CHECK(has_opt(m.opts, "nosuid") && has_opt(m.opts, "noexec"), "flags: %s", m.opts);
	int fd = open("/nsmnt_pts/ptmx", O_RDWR | O_NOCTTY);
	CHECK(fd >= 0, "open a pty in the restored devpts");
	if (fd >= 0)
		close(fd);
	pass();
	return 0;
}
