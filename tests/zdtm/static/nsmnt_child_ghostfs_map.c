/* nsmnt_child_ghostfs with the deleted file mapped too: shared read-write and private read-only, at two
 * pages of a 2-page file. After restore both mappings map the file the child made again on its own tmpfs
 * from crshim's ghost (reg_file_entry.ghost_copy; restore-files.c opens the child's fd again for them):
 * the inode of its fd (dev and ino in /proc/self/maps), on its tmpfs (st_dev), named "PATH (deleted)",
 * the shared one "rw-s" with a write through it seen through the fd and the other way round, the private
 * one with the data of the file. Before, the dump refused it ("is mapped too"); before that, the mappings
 * were made from crshim's ghost on the root's filesystem (another inode). */
#include <sys/mman.h>
#include <sys/sysmacros.h>

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

/* The line of /proc/self/maps of the mapping at a: its dev and ino are st's, it is named "PATH (deleted)"
 * and its flags are perms ("rw-s") */
static int maps_is(const void *a, const struct stat *st, const char *perms)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char l[512], p[8], name[256];
	unsigned long lo, hi;
	unsigned ma, mi;
	unsigned long long ino;
	int ok = 0;
	while (f && !ok && fgets(l, sizeof(l), f))
		ok = sscanf(l, "%lx-%lx %7s %*s %x:%x %llu %255[^\n]", &lo, &hi, p, &ma, &mi, &ino, name) ==
			 7 &&
		     lo == (unsigned long)a && !strcmp(p, perms) && makedev(ma, mi) == st->st_dev &&
		     ino == st->st_ino && !strcmp(name, "/nsmnt_gm/m/f (deleted)");
	if (f)
		fclose(f);
	return ok;
}

static int check(void)
{
	char buf[8] = "";
	struct stat st, d;
	int bad = 0;
	if (fstat(GFD, &st) || stat("/nsmnt_gm/m", &d) || st.st_dev != d.st_dev || st.st_nlink)
		bad |= 1;
	if (!maps_is(gmap, &st, "rw-s") || !maps_is(gpriv, &st, "r--p"))
		bad |= 2;
	if (memcmp(gmap, "ghost", 5) || memcmp(gpriv, "second", 6))
		bad |= 4;
	gmap[0] = 'G';
	if (pread(GFD, buf, 5, 0) != 5 || strcmp(buf, "Ghost"))
		bad |= 8;
	if (pwrite(GFD, "h", 1, 1) != 1 || memcmp(gmap, "Ghost", 5))
		bad |= 16;
	return bad;
}

int main(int argc, char **argv)
{
	nsmnt_ghostfs(
	    argc, argv, "/nsmnt_gm", setup, check,
	    "1: its fd not an unlinked file on its tmpfs, 2: a mapping not of that inode, its name or "
	    "flags, 4: a mapping without the file's data, 8: a write through the shared mapping not "
	    "seen through the fd, 16: a write through the fd not seen through the mapping");
	return test_pass();
}
