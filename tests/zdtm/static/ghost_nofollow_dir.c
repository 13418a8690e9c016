/* A removed directory held by an O_RDONLY | O_DIRECTORY | O_NOFOLLOW fd (fd 40; issue 14, ghost_nofollow's
 * directory case): after restore the fd's flags (fdinfo "flags:") are those it had before, O_NOFOLLOW among
 * them, and it is still a removed directory (st_nlink 0, named "PATH (deleted)"). */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

#define DIR "ghost_nofollow_dir.d"
enum { FD = 40 };

int main(int argc, char **argv)
{
	char path[PATH_MAX], want[PATH_MAX + 16], name[PATH_MAX] = "";
	struct stat st;

	test_init(argc, argv);
	if (mkdir(DIR, 0700) || !realpath(DIR, path))
		fail("mkdir " DIR);
	open_at(FD, DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, "open " DIR);
	long before = fdinfo_field(FD, "flags:", 8, -1);
	if (before < 0 || !(before & O_NOFOLLOW) || rmdir(DIR))
		fail("fd %d: flags 0%lo without O_NOFOLLOW, or rmdir " DIR, FD, before);
	test_daemon();
	test_waitsig();

	long after = fdinfo_field(FD, "flags:", 8, -1);
	if (after != before)
		fail("fd %d: flags 0%lo, before 0%lo", FD, after, before);
	if (fstat(FD, &st) || !S_ISDIR(st.st_mode) || st.st_nlink != 0)
		fail("fd %d is not a removed directory", FD);
	snprintf(want, sizeof(want), "%s (deleted)", path);
	if (readlink("/proc/self/fd/40", name, sizeof(name) - 1) < 0 || strcmp(name, want))
		fail("fd %d is named %s, not %s", FD, name, want);
	if (!access(DIR, F_OK))
		fail(DIR " is back");
	return test_pass();
}
