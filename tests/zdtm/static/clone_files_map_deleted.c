/* A child made with clone(CLONE_FILES) (its parent's fd table, its own address space) maps a file shared and
 * privately, closes the file and the test removes it: only the child's mappings hold it. After restore the
 * table is still one (kcmp), the child's mappings still show the file "(deleted)", hold what was written
 * through them, the shared one is still shared with the file (a write through it is seen through a second
 * shared mapping of it), the private one still differs from it, and the file is not back in the test dir. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#define LEN (4 * 4096)

static char *shr, *shr2, *prv;

static int map_deleted(char *p)
{
	char link[64], buf[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/self/map_files/%lx-%lx", (unsigned long)p,
		 (unsigned long)p + LEN);
	ssize_t n = readlink(link, buf, sizeof(buf) - 1);
	if (n < 10)
		return 0;
	buf[n] = '\0';
	return strstr(buf, "gone_map.data") && !strcmp(buf + n - 10, " (deleted)");
}

static int child_check(void)
{
	int bad = 0;
	for (int i = 0; i < LEN; i++)
		if (shr[i] != (char)(i % 251) || prv[i] != (char)(i % 241)) {
			bad |= 1;
			break;
		}
	if (!map_deleted(shr) || !map_deleted(shr2) || !map_deleted(prv))
		bad |= 2;
	shr[100] = 'S';
	if (shr2[100] != 'S' || shr2[LEN - 1] != (char)((LEN - 1) % 251) || prv[100] != (char)(100 % 241))
		bad |= 4;
	return bad;
}

static int child_setup(void)
{
	int fd = open("gone_map.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, LEN))
		return -1;
	shr = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	shr2 = mmap(NULL, LEN, PROT_READ, MAP_SHARED, fd, 0);
	prv = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (shr == MAP_FAILED || shr2 == MAP_FAILED || prv == MAP_FAILED)
		return -1;
	for (int i = 0; i < LEN; i++) {
		shr[i] = (char)(i % 251);
		prv[i] = (char)(i % 241);
	}
	return close(fd);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	pid_t ch = files_sharer_start(child_setup, child_check);
	if (ch < 0 || unlink("gone_map.data")) {
		fail("unlink");
		return 1;
	}
	test_daemon();
	test_waitsig();

	if (access("gone_map.data", F_OK) == 0 || errno != ENOENT)
		fail("the removed file is back in the test dir");
	files_sharer_end(ch, "1: contents, 2: not mapped \"(deleted)\", 4: shared mappings not one file");
	return test_pass();
}
