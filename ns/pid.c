/* PID namespaces: a tree whose root is PID 1 of its own PID namespace is dumped with the inner ids of every
 * process and restored into a new PID namespace (clone3 with CLONE_NEWPID and set_tid = {inner, outer}).
 * Its mount namespace is not restored: the init gets a new one (a copy of crshim's) with / made private and
 * a fresh proc on /proc, which is what `unshare --pid --fork --mount-proc` gives it. */
#define LOG_PREFIX "ns-pid: "
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "base/cleanup.h"
#include "pid.h"

/* The last number of a "Key:\tA\tB\tC" line, and how many there are. */
static int last_of(const char *line, pid_t *v)
{
	int n = 0;
	char *end;
	for (const char *p = line; *p;) {
		long x = strtol(p, &end, 10);
		if (end == p)
			break;
		*v = (pid_t)x;
		n++;
		p = end;
	}
	return n;
}

int ns_pid_ids(pid_t pid, struct ns_pid_ids *out, struct cr_err *e)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	__cleanup_fclose FILE *f = fopen(path, "re");
	memset(out, 0, sizeof(*out));
	if (!f)
		return cr_fail_sys(e, "open %s", path);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "NSpid:", 6))
			out->levels = last_of(line + 6, &out->pid);
		else if (!strncmp(line, "NSpgid:", 7))
			last_of(line + 7, &out->pgid);
		else if (!strncmp(line, "NSsid:", 6))
			last_of(line + 6, &out->sid);
	}
	if (!out->levels)
		return cr_fail_errno(e, EINVAL, "%s: no NSpid line", path);
	return 0;
}

int ns_pid_chain(pid_t tid, pid_t *ids, int max, struct cr_err *e)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	__cleanup_fclose FILE *f = fopen(path, "re");
	if (!f)
		return cr_fail_sys(e, "open %s", path);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "NSpid:", 6))
			continue;
		int n = 0;
		char *end;
		for (const char *p = line + 6;; p = end) {
			long x = strtol(p, &end, 10);
			if (end == p)
				break;
			if (n == max)
				return cr_fail_errno(e, E2BIG, "%s: more than %d PID namespace levels", path,
						     max);
			ids[n++] = (pid_t)x;
		}
		if (n)
			return n;
	}
	return cr_fail_errno(e, EINVAL, "%s: no NSpid line", path);
}

bool ns_same(pid_t a, const char *ka, pid_t b, const char *kb)
{
	char pa[64], pb[64];
	struct stat sa, sb;
	snprintf(pa, sizeof(pa), "/proc/%d/ns/%s", a, ka);
	snprintf(pb, sizeof(pb), "/proc/%d/ns/%s", b, kb);
	if (stat(pa, &sa) || stat(pb, &sb))
		return true; /* a zombie has no namespaces to compare */
	return sa.st_ino == sb.st_ino && sa.st_dev == sb.st_dev;
}

bool ns_other(pid_t pid, const char *kind)
{
	char a[64], b[64];
	struct stat sa, sb;
	snprintf(a, sizeof(a), "/proc/%d/ns/%s", pid, kind);
	snprintf(b, sizeof(b), "/proc/self/ns/%s", kind);
	if (stat(a, &sa) || stat(b, &sb))
		return false;
	return sa.st_ino != sb.st_ino || sa.st_dev != sb.st_dev;
}

int ns_pid_mount_proc(char *msg, size_t len)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		snprintf(msg, len, "make / private in the new mount namespace: %s", strerror(errno));
		return -1;
	}
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		snprintf(msg, len, "mount proc on /proc in the new PID namespace: %s", strerror(errno));
		return -1;
	}
	return 0;
}
