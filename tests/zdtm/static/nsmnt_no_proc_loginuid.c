/* A mount tree without /proc (as CRIU's clean_mntns leaves it; a proc mounted at /zdtm_proc2 instead, where
 * the test reads it, as a user namespace lets mount no proc where none is fully visible) and an audit login
 * uid set (3, as a login does, before the test starts): after restore its loginuid reads 3.
 * Before, the restoring child read and wrote its loginuid through /proc/self, found none and kept the
 * restoring crshim's (unset: 4294967295). */
#include <sys/mount.h>
#include "nsmnt.h"

static long luid(const char *path)
{
	char buf[16] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	return n > 0 ? (long)strtoul(buf, NULL, 10) : -2;
}

static int set_luid(const char *v)
{
	int fd = open("/proc/self/loginuid", O_WRONLY);
	int r = fd < 0 ? -1 : (write(fd, v, strlen(v)) == (ssize_t)strlen(v) ? 0 : -1);
	if (fd >= 0)
		close(fd);
	return r;
}

int main(int argc, char **argv)
{
	/* before test_init: in a user namespace CAP_AUDIT_CONTROL does not count */
	int bad = set_luid("4294967295") || set_luid("3");
	test_init(argc, argv);
	if (bad)
		test_skip("cannot set /proc/self/loginuid: no CAP_AUDIT_CONTROL or no audit");
	long before = luid("/proc/self/loginuid"); /* 3, or 4294967295 in a user namespace not mapping 3 */
	CHECK(before >= 0, "read /proc/self/loginuid");
	must_mount("proc", "/zdtm_proc2", "proc", 0, NULL);
	CHECK(!umount2("/proc", MNT_DETACH), "umount /proc");
	umount2("/dev/pts", MNT_DETACH); /* not every root has one */
	CHECK(access("/proc/self", F_OK), "/proc/self still there");
	test_daemon();
	test_waitsig();

	long after = luid("/zdtm_proc2/self/loginuid");
	CHECK(after == before, "loginuid %ld after the restore, %ld before", after, before);
	pass();
	return 0;
}
