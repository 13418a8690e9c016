/* The nsmnt_ghostfile_bind* and nsmnt_ghostcwd_bind tests: a tmpfs at TOP with directories in it, one of
 * them bound at TOP/b, and a deleted file (or a removed directory) held through both mounts. gbind_mounts
 * makes the mounts; GBIND_TEST(fields of struct gbind) is a test's main: the file made and held as they
 * say, removed, and after restore its two fds checked (gbind_check). Define TOP, then include this. */
#ifndef ZDTM_NSMNT_GHOSTBIND_H
#define ZDTM_NSMNT_GHOSTBIND_H
#include "nsmnt.h"

struct gbind {
	const char *dirs[2]; /* made below TOP (with the directories above them), in order; NULL: none */
	const char *src;     /* below TOP, bound at TOP/b */
	const char *file;    /* below TOP: "ghost" written in it, held as fd p, unlinked */
	const char *link;    /* below TOP: another link of file, unlinked after it, or NULL */
	int p, b;	     /* the fds through the tmpfs (file) and through the bind (bname) */
	const char *bname;   /* below TOP */
	off_t off;	     /* fd b's offset (lseek), 0: none (its data is read at 0) */
	const char *rmdir;   /* below TOP: removed after them (file's directory), or NULL */
};

/* below TOP: TOP "/" rel */
static inline const char *gbind_path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", TOP, rel);
	return buf;
}

/* test_init, the tmpfs at TOP, g->dirs made (mkdir -p) and TOP/b, TOP/src bound at TOP/b */
static inline void gbind_mounts(int argc, char **argv, const struct gbind *g)
{
	char p[PATH_MAX];
	test_init(argc, argv);
	must_mount("nsmnt", TOP, "tmpfs", 0, "size=1m");
	for (int i = 0; i < 2 && g->dirs[i]; i++) {
		gbind_path(p, sizeof(p), g->dirs[i]);
		for (char *c = strchr(p + strlen(TOP) + 1, '/'); c; c = strchr(c + 1, '/')) {
			*c = '\0';
			mkdirs(p);
			*c = '/';
		}
		mkdirs(p);
	}
	mkdirs(TOP "/b");
	must_mount(gbind_path(p, sizeof(p), g->src), TOP "/b", NULL, MS_BIND, NULL);
}

static inline void gbind_open(int fd, const char *rel)
{
	char p[PATH_MAX], what[PATH_MAX + 8];
	snprintf(what, sizeof(what), "open %s", gbind_path(p, sizeof(p), rel));
	open_at(fd, p, O_RDWR, what);
}

/* rel (below TOP) removed (rmdir: a directory), else fail */
static inline void gbind_remove(const char *rel, int dir)
{
	char p[PATH_MAX];
	if (rel && (dir ? rmdir(gbind_path(p, sizeof(p), rel)) : unlink(gbind_path(p, sizeof(p), rel))))
		fail("%s %s", dir ? "rmdir" : "unlink", p);
}

/* rel (below TOP) is not there (ENOENT); NULL: yes */
static inline int gbind_gone(const char *rel)
{
	char p[PATH_MAX];
	return !rel || (access(gbind_path(p, sizeof(p), rel), F_OK) && errno == ENOENT);
}

/* gbind_mounts, file written (and linked), held as fds p and b (b at off), removed (its link, rmdir); ready
 */
static inline void gbind_hold(int argc, char **argv, const struct gbind *g)
{
	char p[PATH_MAX], l[PATH_MAX];
	gbind_mounts(argc, argv, g);
	write_file(gbind_path(p, sizeof(p), g->file), "ghost");
	if (g->link && link(p, gbind_path(l, sizeof(l), g->link)))
		fail("link %s %s", p, l);
	gbind_open(g->p, g->file);
	gbind_open(g->b, g->bname);
	if (g->off && lseek(g->b, g->off, SEEK_SET) != g->off)
		fail("lseek fd %d", g->b);
	gbind_remove(g->file, 0);
	gbind_remove(g->link, 0);
	gbind_remove(g->rmdir, 1);
	test_daemon();
	test_waitsig();
}

/* fd (a file below TOP at rel) is named "TOP/rel (deleted)" */
static inline int gbind_named(int fd, const char *rel)
{
	char p[PATH_MAX], want[PATH_MAX + 16];
	snprintf(want, sizeof(want), "%s (deleted)", gbind_path(p, sizeof(p), rel));
	return fd_named(fd, want);
}

/* After restore: fds p and b one deleted file with its data (and b's offset), what p writes read through b,
 * nothing removed back, p on the tmpfs's mount and b on the bind's, each named "PATH (deleted)" by its own
 * path. */
static inline void gbind_check(const struct gbind *g)
{
	struct stat a, b;
	char buf[8] = "";
	int fp = g->p, fb = g->b;
	CHECK(!fstat(fp, &a) && a.st_nlink == 0 && S_ISREG(a.st_mode), "fd %d is not a deleted file", fp);
	CHECK(!fstat(fb, &b) && b.st_dev == a.st_dev && b.st_ino == a.st_ino, "fd %d is another inode", fb);
	if (!g->off) {
		CHECK(pread(fb, buf, 5, 0) == 5 && !memcmp(buf, "ghost", 5), "fd %d lost the file's data",
		      fb);
	} else {
		CHECK(lseek(fb, 0, SEEK_CUR) == g->off, "fd %d is at offset %lld, not %lld", fb,
		      (long long)lseek(fb, 0, SEEK_CUR), (long long)g->off);
		CHECK(read(fb, buf, 2) == 2 && !memcmp(buf, "ghost" + g->off, 2),
		      "fd %d lost the file's data or its offset", fb);
	}
	CHECK(pwrite(fp, "seen", 4, 0) == 4 && pread(fb, buf, 4, 0) == 4 && !memcmp(buf, "seen", 4),
	      "what fd %d writes is not read through fd %d", fp, fb);
	if (g->rmdir)
		CHECK(gbind_gone(g->rmdir), "the removed directory is back");
	else
		CHECK(gbind_gone(g->file) && gbind_gone(g->link), "a deleted name is back");
	CHECK(fd_mnt_id(fp) == path_mnt_id(TOP) && mnt_listed(fd_mnt_id(fp)),
	      "fd %d is on mount %d, not the tmpfs's %d", fp, fd_mnt_id(fp), path_mnt_id(TOP));
	CHECK(fd_mnt_id(fb) == path_mnt_id(TOP "/b") && path_mnt_id(TOP "/b") != path_mnt_id(TOP),
	      "fd %d is on mount %d, not the bind's %d", fb, fd_mnt_id(fb), path_mnt_id(TOP "/b"));
	CHECK(gbind_named(fp, g->file), "fd %d is not named %s/%s (deleted)", fp, TOP, g->file);
	CHECK(gbind_named(fb, g->bname), "fd %d is not named %s/%s (deleted)", fb, TOP, g->bname);
}

/* A test's main: the struct gbind of these fields held, then checked */
#define GBIND_TEST(...)                                                                                      \
	static const struct gbind gbind_test = {__VA_ARGS__};                                                \
	int main(int argc, char **argv)                                                                      \
	{                                                                                                    \
		gbind_hold(argc, argv, &gbind_test);                                                         \
		gbind_check(&gbind_test);                                                                    \
		return test_pass();                                                                          \
	}
#endif
