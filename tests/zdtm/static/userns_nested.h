/* userns_nested*: user namespaces nested in the test's own, their maps written from outside. */
#ifndef USERNS_NESTED_H
#define USERNS_NESTED_H

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

static inline void unest_wr(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, v, strlen(v)) != (ssize_t)strlen(v))
		fail("setup: write %s: %m", path);
	if (fd >= 0)
		close(fd);
}

/* The numbers of a uid_map or gid_map (the kernel pads its columns), or the text, is want. */
static inline int unest_same(const char *path, const char *want)
{
	char *b = NULL, w[256], *p, *q = w;
	unsigned x[3];
	int off, r;
	if (read_file(path, &b) < 0)
		return 0;
	w[0] = 0;
	for (p = b; q < w + sizeof(w) - 40 && sscanf(p, "%u %u %u%n", &x[0], &x[1], &x[2], &off) == 3;
	     p += off)
		q += sprintf(q, "%u %u %u\n", x[0], x[1], x[2]);
	r = !strcmp(w[0] ? w : b, want);
	free(b);
	return r;
}

/* A user namespace of our own, its uid and gid maps map (and setgroups, unless NULL) written from outside
 * by a child that stays in ours (a process may write no more than its own id for itself). */
static inline void unest_enter(const char *map, const char *setgroups)
{
	int p[2], st;
	char c = 0, path[64];
	if (pipe(p))
		fail("setup: pipe");
	pid_t me = getpid(), h = fork();
	if (h == 0) {
		test_forked();
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		snprintf(path, sizeof(path), "/proc/%d/setgroups", me);
		if (setgroups)
			unest_wr(path, setgroups);
		snprintf(path, sizeof(path), "/proc/%d/uid_map", me);
		unest_wr(path, map);
		snprintf(path, sizeof(path), "/proc/%d/gid_map", me);
		unest_wr(path, map);
		_exit(test_failures ? 1 : 0);
	}
	if (h < 0 || unshare(CLONE_NEWUSER)) {
		kill(h, SIGKILL);
		waitpid(h, &st, 0);
		test_skip("unshare(CLONE_NEWUSER): %m");
	}
	if (write(p[1], "u", 1) != 1 || waitpid(h, &st, 0) != h || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("setup: our maps written from outside");
	close(p[0]);
	close(p[1]);
}

#endif
