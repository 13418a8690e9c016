/* Moving fds out of the way (fd.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "base/err.h"
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

int rst_fd_at(int fd, int target, char *msg, size_t len)
{
	if (fd == target)
		return 0;
	if (dup2(fd, target) < 0) {
		rst_errmsg(msg, len, "fd %d: dup2", target);
		int saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	close(fd);
	return 0;
}

int rst_fd_made_at(int fd, int target, const char *what, char *msg, size_t len)
{
	if (fd >= 0)
		return rst_fd_at(fd, target, msg, len);
	char why[512];
	snprintf(why, sizeof(why), "%s", msg);
	snprintf(msg, len, "fd %d%s%s%s: %s", target, what ? " (" : "", what ? what : "", what ? ")" : "",
		 why);
	return -1;
}

int rst_fd_above(int fd, int lo)
{
	return fd_copy_above(fd, lo, true);
}
