/* An mqueue mount of the test's IPC namespace. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("mqueue", "/nsmnt_mq", "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	test_daemon();
	test_waitsig();

	struct mnt_line m;
	CHECK(!mnt_find("/nsmnt_mq", &m) && !strcmp(m.type, "mqueue"), "mount gone");
	CHECK(has_opt(m.opts, "nodev") && has_opt(m.opts, "noexec"), "flags %s", m.opts);
	pass();
	return 0;
}
