/* A deleted file held twice by a child in a mount namespace of its own (CRIU's mntns_link_ghost shape): fd 7
 * through a bind its parent's namespace has (opened before the child's unshare), fd 8 through a bind only the
 * child's has, of another directory of the same tmpfs (both names of one inode, then unlinked). After
 * restore the two fds are one unlinked inode with its data again, each on its own mount (fdinfo mnt_id: fd 7
 * on a mount the child's mountinfo does not list, fd 8 on one it does). Before, both were opened through
 * crshim's one ghost, on the mount crshim made it on: one mount id for both. nsmnt_child_linkmnt includes
 * it with NSMNT_KEPT_LINK 1: a third link stays in the parent's namespace; nsmnt_child_ghostname with
 * NSMNT_GONE_DIR 1: the child's name of it is in a directory d removed too; nsmnt_child_ghostkid with
 * NSMNT_KID_FD 1: fd 8 is held by a child of the child (forked once its namespace stands), which the child
 * checks through /proc. */
#include <sys/wait.h>

#include "nsmnt.h"

#ifndef NSMNT_KEPT_LINK
#define NSMNT_KEPT_LINK 0
#endif
#ifndef NSMNT_GONE_DIR
#define NSMNT_GONE_DIR 0
#endif
#ifndef NSMNT_KID_FD
#define NSMNT_KID_FD 0
#endif
#define OWN_SUB (NSMNT_GONE_DIR ? "/d" : "") /* the directory below b of the child's name */

static pid_t kid; /* NSMNT_KID_FD: the child's child that holds fd 8 */

#define UPFD 7
#define OWNFD 8

/* fd's link (/proc/self/fd) is want */
static int file_is_link(int fd, const char *want)
{
	char p[64], l[256] = "";
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	return readlink(p, l, sizeof(l) - 1) > 0 && !strcmp(l, want);
}

static int setup(void)
{
	if (umount("/nsmnt_gm/a") || mkdir("/nsmnt_gm/b", 0755) ||
	    mount("/nsmnt_gm/0/b", "/nsmnt_gm/b", NULL, MS_BIND, NULL) || umount("/nsmnt_gm/0"))
		return 1;
	char own[64];
	snprintf(own, sizeof(own), "/nsmnt_gm/b%s/f", OWN_SUB);
	if (!NSMNT_KID_FD) {
		open_at(OWNFD, own, O_RDWR, "open the child's link in the child");
		return 0;
	}
	int p[2];
	char c;
	if (pipe(p) || (kid = fork()) < 0)
		return 1;
	if (!kid) {
		close(UPFD);
		open_at(OWNFD, own, O_RDWR, "open the child's link in its child");
		if (write(p[1], "k", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	return read(p[0], &c, 1) != 1 || close(p[0]);
}

static int check(void)
{
	if (NSMNT_KID_FD) { /* its child's fd 8, opened again here (the same mount and name) */
		char p[64];
		snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)kid, OWNFD);
		int fd = open(p, O_RDWR);
		if (fd < 0 || dup2(fd, OWNFD) != OWNFD)
			return 32;
		close(fd);
		kill(kid, SIGKILL);
		waitpid(kid, NULL, 0);
	}
	int up = fd_mnt_id(UPFD), own = fd_mnt_id(OWNFD), bad = 0;
	struct stat a, b;
	char buf[16] = "";
	if (up < 0 || own < 0 || up == own)
		bad |= 1;
	if (mnt_listed(up) || !mnt_listed(own))
		bad |= 2;
	if (fstat(UPFD, &a) || fstat(OWNFD, &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev ||
	    a.st_nlink != NSMNT_KEPT_LINK)
		bad |= 4;
	/* (its directory removed too: after a restore it is named in b, where it is linked again for the
	 * child's open; mode checkpoint: as it was) */
	if (!file_is_link(UPFD, "/nsmnt_gm/a/f (deleted)") ||
	    (!file_is_link(OWNFD, "/nsmnt_gm/b/f (deleted)") &&
	     !(NSMNT_GONE_DIR && file_is_link(OWNFD, "/nsmnt_gm/b/d/f (deleted)"))))
		bad |= 16;
	if (pwrite(OWNFD, "child", 5, 0) != 5 || pread(UPFD, buf, sizeof(buf) - 1, 0) != 5 ||
	    strcmp(buf, "child"))
		bad |= 8;
	return bad;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_gm", "tmpfs", 0, "size=1m");
	mkdirs("/nsmnt_gm/0");
	must_mount("nsmnt", "/nsmnt_gm/0", "tmpfs", 0, "size=1m");
	mkdirs("/nsmnt_gm/0/a");
	mkdirs("/nsmnt_gm/0/b");
	if (NSMNT_GONE_DIR)
		mkdirs("/nsmnt_gm/0/b/d");
	mkdirs("/nsmnt_gm/a");
	must_mount("/nsmnt_gm/0/a", "/nsmnt_gm/a", NULL, MS_BIND, NULL);
	write_file("/nsmnt_gm/0/a/f", "ghost");
	char own[64];
	snprintf(own, sizeof(own), "/nsmnt_gm/0/b%s/f", OWN_SUB);
	if (link("/nsmnt_gm/0/a/f", own))
		fail("link %s", own);
	if (NSMNT_KEPT_LINK && link("/nsmnt_gm/0/a/f", "/nsmnt_gm/0/f"))
		fail("link /nsmnt_gm/0/f");
	open_at(UPFD, "/nsmnt_gm/a/f", O_RDWR, "open /nsmnt_gm/a/f");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	close(UPFD);
	if (unlink("/nsmnt_gm/0/a/f") || unlink(own) || (NSMNT_GONE_DIR && rmdir("/nsmnt_gm/0/b/d")))
		fail("unlink");
	test_daemon();
	test_waitsig();
	kill(ch, SIGUSR1);
	child_exit_ok(ch,
		      "1: both fds on one mount, 2: fd 7 on a mount of its own namespace or fd 8 not, "
		      "4: not one inode with its links, 8: a write through one not read through the other, "
		      "16: not named by its deleted name, 32: its child's fd 8 not there");
	CHECK(!NSMNT_KEPT_LINK || file_is("/nsmnt_gm/0/f", "child"), "the link kept is not the child's file");
	return test_pass();
}
