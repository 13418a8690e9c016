/* Moving fds out of the way (fd.h). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "base/fd.h"

int fd_copy_above(int fd, int lo, bool close_old)
{
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, lo);
	if (close_old) {
		int saved = errno;
		close(fd);
		errno = saved;
	}
	return nfd;
}

int rst_fd_above(int fd, int lo)
{
	return fd_copy_above(fd, lo, true);
}
