/* nsmnt_child_ghostfs with the deleted file mapped shared by a child of the child too (forked once its
 * namespace stands; it opened the file, mapped it and closed its fd): after restore its mapping is of the
 * inode of the child's fd 7 (dev and ino in /proc/KID/maps), named "PATH (deleted)", on the child's tmpfs,
 * and a write through the child's fd is read through the kid's mapping (/proc/KID/mem). Before, the kid made
 * its own copy of crshim's ghost for its mapping (vma_entry.ghost_mnt): another inode. */
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "nsmnt.h"

#define GFD 7

static pid_t kid;
static char *kmap; /* the kid's mapping (the same address in the child: forked) */

static int setup(void)
{
	int p[2];
	if (ghostfs_own("/nsmnt_gk"))
		return 1;
	ghostfs_file("/nsmnt_gk/m/f", GFD, O_RDWR);
	if (pipe(p) || (kid = fork()) < 0)
		return 1;
	if (!kid) {
		int fd = open("/nsmnt_gk/m/f", O_RDWR);
		kmap = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (kmap == MAP_FAILED || close(fd) || close(GFD) ||
		    write(p[1], &kmap, sizeof(kmap)) != sizeof(kmap))
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &kmap, sizeof(kmap)) != sizeof(kmap) || close(p[0]))
		return 1;
	return unlink("/nsmnt_gk/m/f");
}

/* the kid's mapping at kmap: dev and ino, named "/nsmnt_gk/m/f (deleted)"; -1 if none */
static int kid_map(dev_t *dev, unsigned long long *ino)
{
	char p[64], l[512], name[256];
	unsigned long lo;
	unsigned ma, mi;
	int r = -1;
	snprintf(p, sizeof(p), "/proc/%d/maps", (int)kid);
	FILE *f = fopen(p, "r");
	while (f && r && fgets(l, sizeof(l), f))
		if (sscanf(l, "%lx-%*x %*s %*s %x:%x %llu %255[^\n]", &lo, &ma, &mi, ino, name) == 5 &&
		    lo == (unsigned long)kmap && !strcmp(name, "/nsmnt_gk/m/f (deleted)"))
			*dev = makedev(ma, mi), r = 0;
	if (f)
		fclose(f);
	return r;
}

static int check(void)
{
	struct stat st, d;
	dev_t dev;
	unsigned long long ino;
	char p[64], buf[8] = "";
	int bad = 0;
	if (fstat(GFD, &st) || stat("/nsmnt_gk/m", &d) || st.st_dev != d.st_dev || kid_map(&dev, &ino))
		bad |= 1;
	else if (dev != st.st_dev || ino != st.st_ino)
		bad |= 2;
	snprintf(p, sizeof(p), "/proc/%d/mem", (int)kid);
	int mem = open(p, O_RDONLY);
	if (pwrite(GFD, "G", 1, 0) != 1 || mem < 0 || pread(mem, buf, 5, (off_t)(unsigned long)kmap) != 5 ||
	    strcmp(buf, "Ghost"))
		bad |= 4;
	if (mem >= 0)
		close(mem);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	return bad;
}

int main(int argc, char **argv)
{
	nsmnt_ghostfs(argc, argv, "/nsmnt_gk", setup, check,
		      "1: the child's fd or its kid's mapping gone (or not on its tmpfs, not named PATH "
		      "(deleted)), 2: the mapping another inode, 4: a write through the fd not seen there");
	return test_pass();
}
