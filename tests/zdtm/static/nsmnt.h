/* Helpers of the nsmnt_* tests (mount kinds; run with "ns: always": the test is PID 1 of its own namespaces
 * under a root of its own, lib/ns.c): make mounts under /nsmnt_*, read them back from /proc/self/mountinfo.
 */
#ifndef ZDTM_NSMNT_H
#define ZDTM_NSMNT_H
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

struct mnt_line {
	int id, parent;
	char root[512], mp[512], opts[256], tags[256], type[64], src[256], super[512];
};

/* The n-th (0: the top one... counted from the first) mount at mp in mountinfo order; 0 if found. */
static inline int mnt_find_nth(const char *mp, int nth, struct mnt_line *m)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char l[4096];
	int found = -1;
	if (!f)
		return -1;
	while (found && fgets(l, sizeof(l), f)) {
		char *dash = strstr(l, " - ");
		if (!dash)
			continue;
		memset(m, 0, sizeof(*m));
		*dash = 0;
		int off = 0;
		if (sscanf(l, "%d %d %*s %511s %511s %255s %n", &m->id, &m->parent, m->root, m->mp, m->opts,
			   &off) < 5)
			continue;
		snprintf(m->tags, sizeof(m->tags), "%s", l + off);
		if (sscanf(dash + 3, "%63s %255s %511s", m->type, m->src, m->super) < 2)
			continue;
		if (!strcmp(m->mp, mp) && nth-- == 0)
			found = 0;
	}
	fclose(f);
	return found;
}

static inline int mnt_find(const char *mp, struct mnt_line *m)
{
	return mnt_find_nth(mp, 0, m);
}

/* How many mounts at mp. */
static inline int mnt_count(const char *mp)
{
	struct mnt_line m;
	int n = 0;
	while (!mnt_find_nth(mp, n, &m))
		n++;
	return n;
}

/* word (e.g. "ro", "shared:") in a comma or space separated list */
static inline int has_opt(const char *list, const char *w)
{
	size_t l = strlen(w);
	for (const char *p = list; (p = strstr(p, w)); p += l)
		if ((p == list || p[-1] == ',' || p[-1] == ' ') &&
		    (w[l - 1] == ':' || p[l] == 0 || p[l] == ',' || p[l] == ' '))
			return 1;
	return 0;
}

/* peer group number after "shared:" / "master:" in the tags, 0 if none */
static inline int tag_num(const struct mnt_line *m, const char *tag)
{
	const char *p = strstr(m->tags, tag);
	return p ? atoi(p + strlen(tag)) : 0;
}

static inline void mkdirs(const char *p)
{
	if (mkdir(p, 0755) && errno != EEXIST)
		fail("mkdir %s", p);
}

static inline void write_file(const char *p, const char *s)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s) || close(fd))
		fail("write %s", p);
}

/* write_file, after mkdirs of each directory above p (mkdir -p of its dirname). */
static inline void write_file_p(const char *p, const char *s)
{
	char d[PATH_MAX];
	snprintf(d, sizeof(d), "%s", p);
	for (char *c = strchr(d + 1, '/'); c; c = strchr(c + 1, '/')) {
		*c = '\0';
		mkdirs(d);
		*c = '/';
	}
	write_file(p, s);
}

static inline int file_is(const char *p, const char *want)
{
	char b[4096];
	int fd = open(p, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, b, sizeof(b) - 1);
	if (fd >= 0)
		close(fd);
	if (n < 0)
		return 0;
	b[n] = 0;
	return !strcmp(b, want);
}

static inline void must_mount(const char *src, const char *dst, const char *type, unsigned long fl,
			      const char *o)
{
	mkdirs(dst);
	if (mount(src, dst, type, fl, o)) {
		fail("mount %s on %s", type ? type : src, dst);
		exit(1);
	}
}

/* A tmpfs at mp (must_mount) made prop (MS_PRIVATE, MS_SHARED, MS_UNBINDABLE); fail(what) if refused. */
static inline void tmpfs_prop(const char *mp, unsigned long prop, const char *what)
{
	must_mount("nsmnt", mp, "tmpfs", 0, NULL);
	if (mount(NULL, mp, NULL, prop, NULL))
		fail("%s", what);
}

#define CHECK(cond, ...)                                                                                     \
	do {                                                                                                 \
		if (!(cond))                                                                                 \
			fail(__VA_ARGS__);                                                                   \
	} while (0)

#endif
