/* Per-mount flags nosuid, nodev, noexec, noatime, nodiratime, nosymfollow; relatime/strictatime. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_fl1", "tmpfs",
		   MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME, NULL);
	must_mount("nsmnt", "/nsmnt_fl2", "tmpfs", MS_STRICTATIME | MS_NOSYMFOLLOW, NULL);
	must_mount("nsmnt", "/nsmnt_fl3", "tmpfs", MS_RELATIME, NULL);
	test_daemon();
	test_waitsig();

	struct mnt_line m;
	static const char *const w1[] = {"rw", "nosuid", "nodev", "noexec", "noatime", "nodiratime"};
	CHECK(!mnt_find("/nsmnt_fl1", &m), "no /nsmnt_fl1");
	for (size_t i = 0; i < sizeof(w1) / sizeof(w1[0]); i++)
		CHECK(has_opt(m.opts, w1[i]), "/nsmnt_fl1: no %s in %s", w1[i], m.opts);
	CHECK(!mnt_find("/nsmnt_fl2", &m) && has_opt(m.opts, "nosymfollow") && !has_opt(m.opts, "relatime") &&
		  !has_opt(m.opts, "nosuid"),
	      "/nsmnt_fl2: %s", m.opts);
	CHECK(!mnt_find("/nsmnt_fl3", &m) && has_opt(m.opts, "relatime") && !has_opt(m.opts, "noexec"),
	      "/nsmnt_fl3: %s", m.opts);
	pass();
	return 0;
}
