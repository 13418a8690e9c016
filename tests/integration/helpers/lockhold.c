/* lockhold FILE PROG ARGS...: open FILE (made if missing), take a whole-file flock and a POSIX write lock on
 * its first 10 bytes, then exec PROG with the fd kept open (both locks stay with the process). For the
 * --file-locks test. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: lockhold FILE PROG ARGS...\n");
		return 2;
	}
	int fd = open(argv[1], O_RDWR | O_CREAT, 0644);
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10};
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) || fcntl(fd, F_SETLK, &fl)) {
		perror(argv[1]);
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 1;
}
