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

/* Seconds of clock c. */
static inline long long nso_now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec;
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

#endif
