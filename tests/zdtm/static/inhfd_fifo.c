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
	return (int)fdinfo_field(fd, "mnt_id:", 10, -1);
}

int main(int argc, char **argv)
{
	char key[64];
	struct stat st0;
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
	if (inhfd_run(r, w, key, key, NULL, "FIFO") ||
	    inhfd_expect("hello", 5, "the data in the FIFO (once: a reopen would hold it twice)"))
		return 1;
	inhfd_stop();
	pass();
	return 0;
}
