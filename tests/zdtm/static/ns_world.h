/* Helpers of the namespace tests (netns_*, uts_*, timens_*, ipc_*, cgroup_*): the state is built with the
 * system's own tools (ip, nft), run by the test inside its namespaces, and compared as text before and after.
 */
#ifndef NS_WORLD_H
#define NS_WORLD_H

#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

/* Run a shell command (stdout and stderr to /dev/null); its exit status. */
static inline int __attribute__((format(printf, 1, 2))) nsw_sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(NULL);
	int st = system(cmd);
	return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

/* The output of a shell command (malloc'd, "" on failure), with lines matching drop (an ERE, or NULL)
 * removed. */
static inline char *nsw_out(const char *cmd, const char *drop)
{
	char full[1200];
	if (drop)
		snprintf(full, sizeof(full), "(%s) 2>&1 | grep -Ev '%s'", cmd, drop);
	else
		snprintf(full, sizeof(full), "(%s) 2>&1", cmd);
	fflush(NULL);
	FILE *f = popen(full, "r");
	size_t cap = 4096, n = 0;
	char *buf = calloc(1, cap);
	if (!f || !buf)
		return buf ? buf : strdup("");
	size_t r;
	while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (n + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb, cap *= 2;
		}
	}
	buf[n] = '\0';
	pclose(f);
	return buf;
}

/* Must hold: a failed setup step ends the test. */
#define nsw_must(...)                                                                                        \
	do {                                                                                                 \
		if (nsw_sh(__VA_ARGS__))                                                                     \
			fail("setup: %s", #__VA_ARGS__);                                                     \
	} while (0)

/* Compare what cmd prints now with before (a snapshot taken at setup). */
static inline void nsw_same(const char *what, const char *before, const char *cmd, const char *drop)
{
	char *after = nsw_out(cmd, drop);
	if (strcmp(before, after))
		fail("%s changed:\n--- before\n%s--- after\n%s", what, before, after);
	free(after);
}

static inline unsigned long nsw_ino(const char *kind)
{
	char p[64];
	struct stat st;
	snprintf(p, sizeof(p), "/proc/self/ns/%s", kind);
	return stat(p, &st) ? 0 : (unsigned long)st.st_ino;
}

/* After a restore: our namespace of this kind is still one of our own, not crshim's / the host's. */
static inline void nsw_own(const char *kind, unsigned long host)
{
	/* modes ns and uns (we are PID 1 of a PID namespace, our parent outside it): the namespace we left
	 * had no other process, it is gone and its inode number free for the restore's new namespaces */
	if (!getppid())
		return;
	if (nsw_ino(kind) == host)
		fail("%s namespace: the host's (inode %lu) after restore", kind, host);
}

/* The namespace file of the host's namespace of this kind: our parent's now (the starter during setup, the
 * runner's reaper or crshim after a restore). A static buffer: call it again after a restore. */
static inline const char *nsw_host(const char *kind)
{
	static char p[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/%s", getppid(), kind);
	return p;
}

/* A namespace of its own of kind (unshare(flag); the test is skipped when refused); the inode of the host's
 * one, for nsw_own after the restore. */
static inline unsigned long nsw_new(int flag, const char *kind)
{
	unsigned long host = nsw_ino(kind);
	if (unshare(flag))
		test_skip("unshare of the %s namespace: %m", kind);
	return host;
}

/* What a namespace test compares before and after the checkpoint: what cmd prints (lines matching drop, an
 * ERE or NULL, removed). nsw_look: each view's before. nsw_cr: test_daemon, test_waitsig (the checkpoint),
 * then our namespace of kind is still our own (not host) and each view prints what it did. */
struct nsw_view {
	const char *what, *cmd, *drop;
	char *before;
};

static inline void nsw_look(struct nsw_view *v, int n)
{
	for (int i = 0; i < n; i++)
		v[i].before = nsw_out(v[i].cmd, v[i].drop);
}

static inline void nsw_cr(const struct nsw_view *v, int n, const char *kind, unsigned long host)
{
	test_daemon();
	test_waitsig();
	nsw_own(kind, host);
	for (int i = 0; i < n; i++)
		nsw_same(v[i].what, v[i].before, v[i].cmd, v[i].drop);
}

#endif
