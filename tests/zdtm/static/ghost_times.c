/* Unlinked files held open: a regular file with data, an odd mode and an old mtime/atime, and a device
 * node (/dev/null's 1:3, mode 0620) made with mknod. After restore the file has its data, mode, mtime and
 * atime, the node is still a character device 1:3 with its mode and still works as /dev/null; both are
 * still unlinked (CRIU's zdtm file_attr and deleted_dev). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "zdtmtst.h"

#define LEN 70000
#define FILE_NAME "ghost_times.file"
#define NODE_NAME "ghost_times.node"
enum { FD_FILE = 40, FD_NODE = 41 };

int main(int argc, char **argv)
{
	static char data[LEN], buf[LEN];
	struct timespec ts[2] = {{.tv_sec = 1000000, .tv_nsec = 500}, {.tv_sec = 123456, .tv_nsec = 789}};
	struct stat st;
	size_t bad;
	int fd;

	test_init(argc, argv);
	datagen(data, LEN, 3);
	fd = open(FILE_NAME, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || dup2(fd, FD_FILE) != FD_FILE || write(FD_FILE, data, LEN) != LEN)
		fail("make " FILE_NAME);
	close(fd);
	if (fchmod(FD_FILE, 06604) || futimens(FD_FILE, ts) || unlink(FILE_NAME))
		fail("chmod/utimens/unlink " FILE_NAME);
	if (mknod(NODE_NAME, S_IFCHR | 0600, makedev(1, 3)) || chmod(NODE_NAME, 0620))
		fail("mknod");
	fd = open(NODE_NAME, O_RDWR);
	if (fd < 0 || dup2(fd, FD_NODE) != FD_NODE || unlink(NODE_NAME))
		fail("open/unlink " NODE_NAME);
	close(fd);
	test_daemon();
	test_waitsig();

	if (fstat(FD_FILE, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 0)
		fail("the file is not an unlinked regular file");
	if ((st.st_mode & 07777) != 06604)
		fail("file mode %o, want 6604", st.st_mode & 07777);
	if (st.st_mtim.tv_sec != ts[1].tv_sec || st.st_mtim.tv_nsec != ts[1].tv_nsec)
		fail("mtime %ld.%09ld, want %ld.%09ld", (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		     (long)ts[1].tv_sec, ts[1].tv_nsec);
	if (st.st_atim.tv_sec != ts[0].tv_sec)
		fail("atime %ld, want %ld", (long)st.st_atim.tv_sec, (long)ts[0].tv_sec);
	if (pread(FD_FILE, buf, LEN, 0) != LEN || datachk(buf, LEN, 3, &bad))
		fail("file data differs");
	if (fstat(FD_NODE, &st) || !S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3) || st.st_nlink != 0)
		fail("the node is not an unlinked char device 1:3");
	if ((st.st_mode & 07777) != 0620)
		fail("node mode %o, want 620", st.st_mode & 07777);
	if (write(FD_NODE, "x", 1) != 1 || read(FD_NODE, buf, 1) != 0)
		fail("the node does not work as /dev/null");
	if (!access(FILE_NAME, F_OK) || !access(NODE_NAME, F_OK))
		fail("a ghost is linked again");
	pass();
	return 0;
}
