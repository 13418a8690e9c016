/* Helpers of the tests of namespaces owned by a user namespace (timens_offsets, userns_timens, ...). */
#ifndef NS_OWNED_H
#define NS_OWNED_H

#include <fcntl.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "userns_refused.h"

/* Seconds of clock c. */
static inline long long nso_now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec;
}

/* The text of file path (at most len - 1 bytes; "" if it cannot be read). */
static inline void nso_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);
	buf[n > 0 ? n : 0] = 0;
	if (fd >= 0)
		close(fd);
}

/* Our namespace of kind ("time", "cgroup", ...) is owned by our user namespace, not by an ancestor of it. */
static inline int nso_owned_by_ours(const char *kind)
{
	struct stat a, b;
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/ns/%s", kind);
	int ns = open(p, O_RDONLY | O_CLOEXEC);
	int u = ns < 0 ? -1 : ioctl(ns, NS_GET_USERNS);
	int r = u >= 0 && !fstat(u, &a) && !stat("/proc/self/ns/user", &b) && a.st_ino == b.st_ino;
	if (ns >= 0)
		close(ns);
	if (u >= 0)
		close(u);
	return r;
}
/* In the initial user namespace (its uid_map is the whole range)? */
static inline int nso_in_init_userns(void)
{
	char buf[128];
	nso_read("/proc/self/uid_map", buf, sizeof(buf));
	return strstr(buf, "4294967295") != NULL;
}

/* In a user namespace of our own: the mode's (uns, cuns), or else one made here (`0 0 1`). */
static inline void nso_own_userns(void)
{
	if (nso_in_init_userns())
		uref_enter();
}

#endif
