/* Unit test of the uid=/gid= options of crshim's own mount table (ns/mnt-dump.c ns_mnt_own_table): a tmpfs
 * mounted in a user namespace made here whose map makes its ids longer in crshim's view than the host's
 * (100000 for host uid/gid 1000, or the caller's own ids when it is not root): tmpfs shows the host's ids in
 * mountinfo, the table has the namespace's, the other options as they are. */
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
 * with uid=100000,gid=100000, and its options in the table. */
static void child(const char *dir, int ready, int go)
{
	char c = 0;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) || write(ready, &c, 1) != 1 || read(go, &c, 1) != 1 ||
	    c != 1)
		_exit(2);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("t", dir, "tmpfs", 0, "size=64k,uid=100000,gid=100000,mode=711")) {
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
			r = strstr(m[i]->sb_opts, "uid=100000") && strstr(m[i]->sb_opts, "gid=100000") &&
				    strstr(m[i]->sb_opts, "size=64k") && strstr(m[i]->sb_opts, "mode=711")
				? 0
				: 6;
		}
	ns_mnt_own_free(m, n, keep);
	fflush(stdout);
	_exit(r);
}

static void t_longer(void)
{
	unsigned uid = geteuid() ? (unsigned)geteuid() : 1000, gid = geteuid() ? (unsigned)getegid() : 1000;
	char dir[] = "/tmp/crshim-mnt-opts.XXXXXX", map[64], c = 1;
	int ready[2], go[2];
	if (!mkdtemp(dir) || pipe(ready) || pipe(go)) {
		ok(0, "a work dir and pipes: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		close(ready[0]), close(go[1]);
		child(dir, ready[1], go[0]);
	}
	close(ready[1]), close(go[0]);
	int r = p < 0 || read(ready[0], &c, 1) != 1;
	snprintf(map, sizeof(map), "100000 %u 1\n", uid);
	r = r || write_file(p, "uid_map", map);
	snprintf(map, sizeof(map), "100000 %u 1\n", gid);
	r = r || write_file(p, "setgroups", "deny") || write_file(p, "gid_map", map);
	c = r ? 0 : 1;
	if (write(go[1], &c, 1) != 1)
		r = 1;
	ok(!r, "a user namespace mapping 100000 to the host's uid %u and gid %u", uid, gid);
	int st = 0;
	if (p > 0)
		waitpid(p, &st, 0);
	ok(WIFEXITED(st) && !WEXITSTATUS(st),
	   "the tmpfs mounted with uid=100000,gid=100000 there has them in the table (exit %d: 0 ok, 6 "
	   "wrong)",
	   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	rmdir(dir);
}

int main(void)
{
	t_longer();
	return done_testing();
}
