/* Deleted files on a tmpfs of the tree's own mount tree that was then made read-only (a bind remount), and
 * on a read-only nosuid bind of it (CRIU's ghost_on_rofs): after restore each fd reads its data, names its
 * old path "(deleted)" on the same device, and both mounts are still read-only. Before, the restore failed
 * to make the file again: "Read-only file system". */
#include <sys/statvfs.h>
#include "nsmnt.h"

#define AFD 7 /* /nsmnt_ghro/a, on the read-only tmpfs */
#define BFD 8 /* /nsmnt_ghro_b/b, on the read-only bind of it */

static void check(int fd, const char *path, const char *want, dev_t dev)
{
	char buf[32] = "", link[PATH_MAX], l[64];
	struct stat st;
	snprintf(l, sizeof(l), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(l, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	CHECK(pread(fd, buf, sizeof(buf) - 1, 0) == (ssize_t)strlen(want) && !strcmp(buf, want),
	      "fd %d reads '%s', want '%s'", fd, buf, want);
	CHECK(!fstat(fd, &st) && st.st_dev == dev && !st.st_nlink,
	      "fd %d: not a removed file of the tmpfs (dev %#lx, want %#lx; %lu links)", fd, (long)st.st_dev,
	      (long)dev, (unsigned long)st.st_nlink);
	char exp[PATH_MAX];
	snprintf(exp, sizeof(exp), "%s (deleted)", path);
	CHECK(!strcmp(link, exp), "fd %d links to '%s', want '%s'", fd, link, exp);
	CHECK((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY, "fd %d is not read-only", fd);
}

int main(int argc, char **argv)
{
	struct statvfs a, b;
	struct stat mp;
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_ghro", "tmpfs", 0, NULL);
	must_mount("/nsmnt_ghro", "/nsmnt_ghro_b", NULL, MS_BIND, NULL);
	write_file("/nsmnt_ghro/a", "ghost-a");
	write_file("/nsmnt_ghro_b/b", "ghost-bb");
	open_at(AFD, "/nsmnt_ghro/a", O_RDONLY, "open /nsmnt_ghro/a");
	open_at(BFD, "/nsmnt_ghro_b/b", O_RDONLY, "open /nsmnt_ghro_b/b");
	CHECK(!unlink("/nsmnt_ghro/a") && !unlink("/nsmnt_ghro/b"), "unlink");
	CHECK(!mount(NULL, "/nsmnt_ghro", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) &&
		  !mount(NULL, "/nsmnt_ghro_b", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID, NULL),
	      "remount read-only");
	test_daemon();
	test_waitsig();

	CHECK(!stat("/nsmnt_ghro", &mp), "stat /nsmnt_ghro");
	check(AFD, "/nsmnt_ghro/a", "ghost-a", mp.st_dev);
	check(BFD, "/nsmnt_ghro_b/b", "ghost-bb", mp.st_dev);
	CHECK(!statvfs("/nsmnt_ghro", &a) && !statvfs("/nsmnt_ghro_b", &b) && (a.f_flag & ST_RDONLY) &&
		  (b.f_flag & ST_RDONLY) && (b.f_flag & ST_NOSUID) && !(a.f_flag & ST_NOSUID),
	      "the mounts are not read-only (nosuid) as before");
	CHECK(access("/nsmnt_ghro/a", F_OK) && access("/nsmnt_ghro/b", F_OK), "a name came back");
	pass();
	return 0;
}
