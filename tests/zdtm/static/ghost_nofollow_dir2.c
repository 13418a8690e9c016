/* ghost_nofollow_dir with two holders (issue 14): a removed directory held by the test (fd 40, O_RDONLY |
 * O_DIRECTORY) and by a forked child (fd 41, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, its own description), the
 * O_NOFOLLOW one second in the tree. After restore each fd's fdinfo flags are those it had (the child's with
 * O_NOFOLLOW), both are the same removed directory (st_nlink 0, named "PATH (deleted)"), and the directory
 * is not back. Before, an unprivileged restore (mode user: no open by handle) kept the ghost's name only
 * when the first holder held it O_NOFOLLOW, and the child's O_NOFOLLOW was dropped without a word. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"
#include "ghost_nofollow2.h"

#define DIR "ghost_nofollow_dir2.d"
enum { FD = 40, CFD = 41 };

/* fd has flags want, is a removed directory named "path (deleted)"; 0 if so */
static int check(int fd, long want, const char *path)
{
	char name[PATH_MAX] = "", link[64], exp[PATH_MAX + 16];
	struct stat st;
	long got = fdinfo_field(fd, "flags:", 8, -1);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	snprintf(exp, sizeof(exp), "%s (deleted)", path);
	if (got != want) {
		test_msg("fd %d: flags 0%lo, before 0%lo\n", fd, got, want);
		return 1;
	}
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode) || st.st_nlink != 0) {
		test_msg("fd %d is not the removed directory\n", fd);
		return 1;
	}
	if (readlink(link, name, sizeof(name) - 1) < 0 || strcmp(name, exp)) {
		test_msg("fd %d is named %s, not %s\n", fd, name, exp);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	test_init(argc, argv);
	if (mkdir(DIR, 0700) || !realpath(DIR, path))
		fail("mkdir " DIR);
	open_at(FD, DIR, O_RDONLY | O_DIRECTORY, "open " DIR);
	open_at(CFD, DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, "open " DIR " O_NOFOLLOW");
	long pf = fdinfo_field(FD, "flags:", 8, -1), cf = fdinfo_field(CFD, "flags:", 8, -1);
	if (pf < 0 || (pf & O_NOFOLLOW) || cf < 0 || !(cf & O_NOFOLLOW))
		fail("flags 0%lo, 0%lo: O_NOFOLLOW not as opened", pf, cf);
	pid_t ch = test_fork();
	if (ch == 0) {
		close(FD);
		test_waitsig();
		_exit(check(CFD, cf, path));
	}
	nofollow2_remove_cr(CFD, DIR, true, FD, check, pf, path);
	kill(ch, SIGTERM);
	child_exit_ok(ch, "the child's fd 41 (flags with O_NOFOLLOW, a removed directory)");
	if (!access(DIR, F_OK))
		fail(DIR " is back");
	return test_pass();
}
