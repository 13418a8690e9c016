/* nsmnt_child_ghostfs with the deleted file opened twice, by two open() calls of two processes: the child
 * (fd 7) and its child (fd 8, forked once the child's mount namespace stands: it inherits it), on a tmpfs
 * only that namespace mounts. After restore both fds are one unlinked inode on the child's tmpfs (st_dev),
 * with its data, two open file descriptions (offsets of their own), a write through one read through the
 * other (the child checks its child's fd through /proc). Before, each process made its own copy of crshim's
 * ghost on its mount (reg_file_entry.ghost_copy): two inodes, whose writes no longer met. */
#include <sys/wait.h>

#include "nsmnt.h"

#define GFD 7
#define KFD 8

static pid_t kid;

static int setup(void)
{
	if (ghostfs_own("/nsmnt_g2"))
		return 1;
	ghostfs_file("/nsmnt_g2/m/d/f", GFD, O_RDWR);
	if (lseek(GFD, 5, SEEK_SET) != 5 ||
	    (kid = nsmnt_kid_open("/nsmnt_g2/m/d/f", KFD, O_RDWR, 2, GFD)) < 0)
		return 1;
	return unlink("/nsmnt_g2/m/d/f");
}

static int check(void)
{
	struct stat a, b, d;
	char p[64], buf[16] = "";
	int bad = 0;
	snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)kid, KFD);
	int k = open(p, O_RDWR);
	if (k < 0 || fstat(GFD, &a) || fstat(k, &b))
		return 1;
	if (a.st_dev != b.st_dev || a.st_ino != b.st_ino || a.st_nlink || b.st_nlink)
		bad |= 2;
	if (stat("/nsmnt_g2/m/d", &d) || d.st_dev != a.st_dev)
		bad |= 4;
	if (pread(k, buf, 5, 0) != 5 || strcmp(buf, "ghost"))
		bad |= 8;
	if (pwrite(GFD, "G", 1, 0) != 1 || pread(k, buf, 1, 0) != 1 || buf[0] != 'G')
		bad |= 16;
	snprintf(p, sizeof(p), "/proc/%d/fdinfo/%d", (int)kid, KFD);
	if (lseek(GFD, 0, SEEK_CUR) != 5 || file_field(p, "pos:", 10, -1) != 2)
		bad |= 32;
	close(k);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	return bad;
}

int main(int argc, char **argv)
{
	nsmnt_ghostfs(argc, argv, "/nsmnt_g2", setup, check,
		      "1: its child's fd gone, 2: two inodes (or linked), 4: not on its tmpfs, 8: not its "
		      "data, 16: a write through one not read through the other, 32: not two offsets");
	return test_pass();
}
