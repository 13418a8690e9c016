/* ghost_nofollow_dir2 for a regular file (issue 14): an unlinked file held by the test (fd 40, O_RDWR) and
 * by a forked child (fd 41, O_RDWR | O_NOFOLLOW, its own description), the O_NOFOLLOW one second in the
 * tree. After restore each fd's fdinfo flags are those it had (the child's with O_NOFOLLOW), both are the
 * same unlinked file (st_nlink 0, named "PATH (deleted)"; the child's write seen by the test), and the file
 * is not back. Before, an unprivileged restore (mode user: no open by handle) kept the ghost's name (by which
 * the child's fd opens it again with O_NOFOLLOW) only when the first holder held it O_NOFOLLOW, and the
 * child's O_NOFOLLOW was dropped without a word. */
#include "nsmnt.h"
#include "ghost_nofollow2.h"

#define FILE_NAME "ghost_nofollow_file2.f"
enum { FD = 40, CFD = 41 };

/* fd has flags want, is an unlinked regular file whose link reads name ("PATH (deleted)"); 0 if so */
static int check(int fd, long want, const char *name)
{
	struct stat st;
	long got = fdinfo_field(fd, "flags:", 8, -1);
	if (got == want && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_nlink == 0 && fd_named(fd, name))
		return 0;
	test_msg("fd %d: flags 0%lo, before 0%lo, or not the unlinked file %s\n", fd, got, want, name);
	return 1;
}

int main(int argc, char **argv)
{
	char path[PATH_MAX], name[PATH_MAX + 16], c = 0;
	test_init(argc, argv);
	int fd = open(FILE_NAME, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || close(fd) || !realpath(FILE_NAME, path))
		fail("make " FILE_NAME);
	snprintf(name, sizeof(name), "%s (deleted)", path);
	open_at(FD, FILE_NAME, O_RDWR, "open " FILE_NAME);
	open_at(CFD, FILE_NAME, O_RDWR | O_NOFOLLOW, "open " FILE_NAME " O_NOFOLLOW");
	long pf = fdinfo_field(FD, "flags:", 8, -1), cf = fdinfo_field(CFD, "flags:", 8, -1);
	if (pf < 0 || (pf & O_NOFOLLOW) || cf < 0 || !(cf & O_NOFOLLOW))
		fail("flags 0%lo, 0%lo: O_NOFOLLOW not as opened", pf, cf);
	pid_t ch = test_fork();
	if (ch == 0) {
		close(FD);
		test_waitsig();
		/* (a mark for the test to read through its fd: the same inode) */
		_exit(check(CFD, cf, name) || pwrite(CFD, "x", 1, 0) != 1);
	}
	nofollow2_remove_cr(CFD, FILE_NAME, false, FD, check, pf, name);
	kill(ch, SIGTERM);
	child_exit_ok(ch, "the child's fd 41 (flags with O_NOFOLLOW, the unlinked file)");
	if (pread(FD, &c, 1, 0) != 1 || c != 'x')
		fail("fd %d does not see the child's write through its fd %d: not the same file", FD, CFD);
	if (!access(FILE_NAME, F_OK))
		fail(FILE_NAME " is back");
	return test_pass();
}
