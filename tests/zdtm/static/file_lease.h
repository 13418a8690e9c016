/* Shared by file_lease.c and file_lease_breaking.c. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

/* The lease-break signal (SIGIO) seen: lease_catch_breaks() before, lease_breaks_on_open() after. */
static volatile sig_atomic_t lease_broke;
static void lease_on_break(int sig __attribute__((unused)))
{
	lease_broke = 1;
}
static inline void lease_catch_breaks(void)
{
	signal(SIGIO, lease_on_break);
}

/* An open of path (flags) by another process is held off by the lease and the lease-break signal comes
 * (within 1 s): NULL, else what did not happen. */
static inline const char *lease_breaks_on_open(const char *path, int flags)
{
	lease_broke = 0;
	if (!lease_open_held_off(path, flags))
		return "an open of the leased file was not held off by the lease";
	for (int i = 0; i < 100 && !lease_broke; i++)
		usleep(10000);
	return lease_broke ? NULL : "no lease-break signal";
}
