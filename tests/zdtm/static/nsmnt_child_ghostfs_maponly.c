/* nsmnt_child_ghostfs_map with the fd closed: only two mappings hold the deleted file, shared read-write and
 * shared read-only. After restore both map one file on the child's tmpfs (dev in /proc/self/maps), one
 * inode, named "PATH (deleted)", with its data, a write through the first seen through the second: the child
 * makes it again from crshim's ghost for them (vma_entry.ghost_mnt; restore-files.c map_copy). Before, the
 * mappings were of crshim's ghost on the root's filesystem there (another st_dev). */
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include "nsmnt.h"

static char *gmap, *gro;

static int setup(void)
{
	if (ghostfs_own("/nsmnt_go"))
		return 1;
	ghostfs_file("/nsmnt_go/m/f", 7, O_RDWR);
	gmap = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, 7, 0);
	gro = mmap(NULL, 4096, PROT_READ, MAP_SHARED, 7, 0);
	return gmap == MAP_FAILED || gro == MAP_FAILED || close(7) || unlink("/nsmnt_go/m/f");
}

/* dev and ino of the mapping at a, named "/nsmnt_go/m/f (deleted)"; -1 if none */
static int map_of(const void *a, dev_t *dev, unsigned long long *ino)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char l[512], name[256];
	unsigned long lo;
	unsigned ma, mi;
	int r = -1;
	while (f && r && fgets(l, sizeof(l), f))
		if (sscanf(l, "%lx-%*x %*s %*s %x:%x %llu %255[^\n]", &lo, &ma, &mi, ino, name) == 5 &&
		    lo == (unsigned long)a && !strcmp(name, "/nsmnt_go/m/f (deleted)"))
			*dev = makedev(ma, mi), r = 0;
	if (f)
		fclose(f);
	return r;
}

static int check(void)
{
	struct stat d;
	dev_t a, b;
	unsigned long long ia, ib;
	int bad = 0;
	if (stat("/nsmnt_go/m", &d) || map_of(gmap, &a, &ia) || map_of(gro, &b, &ib))
		return 1;
	if (a != d.st_dev || b != d.st_dev)
		bad |= 2;
	if (ia != ib)
		bad |= 4;
	if (memcmp(gro, "ghost", 5))
		bad |= 8;
	gmap[0] = 'G';
	if (gro[0] != 'G')
		bad |= 16;
	return bad;
}

int main(int argc, char **argv)
{
	nsmnt_ghostfs(
	    argc, argv, "/nsmnt_go", setup, check,
	    "1: a mapping gone or not named PATH (deleted), 2: not on its tmpfs, 4: two inodes, 8: not "
	    "its data, 16: a write through one not seen through the other");
	return test_pass();
}
