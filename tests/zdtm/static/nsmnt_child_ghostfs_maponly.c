/* nsmnt_child_ghostfs_map with the fd closed: only two mappings hold the deleted file, shared read-write and
 * shared read-only. After restore both map one file on the child's tmpfs (dev in /proc/self/maps), one
 * inode, named "PATH (deleted)", with its data, a write through the first seen through the second: the child
 * makes it again from crshim's ghost for them (vma_entry.ghost_mnt; restore-files.c map_copy). Before, the
 * mappings were of crshim's ghost on the root's filesystem there (another st_dev). */
#include <sys/mman.h>

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

static int check(void)
{
	struct stat a, b;
	if (ghostfs_map(gmap, "/nsmnt_go/m/f", &a, NULL) || ghostfs_map(gro, "/nsmnt_go/m/f", &b, NULL))
		return 8;
	int bad = ghostfs_copy(&a, "/nsmnt_go/m", NULL, "/nsmnt_go/m/f") |
		  ghostfs_copy(&b, "/nsmnt_go/m", NULL, "/nsmnt_go/m/f");
	if (a.st_ino != b.st_ino)
		bad |= 16;
	if (memcmp(gro, "ghost", 5))
		bad |= 32;
	gmap[0] = 'G';
	if (gro[0] != 'G')
		bad |= 64;
	return bad;
}

#define GHOSTFS_TOP "/nsmnt_go"
#define GHOSTFS_BITS                                                                                         \
	"2: not on its tmpfs, 8: a mapping gone or not named PATH (deleted), 16: two inodes, "               \
	"32: not its data, 64: a write through one not seen through the other"
#include "nsmnt_ghostfs_main.h"
