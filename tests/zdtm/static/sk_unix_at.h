/* Helpers of the unix socket tests of nested mount namespaces (nsmnt_child_sock*): sockets at a path. */
#ifndef ZDTM_SK_UNIX_AT_H
#define ZDTM_SK_UNIX_AT_H
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

static inline socklen_t addr(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	snprintf(a->sun_path, sizeof(a->sun_path), "%s", path);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
}

/* A socket of type bound to (do_bind) or connected to path, -1 */
static inline int sock_at(int type, const char *path, int do_bind)
{
	struct sockaddr_un a;
	socklen_t l = addr(&a, path);
	int fd = socket(AF_UNIX, type, 0);
	if (fd < 0 || (do_bind ? bind(fd, (struct sockaddr *)&a, l) : connect(fd, (struct sockaddr *)&a, l)))
		return -1;
	return fd;
}

/* The next message of fd (not waiting) is want */
static inline int got(int fd, const char *want)
{
	char b[64];
	ssize_t n = recv(fd, b, sizeof(b), MSG_DONTWAIT);
	return n == (ssize_t)strlen(want) && !memcmp(b, want, (size_t)n);
}

#endif
