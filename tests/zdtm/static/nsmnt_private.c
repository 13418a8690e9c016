/* A private mount stays private: no propagation tag, a bind of it is not its peer. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	tmpfs_prop("/nsmnt_priv", MS_PRIVATE, "make private");
	test_daemon();
	test_waitsig();

	struct mnt_line a;
	CHECK(!mnt_find("/nsmnt_priv", &a), "mount gone");
	CHECK(!strstr(a.tags, "shared:") && !strstr(a.tags, "master:") && !strstr(a.tags, "unbindable"),
	      "private mount has tags '%s'", a.tags);
	pass();
	return 0;
}
