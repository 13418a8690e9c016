/* An unlinked file whose directory was removed too (sub/dir/file, then rmdir of both): after restore the
 * fd still holds the data, nlink 0, the same "(deleted)" link as before, and the directories are gone
 * again (restore made them for the moment of the open only). */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { F = 36 };

int main(int argc, char **argv)
{
	char data[3000], buf[3000], link0[4096], link1[4096];
	struct stat st;
	ssize_t n;
	test_init(argc, argv);
	datagen(data, sizeof(data), 71);
	int fd = -1;
	if (mkdir("sub", 0755) || mkdir("sub/dir", 0755) ||
	    (fd = open("sub/dir/file", O_RDWR | O_CREAT, 0600)) < 0 || dup2(fd, F) != F ||
	    write(F, data, sizeof(data)) != sizeof(data))
		fail("setup");
	close(fd);
	if (unlink("sub/dir/file") || rmdir("sub/dir") || rmdir("sub"))
		fail("remove");
	n = readlink("/proc/self/fd/36", link0, sizeof(link0) - 1);
	link0[n > 0 ? n : 0] = '\0';
	test_daemon();
	test_waitsig();

	n = readlink("/proc/self/fd/36", link1, sizeof(link1) - 1);
	link1[n > 0 ? n : 0] = '\0';
	if (strcmp(link0, link1))
		fail("fd %d -> %s, was %s", F, link1, link0);
	if (fstat(F, &st) || st.st_nlink != 0 || st.st_size != sizeof(data))
		fail("nlink %lu size %lld", (unsigned long)st.st_nlink, (long long)st.st_size);
	if (pread(F, buf, sizeof(buf), 0) != sizeof(buf) || memcmp(buf, data, sizeof(data)))
		fail("data");
	if (access("sub", F_OK) == 0)
		fail("the removed directory is back");
	pass();
	return 0;
}
