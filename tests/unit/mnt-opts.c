/* Unit test of the uid=/gid= options of crshim's own mount table (ns/mnt-dump.c ns_mnt_own_table): a tmpfs
 * mounted in a user namespace made here whose map makes its ids longer in crshim's view than the host's
 * (100000 for host uid/gid 1000, or the caller's own ids when it is not root): tmpfs shows the host's ids in
 * mountinfo, the table has the namespace's, the other options as they are. And two user namespaces deep (5 in
 * the second, 100000 in the first, host 1000): the table has 5 (mnt-dump.c id_hosts). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mnt-int.h"
#include "tap.h"

static int write_file(pid_t pid, const char *name, const char *s)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t w = fd < 0 ? -1 : write(fd, s, strlen(s));
	if (fd >= 0)
		close(fd);
	return w == (ssize_t)strlen(s) ? 0 : -1;
}

/* The child: in its user and mount namespaces (mapped by the parent once it says so on go), a tmpfs on dir
 * with uid=ID,gid=ID, and its options in the table. */
static void child(const char *dir, int ready, int go, unsigned id)
{
	char c = 0, o[96], u[32], g[32];
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) || write(ready, &c, 1) != 1 || read(go, &c, 1) != 1 ||
	    c != 1)
		_exit(2);
	snprintf(o, sizeof(o), "size=64k,uid=%u,gid=%u,mode=711", id, id);
	snprintf(u, sizeof(u), "uid=%u", id);
	snprintf(g, sizeof(g), "gid=%u", id);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) || mount("t", dir, "tmpfs", 0, o)) {
		printf("# mount tmpfs on %s: %s\n", dir, strerror(errno));
		_exit(3);
	}
	MntEntry **m;
	size_t n;
	void *keep;
	struct cr_err e = {0};
	if (ns_mnt_own_table(&m, &n, &keep, &e))
		_exit(4);
	int r = 5;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i]->mountpoint, dir)) {
			printf("# the table's options of the tmpfs: %s\n", m[i]->sb_opts);
			r = strstr(m[i]->sb_opts, u) && strstr(m[i]->sb_opts, g) &&
				    strstr(m[i]->sb_opts, "size=64k") && strstr(m[i]->sb_opts, "mode=711")
				? 0
				: 6;
		}
	ns_mnt_own_free(m, n, keep);
	fflush(stdout);
	_exit(r);
}

/* A child in a user namespace of its own mapped by the parent p: mapped, map (uid and gid), setgroups deny
 * first; the child waits on ready/go (child()). */
static int map_child(pid_t p, int ready, int go, const char *umap, const char *gmap)
{
	char c = 1;
	int r = p < 0 || read(ready, &c, 1) != 1 || write_file(p, "uid_map", umap) ||
		write_file(p, "setgroups", "deny") || write_file(p, "gid_map", gmap);
	c = r ? 0 : 1;
	return write(go, &c, 1) != 1 || r;
}

/* fork; the child runs fn(dir, ready, go, arg) (it _exits); -1 or its pid, *ready and *go the parent's ends
 */
static pid_t spawn(void (*fn)(const char *, int, int, unsigned), const char *dir, unsigned arg, int *ready,
		   int *go)
{
	int rp[2], gp[2];
	if (pipe(rp) || pipe(gp))
		return -1;
	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		close(rp[0]), close(gp[1]);
		fn(dir, rp[1], gp[0], arg);
	}
	close(rp[1]), close(gp[0]);
	*ready = rp[0], *go = gp[1];
	return p;
}

static int exit_of(pid_t p)
{
	int st = 0;
	if (p > 0)
		waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* fn's child (spawn) in a user namespace mapping 100000 to host uid/gid 1000 (the caller's own when not root;
 * with mid, root's 0 beside, which middle() needs to make one below it): its exit 0 (what) */
static void t_mapped(void (*fn)(const char *, int, int, unsigned), unsigned arg, bool mid, const char *what)
{
	unsigned uid = geteuid() ? (unsigned)geteuid() : 1000, gid = geteuid() ? (unsigned)getegid() : 1000;
	char dir[] = "/tmp/crshim-mnt-opts.XXXXXX", um[64], gm[64];
	int ready = -1, go = -1;
	if (!mkdtemp(dir) || chmod(dir, 0755)) {
		ok(0, "a work dir: %s", strerror(errno));
		return;
	}
	pid_t p = spawn(fn, dir, arg, &ready, &go);
	const char *root = mid && !geteuid() ? "0 0 1\n" : "";
	snprintf(um, sizeof(um), "%s100000 %u 1\n", root, uid);
	snprintf(gm, sizeof(gm), "%s100000 %u 1\n", root, gid);
	ok(!map_child(p, ready, go, um, gm),
	   "a user namespace mapping 100000 to the host's uid %u and gid %u", uid, gid);
	int r = exit_of(p);
	ok(r == 0, "%s has them in the table (exit %d: 0 ok, 6 wrong)", what, r);
	rmdir(dir);
}

/* The middle namespace of the second case: its own user and mount namespaces, mapped by the parent; then a
 * child in a user namespace below it, which it maps 5 to its 100000 (child(): a tmpfs with uid=5,gid=5
 * there). */
static void middle(const char *dir, int ready, int go, unsigned arg)
{
	char c = 0;
	(void)arg;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) || write(ready, &c, 1) != 1 || read(go, &c, 1) != 1 ||
	    c != 1)
		_exit(2);
	int r2 = -1, g2 = -1;
	pid_t p = spawn(child, dir, 5, &r2, &g2);
	if (p < 0 || map_child(p, r2, g2, "5 100000 1\n", "5 100000 1\n"))
		_exit(2);
	_exit(exit_of(p));
}

int main(void)
{
	t_mapped(child, 100000, false, "the tmpfs mounted with uid=100000,gid=100000 there");
	/* two user namespaces deep: host uid/gid 1000 (the caller's own when not root) is 100000 in the first
	 * and 5 in the second, where a tmpfs is mounted with uid=5,gid=5 (mountinfo shows 1000): the table of
	 * a process there has uid=5,gid=5, not 1000 (crshim's own map alone, 5 -> 100000, says nothing of
	 * 1000) */
	t_mapped(middle, 0, true,
		 "a tmpfs mounted with uid=5,gid=5 in a user namespace below it (5 -> 100000)");
	return done_testing();
}
