/* O_PATH opens: a symlink opened with O_PATH|O_NOFOLLOW (the link itself, not its target), a dangling
 * symlink the same way, a regular file and a directory with O_PATH. After restore each fd is the same kind
 * of object with the same inode (the links are links: fstat says S_IFLNK and readlinkat gives their
 * targets), flags are O_PATH(|O_NOFOLLOW), and the directory still works as a base for openat. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { L = 60, D = 61, R = 62, DIR_FD = 63 };
static struct stat before[4];
static const int fds[4] = {L, D, R, DIR_FD};

static void opath(const char *path, int flags, int at)
{
	int fd = open(path, O_PATH | flags);
	if (fd < 0 || dup2(fd, at) != at)
		fail("open %s", path);
	close(fd);
}

static void check_link(int fd, const char *want)
{
	char buf[256];
	ssize_t n = readlinkat(fd, "", buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (n < 0 || strcmp(buf, want))
		fail("fd %d: link target '%s', want '%s'", fd, buf, want);
}

int main(int argc, char **argv)
{
	struct stat st;
	test_init(argc, argv);
	int fd = open("target.file", O_RDWR | O_CREAT, 0600);
	if (fd < 0 || write(fd, "target", 6) != 6 || mkdir("sub", 0700) || symlink("target.file", "link") ||
	    symlink("nowhere", "dangling") || close(fd))
		fail("setup");
	opath("link", O_NOFOLLOW, L);
	opath("dangling", O_NOFOLLOW, D);
	opath("target.file", 0, R);
	opath("sub", O_DIRECTORY, DIR_FD);
	for (int i = 0; i < 4; i++)
		if (fstatat(fds[i], "", &before[i], AT_EMPTY_PATH))
			fail("fstat fd %d", fds[i]);
	if (!S_ISLNK(before[0].st_mode) || !S_ISLNK(before[1].st_mode))
		fail("the O_NOFOLLOW opens are not links");
	test_daemon();
	test_waitsig();

	for (int i = 0; i < 4; i++) {
		if (fstatat(fds[i], "", &st, AT_EMPTY_PATH))
			fail("fstat fd %d", fds[i]);
		else if (st.st_ino != before[i].st_ino || st.st_dev != before[i].st_dev ||
			 (st.st_mode & S_IFMT) != (before[i].st_mode & S_IFMT))
			fail("fd %d: inode %lu mode %o, want %lu %o", fds[i], (unsigned long)st.st_ino,
			     st.st_mode, (unsigned long)before[i].st_ino, before[i].st_mode);
		if (!(fcntl(fds[i], F_GETFL) & O_PATH))
			fail("fd %d lost O_PATH", fds[i]);
	}
	if (!(fcntl(L, F_GETFL) & O_NOFOLLOW) || !(fcntl(D, F_GETFL) & O_NOFOLLOW))
		fail("O_NOFOLLOW lost");
	check_link(L, "target.file");
	check_link(D, "nowhere");
	fd = openat(DIR_FD, "new.file", O_RDWR | O_CREAT, 0600);
	if (fd < 0 || access("sub/new.file", F_OK))
		fail("openat through the O_PATH directory fd");
	if (read(R, &st, 1) != -1)
		fail("an O_PATH fd can read");
	pass();
	return 0;
}
