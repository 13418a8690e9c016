/* A deleted file (fd 5, "ghost" in it) whose old directory l was removed and is now an absolute symlink to
 * CWD/t, on which the test mounted a tmpfs in its own mount namespace (ns: always: a root of its own,
 * lib/ns.c; the test dir is bound there at the same path, without that tmpfs). Its ghost would be made
 * through l, so on the tmpfs: the dump refuses it with one line (.desc dump-expect) and the task keeps
 * running with its fd. The dump looked at the path through /proc/PID/root, where the absolute symlink led to
 * crshim's CWD/t (the host's directory, the test dir's filesystem), so it passed, and the restore made the
 * ghost there, outside the tree's root (issue 14: dump-ghost.c hidden_refused now resolves the path inside
 * the task's root). */
#include "nsmnt.h"

enum { FD = 5 };

int main(int argc, char **argv)
{
	char cwd[PATH_MAX], t[PATH_MAX + 8], want[PATH_MAX + 16], buf[8] = "";
	struct stat st, top;

	test_init(argc, argv);
	if (!getcwd(cwd, sizeof(cwd)) || mkdir("t", 0755) || mkdir("l", 0755))
		fail("mkdir t, l");
	open_at(FD, "l/f", O_RDWR | O_CREAT | O_EXCL, "create l/f");
	if (write(FD, "ghost", 5) != 5 || unlink("l/f") || rmdir("l"))
		fail("write, unlink l/f, rmdir l");
	snprintf(t, sizeof(t), "%s/t", cwd);
	if (symlink(t, "l"))
		fail("symlink l -> %s", t);
	must_mount("crshim-gsr", "t", "tmpfs", 0, "size=64k");
	test_daemon();
	test_waitsig();

	CHECK(!fstat(FD, &st) && !stat(".", &top) && S_ISREG(st.st_mode) && st.st_nlink == 0 &&
		  st.st_dev == top.st_dev,
	      "fd %d is not a deleted file of the test dir's filesystem", FD);
	CHECK(pread(FD, buf, 5, 0) == 5 && !memcmp(buf, "ghost", 5), "fd %d lost its data", FD);
	snprintf(want, sizeof(want), "%s/l/f (deleted)", cwd);
	CHECK(fd_named(FD, want), "fd %d is not named %s", FD, want);
	CHECK(access("t/f", F_OK), "t/f is there on the tmpfs");
	return test_pass();
}
