/* Shared by file_lease.c and file_lease_breaking.c. */
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Another process opens path (flags: O_RDONLY, O_WRONLY) without waiting: 1 if a lease holds it off
 * (EWOULDBLOCK), which also starts breaking the lease (the holder gets the lease-break signal). */
static int lease_open_held_off(const char *path, int flags)
{
	pid_t p = fork();
	if (p == 0) {
		int fd = open(path, flags | O_NONBLOCK);
		_exit(fd < 0 && errno == EWOULDBLOCK ? 0 : 1);
	}
	int st;
	return p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}
