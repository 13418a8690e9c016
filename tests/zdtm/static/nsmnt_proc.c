/* A second proc mount with hidepid=invisible, of the test's PID namespace. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("proc", "/nsmnt_proc", "proc", MS_NOSUID, "hidepid=invisible");
	test_daemon();
	test_waitsig();

	struct mnt_line m;
	CHECK(!mnt_find("/nsmnt_proc", &m) && !strcmp(m.type, "proc"), "mount gone");
	CHECK(has_opt(m.super, "hidepid=invisible"), "options %s", m.super);
	CHECK(!access("/nsmnt_proc/1/status", R_OK),
	      "/nsmnt_proc/1 (the test) missing: not its PID namespace");
	pass();
	return 0;
}
