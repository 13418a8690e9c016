/* Open file descriptions held by a parent and its child, on mounts the tree made itself: a file on a tmpfs
 * and a file seen through a bind mount. Under each mount point the root directory has a file of the same name
 * ("HIDDEN"), so a restore that opened the paths before the tree's mounts stood would silently give the
 * hidden files. After restore both processes hold the files the paths name now (same inode), still one
 * description (kcmp), with the offset shared. */
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/kcmp.h>
#include "nsmnt.h"

#define TFD 7 /* on the tmpfs */
#define BFD 8 /* through the bind mount */

static int same_file(int fd, const char *path)
{
	struct stat a, b;
	return !fstat(fd, &a) && !stat(path, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int main(int argc, char **argv)
{
	int pfd[2];
	char buf[16] = "";
	test_init(argc, argv);
	write_file_p("/nsmnt_fs/log", "HIDDEN");
	must_mount("nsmnt", "/nsmnt_fs", "tmpfs", 0, NULL);
	write_file("/nsmnt_fs/log", "tmpfs-log");
	write_file_p("/nsmnt_fb/data", "HIDDEN");
	write_file_p("/nsmnt_fbsrc/data", "bound-data");
	must_mount("/nsmnt_fbsrc", "/nsmnt_fb", NULL, MS_BIND, NULL);
	open_at(TFD, "/nsmnt_fs/log", O_RDWR, "open /nsmnt_fs/log");
	open_at(BFD, "/nsmnt_fb/data", O_RDWR, "open /nsmnt_fb/data");
	if (lseek(TFD, 3, SEEK_SET) != 3 || lseek(BFD, 3, SEEK_SET) != 3 || pipe(pfd))
		fail("lseek or pipe");
	usr1_block();
	pid_t ch = test_fork();
	if (ch == 0) {
		if (child_ready(pfd))
			_exit(9);
		usr1_wait();
		int bad = 0;
		if (!same_file(TFD, "/nsmnt_fs/log") || !same_file(BFD, "/nsmnt_fb/data"))
			bad |= 1;
		if (lseek(TFD, 0, SEEK_CUR) != 5 || lseek(BFD, 0, SEEK_CUR) != 6)
			bad |= 2;
		_exit(bad);
	}
	if (ch < 0 || child_started(pfd))
		fail("child not ready");
	test_daemon();
	test_waitsig();

	CHECK(same_file(TFD, "/nsmnt_fs/log"), "fd %d is not /nsmnt_fs/log of the tmpfs", TFD);
	CHECK(same_file(BFD, "/nsmnt_fb/data"), "fd %d is not /nsmnt_fb/data of the bind mount", BFD);
	CHECK(pread(TFD, buf, 9, 0) == 9 && !memcmp(buf, "tmpfs-log", 9), "fd %d reads '%.9s'", TFD, buf);
	CHECK(pread(BFD, buf, 10, 0) == 10 && !memcmp(buf, "bound-data", 10), "fd %d reads '%.10s'", BFD,
	      buf);
	CHECK(syscall(SYS_kcmp, getpid(), ch, KCMP_FILE, TFD, TFD) == 0 &&
		  syscall(SYS_kcmp, getpid(), ch, KCMP_FILE, BFD, BFD) == 0,
	      "the parent's and the child's fds are not one description any more");
	CHECK(lseek(TFD, 0, SEEK_CUR) == 3 && lseek(BFD, 0, SEEK_CUR) == 3, "offsets not kept");
	if (lseek(TFD, 5, SEEK_SET) != 5 || lseek(BFD, 6, SEEK_SET) != 6)
		fail("lseek");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: the child's fds are other files, 2: offset not shared");
	return test_pass();
}
