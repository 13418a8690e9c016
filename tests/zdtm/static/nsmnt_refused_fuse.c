/* A fuse mount, which crshim cannot restore: the dump fails with one line naming it (.desc), and the tree
 * keeps running with the mount in place. The fuse device is closed once it is mounted (no daemon: the
 * connection is aborted, so nothing that looks at the mount can hang on it). */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	char o[128];
	struct mnt_line m;
	test_init(argc, argv);
	if (mknod("/nsmnt_fuse_dev", S_IFCHR | 0600, makedev(10, 229)) && errno != EEXIST)
		fail("mknod /dev/fuse");
	int fd = open("/nsmnt_fuse_dev", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		test_skip("no /dev/fuse here: %s", strerror(errno));
	snprintf(o, sizeof(o), "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	must_mount("nsmnt", "/nsmnt_fuse", "fuse", MS_NOSUID | MS_NODEV, o);
	close(fd);
	CHECK(!mnt_find("/nsmnt_fuse", &m) && !strcmp(m.type, "fuse"), "setup: no fuse mount at /nsmnt_fuse");
	test_daemon();
	test_waitsig();

	CHECK(!mnt_find("/nsmnt_fuse", &m) && !strcmp(m.type, "fuse"), "the fuse mount is gone");
	pass();
	return 0;
}
