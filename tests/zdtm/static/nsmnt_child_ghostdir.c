/* A child in a mount namespace of its own holds an fd of a directory (mode 0751, owner 1234:2345) of a
 * tmpfs that both namespaces mount, removed by the test. After restore fd 7 is a removed directory with its
 * mode and owner on the child's own mount of that tmpfs (fdinfo mnt_id listed in its mountinfo, its st_dev),
 * named "PATH (deleted)", nothing can be made in it. crshim makes the ghost in the root's mount tree; the
 * child opens it again by its handle on its own mount (in mode cuns too: root of the user namespace that
 * owns its mount namespace may open a directory by its handle). Before, mode cuns refused it at dump ("a
 * directory"), then made it again in the child (another inode). nsmnt_child_ghostdir_held includes it with
 * NSMNT_DIR_HELD 1: the test holds the directory too (fd 8, its own mount). nsmnt_child_ghostdir_kid with
 * NSMNT_DIR_KID 1: a child of the child (forked once its namespace stands) opens the directory too, on its
 * own (fd 8): after restore the same inode as fd 7 (the child checks it through /proc).
 * nsmnt_child_ghostdir_cwd with NSMNT_DIR_CWD 1: the child's cwd is that directory too: after restore its cwd
 * is the inode of fd 7 (bit 32). nsmnt_child_ghostdir_bind with NSMNT_DIR_BIND 1: the child binds that tmpfs
 * at /nsmnt_gd/b too and opens the directory there (fd 8): after restore fd 8 is the inode of fd 7 on that
 * other mount (bit 64). Mode cuns refused _held, _cwd and _bind at dump with one line ("held by another fd or
 * cwd of the tree too": the child's copy would have been another inode). */
#include <sys/wait.h>

#include "nsmnt.h"

#ifndef NSMNT_DIR_HELD
#define NSMNT_DIR_HELD 0
#endif
#ifndef NSMNT_DIR_KID
#define NSMNT_DIR_KID 0
#endif
#ifndef NSMNT_DIR_CWD
#define NSMNT_DIR_CWD 0
#endif
#ifndef NSMNT_DIR_BIND
#define NSMNT_DIR_BIND 0
#endif
#define DFD 7

static pid_t kid; /* NSMNT_DIR_KID: the child's child that holds the directory at fd 8 */

static int setup(void)
{
	open_at(DFD, "/nsmnt_gd/0/d", O_RDONLY | O_DIRECTORY, "open /nsmnt_gd/0/d in the child");
	if (NSMNT_DIR_CWD && chdir("/nsmnt_gd/0/d"))
		return 1;
	if (NSMNT_DIR_BIND) {
		mkdirs("/nsmnt_gd/b");
		if (mount("/nsmnt_gd/0", "/nsmnt_gd/b", NULL, MS_BIND, NULL))
			return 1;
		open_at(DFD + 1, "/nsmnt_gd/b/d", O_RDONLY | O_DIRECTORY, "open /nsmnt_gd/b/d in the child");
	}
	return NSMNT_DIR_KID &&
	       (kid = nsmnt_kid_open("/nsmnt_gd/0/d", DFD + 1, O_RDONLY | O_DIRECTORY, 0, DFD)) < 0;
}

/* its child's fd 8 is the inode of st (opened again through /proc) */
static int kid_same(const struct stat *st)
{
	char p[64];
	struct stat k;
	snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)kid, DFD + 1);
	int r = !stat(p, &k) && k.st_dev == st->st_dev && k.st_ino == st->st_ino;
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	return r;
}

static int check(void)
{
	struct stat st, d;
	char name[128] = "";
	int bad = 0;
	if (fstat(DFD, &st) || st.st_nlink != 0 || !S_ISDIR(st.st_mode) || (st.st_mode & 07777) != 0751 ||
	    st.st_uid != 1234 || st.st_gid != 2345)
		bad |= 1;
	if (stat("/nsmnt_gd/0", &d) || d.st_dev != st.st_dev || !mnt_listed(fd_mnt_id(DFD)))
		bad |= 2;
	if (readlink("/proc/self/fd/7", name, sizeof(name) - 1) < 0 ||
	    strcmp(name, "/nsmnt_gd/0/d (deleted)"))
		bad |= 4;
	if (!mkdirat(DFD, "x", 0700) || errno != ENOENT)
		bad |= 8;
	if (NSMNT_DIR_KID && !kid_same(&st))
		bad |= 16;
	if (NSMNT_DIR_CWD && (stat(".", &d) || d.st_dev != st.st_dev || d.st_ino != st.st_ino))
		bad |= 32;
	if (NSMNT_DIR_BIND && (fstat(DFD + 1, &d) || d.st_dev != st.st_dev || d.st_ino != st.st_ino ||
			       fd_mnt_id(DFD + 1) == fd_mnt_id(DFD) || !mnt_listed(fd_mnt_id(DFD + 1))))
		bad |= 64;
	return bad;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_gd", "tmpfs", 0, "size=1m");
	must_mount("nsmnt", "/nsmnt_gd/0", "tmpfs", 0, "size=1m");
	if (mkdir("/nsmnt_gd/0/d", 0751) || chmod("/nsmnt_gd/0/d", 0751) ||
	    chown("/nsmnt_gd/0/d", 1234, 2345))
		fail("mkdir /nsmnt_gd/0/d");
	if (NSMNT_DIR_HELD)
		open_at(DFD + 1, "/nsmnt_gd/0/d", O_RDONLY | O_DIRECTORY, "open /nsmnt_gd/0/d");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	if (rmdir("/nsmnt_gd/0/d"))
		fail("rmdir /nsmnt_gd/0/d");
	test_daemon();
	test_waitsig();
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: fd 7 not a removed directory with its mode and owner, 2: not on its own mount "
			  "of the tmpfs, 4: not named PATH (deleted), 8: a directory made in it, 16: its "
			  "child's fd 8 another inode, 32: its cwd another inode, 64: its fd 8 not that "
			  "inode on its other mount");
	struct stat st;
	if (NSMNT_DIR_HELD && (fstat(DFD + 1, &st) || st.st_nlink || (st.st_mode & 07777) != 0751))
		fail("the test's fd 8 is not the removed directory");
	return test_pass();
}
