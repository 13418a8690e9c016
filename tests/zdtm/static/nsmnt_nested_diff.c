/* A child in a mount namespace of its own that differs from its parent's in every way ns/mnt-nested.c
 * makes again: a tmpfs of the parent's taken off (/nsmnt_nd_b) after a directory of it was bound on
 * /nsmnt_nd_e (made at restore from the parent's mount, cloned before the unshare), a directory of another
 * of the parent's tmpfs bound elsewhere (/nsmnt_nd_a/sub on /nsmnt_nd_c, a file of it open at fd 7), that
 * tmpfs made read-only, a proc mounted of its own (/nsmnt_nd_p); its own child (a grandchild) stays in its
 * namespace. After restore the child's namespace is that, the grandchild shares it, and the parent's is
 * unchanged (b still there, a read-write, no c, no p). Before, the dump refused the child. */
#include <sys/statvfs.h>
#include <sys/wait.h>
#include "nsmnt.h"

#define CFD 7

static int is_ro(const char *p)
{
	struct statvfs v;
	return !statvfs(p, &v) && (v.f_flag & ST_RDONLY);
}

static int child_check(void)
{
	struct mnt_line m;
	struct stat a, b;
	int bad = 0;
	if (!mnt_find("/nsmnt_nd_b", &m))
		bad |= 1;
	if (mnt_find("/nsmnt_nd_c", &m) || strcmp(m.type, "tmpfs") || strcmp(m.root, "/sub") ||
	    !file_is("/nsmnt_nd_c/f", "sub-file"))
		bad |= 2;
	if (fstat(CFD, &a) || stat("/nsmnt_nd_c/f", &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		bad |= 4;
	if (!is_ro("/nsmnt_nd_a") || is_ro("/nsmnt_nd_c"))
		bad |= 8;
	if (mnt_find("/nsmnt_nd_p", &m) || strcmp(m.type, "proc"))
		bad |= 16;
	if (mnt_find("/nsmnt_nd_e", &m) || strcmp(m.root, "/sub") || !file_is("/nsmnt_nd_e/g", "b-sub"))
		bad |= 128;
	return bad;
}

static pid_t gc;

static int setup(void)
{
	if (mount("/nsmnt_nd_b/sub", "/nsmnt_nd_e", NULL, MS_BIND, NULL) || umount2("/nsmnt_nd_b", 0) ||
	    mount("/nsmnt_nd_a/sub", "/nsmnt_nd_c", NULL, MS_BIND, NULL) ||
	    mount(NULL, "/nsmnt_nd_a", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) ||
	    mount("proc", "/nsmnt_nd_p", "proc", MS_NOSUID, NULL))
		return -1;
	open_at(CFD, "/nsmnt_nd_c/f", O_RDONLY, "open /nsmnt_nd_c/f");
	gc = fork();
	if (gc == 0) { /* the grandchild: in its parent's namespace */
		usr1_wait();
		_exit(child_check() ? 1 : 0);
	}
	return gc < 0 ? -1 : 0;
}

static int check(void)
{
	int bad = child_check(), st;
	if (mntns_ino(gc) != mntns_ino(getpid()))
		bad |= 32;
	kill(gc, SIGUSR1);
	if (waitpid(gc, &st, 0) != gc || !WIFEXITED(st) || WEXITSTATUS(st))
		bad |= 64;
	return bad;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_nd_a", "tmpfs", 0, "size=1m");
	must_mount("nsmnt", "/nsmnt_nd_b", "tmpfs", 0, "size=1m");
	mkdirs("/nsmnt_nd_a/sub");
	mkdirs("/nsmnt_nd_c");
	mkdirs("/nsmnt_nd_p");
	mkdirs("/nsmnt_nd_e");
	mkdirs("/nsmnt_nd_b/sub");
	write_file("/nsmnt_nd_b/sub/g", "b-sub");
	write_file("/nsmnt_nd_a/sub/f", "sub-file");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	test_daemon();
	test_waitsig();

	struct mnt_line m;
	CHECK(mntns_ino(ch) && mntns_ino(ch) != mntns_ino(getpid()),
	      "the child is in the parent's mount namespace");
	CHECK(!mnt_find("/nsmnt_nd_b", &m) && !strcmp(m.type, "tmpfs"), "the parent's /nsmnt_nd_b is gone");
	CHECK(!is_ro("/nsmnt_nd_a"), "the parent's /nsmnt_nd_a is read-only");
	CHECK(mnt_find("/nsmnt_nd_c", &m) && mnt_find("/nsmnt_nd_p", &m),
	      "the child's mounts are in the parent's namespace");
	kill(ch, SIGUSR1);
	child_exit_ok(ch,
		      "1: b still there, 2: c not the bind of a/sub, 4: fd 7 not its file, 8: a not "
		      "read-only (or c), 16: no proc on p, 32: the grandchild in another namespace, 64: the "
		      "grandchild's checks, 128: e not the bind of b/sub");
	return test_pass();
}
