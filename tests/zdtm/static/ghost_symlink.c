/* Deleted symlinks held by O_PATH | O_NOFOLLOW fds (CRIU's symlink01 with ZDTM_UNLINK_SYMLINK): one to a
 * file, one dangling with a long target, and one whose directory was removed too. After restore each fd is
 * still a symlink (fstat says S_IFLNK, its link count 0) with the same target, owner and flags, and the
 * names stay free. Before, the dump refused "a deleted special file". */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { N = 3 };
static const char *const names[N] = {"link", "dangling", "gone/link"};
static char targets[N][300];
static int fds[N];

int main(int argc, char **argv)
{
	struct stat st;
	test_init(argc, argv);
	snprintf(targets[0], sizeof(targets[0]), "target.file");
	memset(targets[1], 'x', 250);
	snprintf(targets[2], sizeof(targets[2]), "../target.file");
	int fd = open("target.file", O_RDWR | O_CREAT, 0600);
	if (fd < 0 || close(fd) || mkdir("gone", 0700))
		fail("setup");
	for (int i = 0; i < N; i++) {
		if (symlink(targets[i], names[i]) || lchown(names[i], 0, 12345) ||
		    (fds[i] = open(names[i], O_PATH | O_NOFOLLOW)) < 0 || unlink(names[i]))
			fail("make, open and unlink %s", names[i]);
	}
	if (rmdir("gone"))
		fail("rmdir gone");
	test_daemon();
	test_waitsig();

	for (int i = 0; i < N; i++) {
		char buf[400];
		ssize_t n = readlinkat(fds[i], "", buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		if (fstatat(fds[i], "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) || !S_ISLNK(st.st_mode) ||
		    st.st_nlink || st.st_gid != 12345)
			fail("fd %d (%s): not a removed symlink of gid 12345 (mode %o, %lu links, gid %u)",
			     fds[i], names[i], st.st_mode, (unsigned long)st.st_nlink, st.st_gid);
		else if (n < 0 || strcmp(buf, targets[i]))
			fail("fd %d: target '%s', want '%s'", fds[i], buf, targets[i]);
		if ((fcntl(fds[i], F_GETFL) & (O_PATH | O_NOFOLLOW)) != (O_PATH | O_NOFOLLOW))
			fail("fd %d: flags %#x", fds[i], fcntl(fds[i], F_GETFL));
		if (!access(names[i], F_OK) || errno != ENOENT)
			fail("%s is there again", names[i]);
	}
	pass();
	return 0;
}
