/* Socket options only CAP_NET_ADMIN over the host sets (SO_SNDBUFFORCE, SO_RCVBUFFORCE, SO_DEBUG on,
 * SO_PREFER_BUSY_POLL on): set by the test itself where it may (root outside any user namespace), else by the
 * runner's host agent (.desc host-agent: yes), which runs this test's binary as a tool (sk_force_tool: the
 * option set on a copy of the socket, pidfd_getfd), found by the socket's fd number and inode. */
#ifndef ZDTM_SK_PRIV_FORCE_H
#define ZDTM_SK_PRIV_FORCE_H
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "ns_world.h"

/* main(): argv "--force PID FD LEVEL NAME VALUE": run as the host's tool; returns its exit status, -1 if
 * argv is not that. */
static inline int sk_force_tool(int argc, char **argv)
{
	if (argc != 7 || strcmp(argv[1], "--force"))
		return -1;
	int pfd = (int)syscall(SYS_pidfd_open, atoi(argv[2]), 0);
	int fd = pfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pfd, atoi(argv[3]), 0);
	int v = atoi(argv[6]);
	if (fd < 0 || setsockopt(fd, atoi(argv[4]), atoi(argv[5]), &v, sizeof(v))) {
		fprintf(stderr, "--force: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

/* setsockopt(fd, level, name, v): here, or by the host agent when the kernel refuses us (a user namespace,
 * or not root). 0, or -1 with the reason logged. */
static inline int sk_force(int fd, int level, int name, int v)
{
	struct stat st;
	char *out = NULL;
	if (!setsockopt(fd, level, name, &v, sizeof(v)))
		return 0;
	if ((errno != EPERM && errno != EACCES) || fstat(fd, &st))
		return -1;
	int rc =
	    nsw_hsh(&out,
		    "for p in /proc/[0-9]*; do [ \"$(readlink $p/fd/%d 2>/dev/null)\" = 'socket:[%lu]' ] && "
		    "exec $p/exe --force ${p#/proc/} %d %d %d %d; done; echo no process; exit 1",
		    fd, (unsigned long)st.st_ino, fd, level, name, v);
	if (rc)
		test_msg("host agent: option %d/%d: %s\n", level, name, out ? out : "");
	free(out);
	return rc ? -1 : 0;
}
#endif
