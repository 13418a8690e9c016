/* A file the task holds, in a directory that is over-mounted afterwards (a tmpfs on it): its path now names
 * no file, so the restore could not open or map it again (restore-load.c check_mapped_files, file-reg.c
 * check_path). The dump succeeded before crshim ran the restore's checks over its images; now it must refuse
 * with one line, and the task keep running with its fd or mapping (.desc dump-expect). The mount is in the
 * test's mount namespace (the host's; in modes ns and cuns its own, whose live mount tree the dump's check
 * looks at): the test removes it when it ends. */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

#define OVM_DATA "over-mounted file\n"

/* map: the file is mapped shared (its fd closed); else held as fd 5. */
static int overmount_run(int argc, char **argv, int map)
{
	char buf[sizeof(OVM_DATA)] = "";
	const char *p = MAP_FAILED;
	test_init(argc, argv);
	int fd = mkdir("d", 0755) ? -1 : open("d/f", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, OVM_DATA, strlen(OVM_DATA)) != (ssize_t)strlen(OVM_DATA))
		fail("make d/f");
	if (map)
		p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (map ? p == MAP_FAILED : dup2(fd, 5) != 5)
		fail("%s d/f", map ? "mmap" : "dup2 to fd 5");
	close(fd);
	if (mount("crshim-ovm", "d", "tmpfs", 0, "size=64k"))
		fail("mount a tmpfs on d");
	test_daemon();
	test_waitsig();

	if (umount2("d", MNT_DETACH))
		fail("umount d");
	if (map)
		memcpy(buf, p, strlen(OVM_DATA));
	else if (pread(5, buf, strlen(OVM_DATA), 0) != (ssize_t)strlen(OVM_DATA))
		fail("read fd 5");
	if (strcmp(buf, OVM_DATA))
		fail("d/f holds '%s'", buf);
	pass();
	return 0;
}
