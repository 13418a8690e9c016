/* The nsmnt_child_ghost*_pbind tests: a tmpfs at TOP in the test's mount namespace with a directory p and
 * in it NAME, a file (PB_FILE: "ghost" in it) or a directory; the test's child, in a mount namespace of its
 * own, binds p at TOP/b and holds NAME through the tmpfs (fd 7) and through its bind (fd 8, its cwd); then
 * the test removes it. After restore the child checks it, each hold on its own mount. Define TOP and NAME
 * ("f", "d"), then include this. */
#ifndef ZDTM_NSMNT_CHILD_PBIND_H
#define ZDTM_NSMNT_CHILD_PBIND_H
#include "nsmnt.h"

#define PB_PATH TOP "/p/" NAME
#define PB_BIND TOP "/b/" NAME

enum {
	PB_FILE = 1,	/* NAME is a file (else a directory) */
	PB_FD8 = 2,	/* the child holds it through its bind as fd 8 */
	PB_CWD = 4,	/* the child's cwd is in it, through its bind */
	PB_TEST_CWD = 8 /* the test's cwd is in it (before it is removed) */
};

/* In the child: TOP/p bound at TOP/b, fd 7 (and 8) opened as how says, its cwd; 0 if done. */
static inline int pbind_hold(int how)
{
	int fl = how & PB_FILE ? O_RDWR : O_RDONLY | O_DIRECTORY;
	mkdirs(TOP "/b");
	if (mount(TOP "/p", TOP "/b", NULL, MS_BIND, NULL))
		return 1;
	open_at(7, PB_PATH, fl, "open " PB_PATH " in the child");
	if (how & PB_FD8)
		open_at(8, PB_BIND, fl, "open " PB_BIND " in the child");
	return how & PB_CWD && chdir(PB_BIND);
}

/* In the child after restore: fd 7 (*st) is a removed file of type (S_IFREG, S_IFDIR), else bit. */
static inline int pbind_removed(struct stat *st, mode_t type, int bit)
{
	return fstat(7, st) || st->st_nlink != 0 || (st->st_mode & S_IFMT) != type ? bit : 0;
}

/* fd (-1: the cwd) is the inode of st (else bit). */
static inline int pbind_same(int fd, const struct stat *st, int bit)
{
	struct stat o;
	return !(fd < 0 ? stat(".", &o) : fstat(fd, &o)) && o.st_dev == st->st_dev && o.st_ino == st->st_ino
		   ? 0
		   : bit;
}

/* Mount id of7 (fd 7's) is the child's mount of the tmpfs (else bit), on8 (fd 8's, its cwd's) its bind
 * at TOP/b, another mount (else bit * 2); both in its mountinfo. */
static inline int pbind_mounts(int of7, int on8, int bit)
{
	int b = path_mnt_id(TOP "/b");
	return (of7 == path_mnt_id(TOP) && mnt_listed(of7) ? 0 : bit) |
	       (on8 == b && b != path_mnt_id(TOP) && mnt_listed(on8) ? 0 : bit * 2);
}

/* fds 7 and 8 named "PB_PATH (deleted)", "PB_BIND (deleted)" (else bit). */
static inline int pbind_named(int bit)
{
	return fd_named(7, PB_PATH " (deleted)") && fd_named(8, PB_BIND " (deleted)") ? 0 : bit;
}

static int pbind_how;

static inline int pbind_child_setup(void)
{
	return pbind_hold(pbind_how);
}

/* The test: the tmpfs at TOP with p and NAME in it (make(): NULL for a file with "ghost" in it or a
 * directory, as how says), the child (nsmnt_child: pbind_hold(how), check), NAME removed; ready. After
 * SIGTERM NAME must still be gone, then after(ch) (NULL: nothing), then the child's check (SIGUSR1; why: its
 * exit codes). */
static inline int pbind_test(int argc, char **argv, int how, void (*make)(void), int (*check)(void),
			     void (*after)(pid_t), const char *why)
{
	test_init(argc, argv);
	must_mount("nsmnt", TOP, "tmpfs", 0, "size=1m");
	mkdirs(TOP "/p");
	if (make)
		make();
	else if (how & PB_FILE)
		write_file(PB_PATH, "ghost");
	else
		mkdirs(PB_PATH);
	usr1_block();
	pbind_how = how;
	pid_t ch = nsmnt_child(pbind_child_setup, check);
	if ((how & PB_TEST_CWD && chdir(PB_PATH)) || (how & PB_FILE ? unlink(PB_PATH) : rmdir(PB_PATH)))
		fail("remove " PB_PATH);
	test_daemon();
	test_waitsig();

	CHECK(access(PB_PATH, F_OK) && errno == ENOENT, PB_PATH " is back");
	if (after)
		after(ch);
	kill(ch, SIGUSR1);
	child_exit_ok(ch, why);
	return test_pass();
}
#endif
