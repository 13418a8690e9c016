/* --external file[MNT_ID:INODE] at dump, --inherit-fd fd[N]:file[MNT_ID:INODE] at restore (as CRIU's inhfd
 * fifo test): the read end of a FIFO whose writer is a keeper outside the tree is not saved but given back by
 * the restore: fds 10, 11 (FD_CLOEXEC) and a child's fd 10 are still that open of the FIFO, holding exactly
 * the data the keeper wrote before the dump (a reopen by path would hold it twice: the keeper keeps the FIFO
 * open). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zdtmtst.h"

static int mnt_id(int fd)
{
	char path[64], line[128];
	int id = -1;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "mnt_id: %d", &id) == 1)
			break;
	if (f)
		fclose(f);
	return id;
}

int main(int argc, char **argv)
{
	char key[64], buf[16] = "";
	struct stat st0;
	int n = 0;
	test_init(argc, argv);
	if (mkfifo("inhfd.fifo", 0600)) {
		fail("mkfifo");
		return 1;
	}
	int r = open("inhfd.fifo", O_RDONLY | O_NONBLOCK), w = open("inhfd.fifo", O_WRONLY);
	if (r < 0 || w < 0 || write(w, "hello", 5) != 5 || fstat(r, &st0) || mnt_id(r) < 0) {
		fail("open the FIFO");
		return 1;
	}
	snprintf(key, sizeof(key), "file[%x:%lx]", (unsigned)mnt_id(r), (unsigned long)st0.st_ino);
	if (inhfd_keeper(r, w, key, key, NULL)) {
		fail("start the keeper");
		return 1;
	}
	close(w);
	pid_t child = inhfd_hold(r, &st0);
	if (child < 0) {
		fail("hold the FIFO");
		return 1;
	}
	test_daemon();
	test_waitsig();
	if (inhfd_check(child, &st0))
		return 1;
	if (ioctl(INHFD_FD, FIONREAD, &n) || n != 5 || read(INHFD_FD, buf, 5) != 5 ||
	    memcmp(buf, "hello", 5)) {
		fail("the data in the FIFO: %d bytes, '%.5s' (want 'hello' once)", n, buf);
		return 1;
	}
	inhfd_stop();
	pass();
	return 0;
}
