/* A deleted file held by a child on a tmpfs it mounted in its own mount namespace (nsmnt_child_ghostfs's
 * shape: the process makes it again from crshim's ghost on its own tmpfs, rst_ghost_make_copy), opened
 * O_RDWR | O_APPEND. After restore its fd's flags (fdinfo "flags:") are those it had before: the reopen of
 * the copy added O_NOFOLLOW to them (0102002 became 0502002), which the fd never had.
 * nsmnt_child_ghostfs_nofollow: opened O_RDWR | O_APPEND | O_NOFOLLOW, which stays. */
#include "nsmnt.h"

#ifndef GHOSTFS_NOFOLLOW
#define GHOSTFS_TOP "/nsmnt_gff"
#define OFLAGS (O_RDWR | O_APPEND)
#else
#define GHOSTFS_TOP "/nsmnt_gfn"
#define OFLAGS (O_RDWR | O_APPEND | O_NOFOLLOW)
#endif
#define GFD 7

static long before = -1;

static int setup(void)
{
	if (ghostfs_own(GHOSTFS_TOP))
		return 1;
	ghostfs_file(GHOSTFS_TOP "/m/f", GFD, OFLAGS);
	before = fdinfo_field(GFD, "flags:", 8, -1);
	return before < 0 || (before & O_NOFOLLOW) != (OFLAGS & O_NOFOLLOW) || unlink(GHOSTFS_TOP "/m/f");
}

static int check(void)
{
	struct stat st;
	char buf[8] = "";
	if (fstat(GFD, &st))
		return 8;
	int bad = ghostfs_copy(&st, GHOSTFS_TOP "/m", "/proc/self/fd/7", GHOSTFS_TOP "/m/f");
	long after = fdinfo_field(GFD, "flags:", 8, -1);
	if (after != before) {
		fprintf(stderr, "fd %d flags 0%lo, before 0%lo\n", GFD, after, before);
		bad |= 8;
	}
	if (pread(GFD, buf, 5, 0) != 5 || memcmp(buf, "ghost", 5))
		bad |= 16;
	return bad;
}

#define GHOSTFS_BITS                                                                                         \
	"1: not unlinked, 2: not on its tmpfs (st_dev), 4: not named PATH (deleted), 8: its "                \
	"fdinfo flags changed (O_NOFOLLOW added or lost), 16: not its data"
#include "nsmnt_ghostfs_main.h"
