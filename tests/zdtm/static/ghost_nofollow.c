/* Regular files held by O_NOFOLLOW fds (issue 14): fd 40 O_RDWR | O_NOFOLLOW of a file then unlinked (a
 * ghost), fd 41 O_RDONLY | O_NOFOLLOW of one left in place, fd 42 O_PATH | O_NOFOLLOW of one unlinked, fd 43
 * O_PATH | O_NOFOLLOW of one left in place, fd 44 O_RDWR | O_NOFOLLOW of one unlinked with its directory
 * removed too. After restore each fd's flags (fdinfo "flags:") are those it had before, O_NOFOLLOW among
 * them; the unlinked ones are still unlinked (st_nlink 0, named "PATH (deleted)", their names free) with
 * their data. Before, a ghost was opened again through crshim's /proc magic link, which refuses O_NOFOLLOW,
 * so the flag was dropped (fds 40, 42, 44); now the ghost's name is kept till every process has its fds and
 * the fd opens it again by that name. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

#define DEL "ghost_nofollow.del"
#define KEEP "ghost_nofollow.keep"
#define PDEL "ghost_nofollow.pdel"
#define PKEEP "ghost_nofollow.pkeep"
#define DIR "ghost_nofollow.dir"

static const struct nf {
	int fd, flags;
	const char *name;
	int removed; /* 1: unlinked, 2: its directory removed too */
} nfs[] = {
    {40, O_RDWR | O_NOFOLLOW, DEL, 1},	    {41, O_RDONLY | O_NOFOLLOW, KEEP, 0},
    {42, O_PATH | O_NOFOLLOW, PDEL, 1},	    {43, O_PATH | O_NOFOLLOW, PKEEP, 0},
    {44, O_RDWR | O_NOFOLLOW, DIR "/f", 2},
};
#define N (sizeof(nfs) / sizeof(nfs[0]))

static void hold(const struct nf *n, char *path)
{
	int fd = open(n->name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, "ghost", 5) != 5 || close(fd))
		fail("make %s", n->name);
	fd = open(n->name, n->flags);
	if (fd < 0 || dup2(fd, n->fd) != n->fd)
		fail("open %s", n->name);
	close(fd);
	if (!realpath(n->name, path))
		fail("realpath %s", n->name);
	if (n->removed && unlink(n->name))
		fail("unlink %s", n->name);
	if (n->removed == 2 && rmdir(DIR))
		fail("rmdir " DIR);
}

static void check(const struct nf *n, long before, const char *path)
{
	char l[64], want[PATH_MAX + 16], name[PATH_MAX] = "";
	struct stat st;
	long after = fdinfo_field(n->fd, "flags:", 8, -1);
	if (after != before)
		fail("fd %d (%s): flags 0%lo, before 0%lo", n->fd, n->name, after, before);
	if (fstat(n->fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != (n->removed ? 0u : 1u))
		fail("fd %d (%s) is not a regular file with %d links", n->fd, n->name, n->removed ? 0 : 1);
	snprintf(l, sizeof(l), "/proc/self/fd/%d", n->fd);
	snprintf(want, sizeof(want), "%s%s", path, n->removed ? " (deleted)" : "");
	if (readlink(l, name, sizeof(name) - 1) < 0 || strcmp(name, want))
		fail("fd %d is named %s, not %s", n->fd, name, want);
	if (n->removed && !access(n->name, F_OK))
		fail("%s is back", n->name);
	if (n->removed == 2 && !access(DIR, F_OK))
		fail(DIR " is back");
	/* its data, through the fd (or, O_PATH, through its /proc link) */
	char buf[8] = "";
	int rfd = (n->flags & O_PATH) ? open(l, O_RDONLY) : n->fd;
	if (rfd < 0 || pread(rfd, buf, 5, 0) != 5 || memcmp(buf, "ghost", 5))
		fail("fd %d (%s) lost its data", n->fd, n->name);
	if (rfd != n->fd && rfd >= 0)
		close(rfd);
}

int main(int argc, char **argv)
{
	static char paths[N][PATH_MAX];
	long before[N];

	test_init(argc, argv);
	if (mkdir(DIR, 0700))
		fail("mkdir " DIR);
	for (size_t i = 0; i < N; i++) {
		hold(&nfs[i], paths[i]);
		before[i] = fdinfo_field(nfs[i].fd, "flags:", 8, -1);
		if (before[i] < 0 || !(before[i] & O_NOFOLLOW))
			fail("fd %d: flags 0%lo without O_NOFOLLOW", nfs[i].fd, before[i]);
	}
	test_daemon();
	test_waitsig();

	for (size_t i = 0; i < N; i++)
		check(&nfs[i], before[i], paths[i]);
	unlink(KEEP);
	unlink(PKEEP);
	return test_pass();
}
