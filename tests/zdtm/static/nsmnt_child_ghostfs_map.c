/* nsmnt_child_ghostfs with the deleted file mapped too: shared read-write and private read-only, at two
 * pages of a 2-page file. After restore both mappings map the file the child made again on its own tmpfs
 * from crshim's ghost (reg_file_entry.ghost_copy; restore-files.c opens the child's fd again for them):
 * the inode of its fd (dev and ino in /proc/self/maps), on its tmpfs (st_dev), named "PATH (deleted)",
 * the shared one "rw-s" with a write through it seen through the fd and the other way round, the private
 * one with the data of the file. Before, the dump refused it ("is mapped too"); before that, the mappings
 * were made from crshim's ghost on the root's filesystem (another inode). */
#include <sys/mman.h>

#include "nsmnt.h"

#define GFD 7

static char *gmap, *gpriv;

static int setup(void)
{
	if (ghostfs_own("/nsmnt_gm"))
		return 1;
	ghostfs_file("/nsmnt_gm/m/f", GFD, O_RDWR);
	if (ftruncate(GFD, 8192) || pwrite(GFD, "second", 6, 4096) != 6)
		return 1;
	gmap = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, GFD, 0);
	gpriv = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, GFD, 4096);
	return gmap == MAP_FAILED || gpriv == MAP_FAILED || unlink("/nsmnt_gm/m/f");
}

static int check(void)
{
	char buf[8] = "", p1[8] = "", p2[8] = "";
	struct stat st, m1, m2;
	if (fstat(GFD, &st))
		return 8;
	int bad = ghostfs_copy(&st, "/nsmnt_gm/m", "/proc/self/fd/7", "/nsmnt_gm/m/f");
	if (ghostfs_map(gmap, "/nsmnt_gm/m/f", &m1, p1) || ghostfs_map(gpriv, "/nsmnt_gm/m/f", &m2, p2) ||
	    m1.st_dev != st.st_dev || m1.st_ino != st.st_ino || m2.st_dev != st.st_dev ||
	    m2.st_ino != st.st_ino || strcmp(p1, "rw-s") || strcmp(p2, "r--p"))
		bad |= 8;
	if (memcmp(gmap, "ghost", 5) || memcmp(gpriv, "second", 6))
		bad |= 16;
	gmap[0] = 'G';
	if (pread(GFD, buf, 5, 0) != 5 || strcmp(buf, "Ghost"))
		bad |= 32;
	if (pwrite(GFD, "h", 1, 1) != 1 || memcmp(gmap, "Ghost", 5))
		bad |= 64;
	return bad;
}

int main(int argc, char **argv)
{
	nsmnt_ghostfs(
	    argc, argv, "/nsmnt_gm", setup, check,
	    "1: its fd not unlinked, 2: not on its tmpfs, 4: not named PATH (deleted), 8: a mapping "
	    "not of that inode, its name or flags, 16: a mapping without the file's data, 32: a "
	    "write through the shared mapping not seen through the fd, 64: a write through the fd "
	    "not seen through the mapping");
	return test_pass();
}
