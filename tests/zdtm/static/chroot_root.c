/* The task's root (chroot into a directory of its test dir) and cwd inside it
 * survive: "/" is the same directory, files inside are reachable by absolute
 * path, and ".." at the root stays at the root. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct stat root0, cwd0, st;
	char buf[32];
	int fd;

	test_init(argc, argv);
	if (geteuid() != 0)
		test_skip("chroot needs root");
	mkdir("newroot", 0755);
	mkdir("newroot/sub", 0755);
	fd = open("newroot/marker", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "chroot-marker", 13) != 13)
		fail("marker");
	close(fd);
	if (chroot("newroot") || chdir("/sub")) {
		fail("chroot");
		return 1;
	}
	stat("/", &root0);
	stat(".", &cwd0);
	test_daemon();
	test_waitsig();

	if (stat("/", &st) || st.st_ino != root0.st_ino || st.st_dev != root0.st_dev)
		fail("root is another directory (ino %lu, want %lu)", (unsigned long)st.st_ino,
		     (unsigned long)root0.st_ino);
	if (stat(".", &st) || st.st_ino != cwd0.st_ino)
		fail("cwd is another directory");
	if (stat("/..", &st) || st.st_ino != root0.st_ino)
		fail("/.. escapes the root");
	fd = open("/marker", O_RDONLY);
	memset(buf, 0, sizeof(buf));
	if (fd < 0 || read(fd, buf, sizeof(buf)) != 13 || strcmp(buf, "chroot-marker"))
		fail("/marker not readable in the root");
	if (access("/bin", F_OK) == 0 || access("/proc/self", F_OK) == 0)
		fail("the host's / is visible");
	pass();
	return 0;
}
