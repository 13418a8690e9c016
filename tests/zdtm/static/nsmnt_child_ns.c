/* A child of the tree in a mount namespace of its own (unshare(CLONE_NEWNS) after the fork: a copy of the
 * root's, made private, then a tmpfs mounted at /nsmnt_cns that the root's namespace does not have), with a
 * file of that tmpfs open and its cwd in it. After restore the child is still in a namespace other than its
 * parent's, sees its tmpfs and its file there (fd and cwd on it), and the parent still does not see it
 * (CRIU's mntns_open, tempfs_subns shape): ns/mnt-nested.c makes its namespace from its parent's. Before,
 * the dump refused it. */
#include <sys/wait.h>
#include "nsmnt.h"

#define CFD 7

static int same_file(int fd, const char *path)
{
	struct stat a, b;
	return !fstat(fd, &a) && !stat(path, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static ino_t ns_ino(const char *path)
{
	struct stat st;
	return stat(path, &st) ? 0 : st.st_ino;
}

static int setup(void)
{
	if (mount("nsmnt", "/nsmnt_cns", "tmpfs", 0, "size=1m"))
		return -1;
	write_file("/nsmnt_cns/data", "child-tmpfs");
	open_at(CFD, "/nsmnt_cns/data", O_RDONLY, "open /nsmnt_cns/data");
	return chdir("/nsmnt_cns");
}

static int check(void)
{
	int bad = 0;
	struct mnt_line m;
	if (mnt_find("/nsmnt_cns", &m) || strcmp(m.type, "tmpfs"))
		bad |= 1;
	if (!same_file(CFD, "/nsmnt_cns/data") || !file_is("/nsmnt_cns/data", "child-tmpfs"))
		bad |= 2;
	struct stat c, d;
	if (stat(".", &c) || stat("/nsmnt_cns", &d) || c.st_dev != d.st_dev || c.st_ino != d.st_ino)
		bad |= 4;
	return bad;
}

int main(int argc, char **argv)
{
	char path[64];
	test_init(argc, argv);
	mkdirs("/nsmnt_cns");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	test_daemon();
	test_waitsig();

	struct mnt_line m;
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", ch);
	CHECK(ns_ino(path) && ns_ino(path) != ns_ino("/proc/self/ns/mnt"),
	      "the child is in the parent's mount namespace");
	CHECK(mnt_find("/nsmnt_cns", &m) != 0, "the child's tmpfs is mounted in the parent's namespace");
	CHECK(access("/nsmnt_cns/data", F_OK) < 0, "the child's file is in the parent's namespace");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: its tmpfs is gone, 2: fd 7 is not its file, 4: cwd not on it");
	return test_pass();
}
