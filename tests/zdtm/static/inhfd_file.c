/* --inherit-fd fd[N]:PATH (the path as dumped, without its leading slash): an open file description held by a
 * keeper outside the tree too is given back by the restore, not reopened: the keeper moves its offset from 4
 * to 7 before it hands it over, so after a restore fds 10, 11 (FD_CLOEXEC) and a child's fd 10 are at 7 (at 4
 * without a restore: checkpoint mode). */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zdtmtst.h"

static void seek7(int ofd, int tfd)
{
	(void)ofd;
	lseek(tfd, 7, SEEK_SET);
}

int main(int argc, char **argv)
{
	char cwd[PATH_MAX], key[PATH_MAX + 16];
	test_init(argc, argv);
	int fd = open("inhfd.file", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, "0123456789", 10) != 10 || lseek(fd, 4, SEEK_SET) != 4 ||
	    !getcwd(cwd, sizeof(cwd))) {
		fail("make the file");
		return 1;
	}
	snprintf(key, sizeof(key), "%s/inhfd.file", cwd + 1);
	if (inhfd_run(fd, fd, key, NULL, seek7, "file"))
		return 1;
	int gets = inhfd_gets();
	off_t want = gets > 0 ? 7 : 4, pos = lseek(INHFD_FD, 0, SEEK_CUR);
	if (gets < 0 || pos != want || lseek(INHFD_FD + 1, 0, SEEK_CUR) != want) {
		fail("offset %lld, want %lld (%d restores): not the keeper's open file description",
		     (long long)pos, (long long)want, gets);
		return 1;
	}
	inhfd_stop();
	pass();
	return 0;
}
