/* Mappings of an unlinked file (no fd left open): two MAP_SHARED mappings of the same 3 pages (one written
 * before the dump), and a MAP_PRIVATE one with a copied-on-write page. After restore: contents kept, the two
 * shared mappings still map one file (a write through one is seen through the other), the private one did
 * not take the shared writes, /proc/self/maps still names "PATH (deleted)", and the path is free. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NAME "unlink_mmap.file"

/* 1 if the maps line of the VMA starting at m ends with want. */
static int maps_names(const void *m, const char *want)
{
	char *buf, start[32], *l;
	int ok = 0;
	if (read_file("/proc/self/maps", &buf) < 0)
		return 0;
	snprintf(start, sizeof(start), "%lx-", (unsigned long)m);
	for (l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		if (!strncmp(l, start, strlen(start)))
			ok = strlen(l) >= strlen(want) && !strcmp(l + strlen(l) - strlen(want), want);
	free(buf);
	return ok;
}
#define PG 4096
#define LEN (3 * PG)

int main(int argc, char **argv)
{
	static char data[LEN];
	char cwd[4000], want[4200];
	int fd;

	test_init(argc, argv);
	datagen(data, LEN, 51);
	if (!getcwd(cwd, sizeof(cwd)))
		fail("getcwd");
	fd = open(NAME, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, data, LEN) != LEN)
		fail("create");
	char *a = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *b = mmap(NULL, LEN, PROT_READ, MAP_SHARED, fd, 0);
	char *p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, PG);
	if (a == MAP_FAILED || b == MAP_FAILED || p == MAP_FAILED)
		fail("mmap");
	close(fd);
	if (unlink(NAME))
		fail("unlink");
	memcpy(p + PG, "private page", 12); /* COW: the file's page 2 stays as it was */
	memcpy(a + 2 * PG, "shared write", 12);
	memcpy(data + 2 * PG, "shared write", 12);
	snprintf(want, sizeof(want), "%s/%s (deleted)", cwd, NAME);
	test_daemon();
	test_waitsig();

	if (memcmp(a, data, LEN) || memcmp(b, data, LEN))
		fail("shared mappings differ from the data");
	if (memcmp(p, data + PG, PG) || memcmp(p + PG, "private page", 12) ||
	    memcmp(p + PG + 12, data + 2 * PG + 12, PG - 12))
		fail("private mapping differs");
	a[100] = 'X';
	if (b[100] != 'X')
		fail("the two shared mappings are not one file any more");
	for (char *m = a; m; m = m == a ? b : m == b ? p : NULL)
		if (!maps_names(m, want))
			fail("vma %p does not name %s", (void *)m, want);
	if (vma_has_flag(a, "sh") != 1 || vma_has_flag(p, "sh") != 0)
		fail("shared/private flags");
	if (access(NAME, F_OK) == 0)
		fail("the file is linked again");
	pass();
	return 0;
}
