/* Helpers of the nsmnt_* tests (mount kinds; run with "ns: always": the test is PID 1 of its own namespaces
 * under a root of its own, lib/ns.c): make mounts under /nsmnt_*, read them back from /proc/self/mountinfo.
 */
#ifndef ZDTM_NSMNT_H
#define ZDTM_NSMNT_H
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <linux/sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

struct mnt_line {
	int id, parent;
	char root[512], mp[512], opts[256], tags[256], type[64], src[256], super[512];
};

/* The n-th (0: the top one... counted from the first) mount at mp (NULL: any) in mountinfo order; 0 if
 * found. */
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
		if ((!mp || !strcmp(m->mp, mp)) && nth-- == 0)
			found = 0;
	}
	fclose(f);
	return found;
}

static inline int mnt_find_nth_any(int nth, struct mnt_line *m)
{
	return mnt_find_nth(NULL, nth, m);
}

static inline int mnt_find(const char *mp, struct mnt_line *m)
{
	return mnt_find_nth(mp, 0, m);
}

/* The mount id of fd (fdinfo mnt_id), -1 if unreadable. */
static inline int fd_mnt_id(int fd)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/fdinfo/%d", fd);
	return (int)file_field(p, "mnt_id:", 10, -1);
}

/* The mount id of path (statx), -1 if unreadable. */
static inline int path_mnt_id(const char *path)
{
	struct statx sx;
	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &sx) || !(sx.stx_mask & STATX_MNT_ID))
		return -1;
	return (int)sx.stx_mnt_id;
}

/* Whether our fd's link (/proc/self/fd/N) reads want. */
static inline int fd_named(int fd, const char *want)
{
	char p[64], link[PATH_MAX] = "";
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	return readlink(p, link, sizeof(link) - 1) > 0 && !strcmp(link, want);
}

/* Whether mount id is in our mountinfo (a mount of our own namespace). */
static inline int mnt_listed(int id)
{
	struct mnt_line m;
	for (int i = 0; !mnt_find_nth_any(i, &m); i++)
		if (m.id == id)
			return 1;
	return 0;
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

/* The inode of pid's mount namespace (/proc/PID/ns/mnt), 0 if none. */
static inline ino_t mntns_ino(pid_t pid)
{
	char p[64];
	struct stat st;
	snprintf(p, sizeof(p), "/proc/%d/ns/mnt", pid);
	return stat(p, &st) ? 0 : st.st_ino;
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

/* The shape of the whole mount tree (/proc/self/mountinfo): one line per mount, "MOUNTPOINT ROOT TYPE
 * [shared:G] [master:G|master:out] [unbindable]", sorted by mount point (a stack at one point kept in
 * its order), the peer groups renumbered by their first appearance there (a master group not in the tree:
 * "out"), so that two trees of the same mounts, peers and slaves give the same text whatever their ids. */
struct mnt_shape_line {
	int idx, shared, master, unb;
	char mp[512], root[512], type[64];
};

static inline int mnt_shape_cmp(const void *a, const void *b)
{
	const struct mnt_shape_line *x = a, *y = b;
	int c = strcmp(x->mp, y->mp);
	return c ? c : x->idx - y->idx;
}

static inline char *mnt_shape(void)
{
	struct mnt_shape_line *v = calloc(1024, sizeof(*v));
	int n = 0, ng = 0, map[1024][2];
	struct mnt_line m;
	while (v && n < 1024 && !mnt_find_nth_any(n, &m)) {
		v[n].idx = n, v[n].shared = tag_num(&m, "shared:"), v[n].master = tag_num(&m, "master:");
		v[n].unb = has_opt(m.tags, "unbindable");
		snprintf(v[n].mp, sizeof(v[n].mp), "%s", m.mp);
		snprintf(v[n].root, sizeof(v[n].root), "%s", m.root);
		snprintf(v[n].type, sizeof(v[n].type), "%s", m.type);
		n++;
	}
	if (!v)
		return NULL;
	qsort(v, (size_t)n, sizeof(*v), mnt_shape_cmp);
	for (int i = 0; i < n; i++) { /* renumber: the groups in order of first appearance */
		int k;
		for (k = 0; k < ng && map[k][0] != v[i].shared; k++)
			;
		if (v[i].shared && k == ng && ng < 1024)
			map[ng][0] = v[i].shared, map[ng][1] = ng + 1, ng++;
	}
	size_t cap = (size_t)n * 1200 + 1, l = 0;
	char *out = calloc(1, cap);
	for (int i = 0; out && i < n; i++) {
		int sh = 0, ms = v[i].master ? -1 : 0;
		for (int k = 0; k < ng; k++) {
			if (map[k][0] == v[i].shared)
				sh = map[k][1];
			if (map[k][0] == v[i].master)
				ms = map[k][1];
		}
		l += (size_t)snprintf(out + l, cap - l, "%s %s %s", v[i].mp, v[i].root, v[i].type);
		if (sh)
			l += (size_t)snprintf(out + l, cap - l, " shared:%d", sh);
		if (ms > 0)
			l += (size_t)snprintf(out + l, cap - l, " master:%d", ms);
		if (ms < 0)
			l += (size_t)snprintf(out + l, cap - l, " master:out");
		l += (size_t)snprintf(out + l, cap - l, "%s\n", v[i].unb ? " unbindable" : "");
	}
	free(v);
	return out;
}

/* fail() with both shapes unless the tree has the shape of before (mnt_shape() taken then). */
static inline void mnt_shape_check(const char *before)
{
	char *now = mnt_shape();
	if (!before || !now || strcmp(before, now))
		fail("the mount tree changed:\n--- before\n%s--- after\n%s", before ? before : "(none)",
		     now ? now : "(none)");
	free(now);
}

/* A mount namespace of our own (unshare, / made rprivate) with a tmpfs at dir and file in it holding what;
 * 0 or -1. */
static inline int nsmnt_own_tmpfs(const char *dir, const char *file, const char *what)
{
	return unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		       mount("nsmnt", dir, "tmpfs", 0, "size=1m")
		   ? -1
		   : (write_file(file, what), 0);
}

/* An fd of pid's mount namespace (/proc/PID/ns/mnt), -1 if none. */
static inline int nsmnt_ns_fd(pid_t pid)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/mnt", pid);
	return open(p, O_RDONLY);
}

/* Into pid's mount namespace (setns), cwd /; 0 or -1. */
static inline int nsmnt_enter(pid_t pid)
{
	int fd = nsmnt_ns_fd(pid);
	int r = fd < 0 || setns(fd, CLONE_NEWNS) || chdir("/") ? -1 : 0;
	if (fd >= 0)
		close(fd);
	return r;
}

/* The st_dev of path in pid's mount namespace (through /proc/PID/root), 0 if none. */
static inline dev_t nsmnt_dev_in(pid_t pid, const char *path)
{
	char p[PATH_MAX];
	struct stat st;
	snprintf(p, sizeof(p), "/proc/%d/root%s", pid, path);
	return stat(p, &st) ? 0 : st.st_dev;
}

/* A process that reads a pid from in, enters its mount namespace, opens file at fd 8 there, says so on out
 * (a byte), waits for SIGUSR1 and exits: 0, or 1 file does not hold want, 2 fd 8 is not on the
 * filesystem at file's path (9: not ready). */
static inline void nsmnt_joiner(int in, int out, const char *file, const char *want)
{
	pid_t pid = 0;
	struct stat a, b;
	if (read(in, &pid, sizeof(pid)) != sizeof(pid) || nsmnt_enter(pid) ||
	    (out == 8 && (out = dup(8)) < 0))
		_exit(9);
	open_at(8, file, O_RDONLY, "open the file in the namespace entered");
	if (write(out, "r", 1) != 1)
		_exit(9);
	usr1_wait();
	int bad = file_is(file, want) ? 0 : 1;
	_exit(bad | (fstat(8, &a) || stat(file, &b) || a.st_dev != b.st_dev ? 2 : 0));
}

/* SIGUSR1 to ch, then waits for it: 0 if it exited with 0, else 4 (a bit of its parent's exit code). */
static inline int usr1_reap(pid_t ch)
{
	int st;
	kill(ch, SIGUSR1);
	return waitpid(ch, &st, 0) == ch && WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : 4;
}

/* nsmnt_joiner forked as a child of the test (usr1_block() before): its pid; nsmnt_joiner_go sends it the pid
 * whose namespace it enters and waits until it holds fd 8 (fail() if not). */
struct nsmnt_jn {
	pid_t pid;
	int to, ready;
};

static inline struct nsmnt_jn nsmnt_joiner_fork(const char *file, const char *want)
{
	int tp[2], rp[2];
	struct nsmnt_jn j;
	if (pipe(tp) || pipe(rp))
		fail("pipe");
	j.pid = test_fork();
	if (j.pid == 0) {
		close(tp[1]);
		close(rp[0]);
		nsmnt_joiner(tp[0], rp[1], file, want);
	}
	close(tp[0]);
	close(rp[1]);
	j.to = tp[1], j.ready = rp[0];
	return j;
}

static inline void nsmnt_joiner_go(const struct nsmnt_jn *j, pid_t target)
{
	char r;
	if (write(j->to, &target, sizeof(target)) != sizeof(target) || read(j->ready, &r, 1) != 1)
		fail("the joiner is not ready");
	close(j->to);
	close(j->ready);
}

/* clone3(CLONE_NEWPID): in the child (0), PID 1 of a new PID namespace, test_forked() and in a mount
 * namespace of its own with its /proc (_exit(9) if not); its pid in the parent. */
static inline pid_t nsmnt_pidns_fork(void)
{
	struct clone_args ca;
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_NEWPID;
	ca.exit_signal = SIGCHLD;
	pid_t p = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	if (p)
		return p;
	test_forked();
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		_exit(9);
	return 0;
}

/* The pid of p's first child as we see it (/proc/P/task/P/children); fail() if none. */
static inline pid_t nsmnt_first_child(pid_t p)
{
	char path[64];
	pid_t x = 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", p, p);
	FILE *f = fopen(path, "r");
	if (!f || fscanf(f, "%d", &x) != 1 || x <= 0)
		fail("the pid of %d's child", p);
	if (f)
		fclose(f);
	return x;
}

/* A process with a mount namespace of its own, a tmpfs at /nsmnt_sx (file x: "x"), whose child unshares
 * from it and mounts one more at /nsmnt_sd (file d: "d"): the child's pid to out; on SIGUSR1 both check
 * and exit: 0, or 1 it lost x, 2 it sees d, 4 the child lost d or x (9: not ready). */
static inline void nsmnt_stacked(int out)
{
	int pp[2];
	if (nsmnt_own_tmpfs("/nsmnt_sx", "/nsmnt_sx/x", "x") || pipe(pp))
		_exit(9);
	pid_t ch = fork();
	if (ch == 0) {
		close(out);
		if (nsmnt_own_tmpfs("/nsmnt_sd", "/nsmnt_sd/d", "d") || child_ready(pp))
			_exit(9);
		usr1_wait();
		_exit(file_is("/nsmnt_sd/d", "d") && file_is("/nsmnt_sx/x", "x") ? 0 : 1);
	}
	if (ch < 0 || child_started(pp) || write(out, &ch, sizeof(ch)) != sizeof(ch))
		_exit(9);
	usr1_wait();
	int bad = access("/nsmnt_sd/d", F_OK) ? 0 : 2;
	_exit(bad | usr1_reap(ch) | (file_is("/nsmnt_sx/x", "x") ? 0 : 1));
}

/* A child of the test in a mount namespace of its own: unshare(CLONE_NEWNS), / made rprivate, setup() (not
 * 0: it exits 9), then it waits for SIGUSR1 and exits with check(). Its pid once setup is done (fail() if
 * not). usr1_block() before. */
static inline pid_t nsmnt_child(int (*setup)(void), int (*check)(void))
{
	int pfd[2];
	if (pipe(pfd))
		fail("pipe");
	pid_t ch = test_fork();
	if (ch == 0) {
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) || setup() ||
		    child_ready(pfd))
			_exit(9);
		usr1_wait();
		_exit(check());
	}
	if (ch < 0 || child_started(pfd))
		fail("child not ready");
	return ch;
}

/* Another child of the test that enters c's mount namespace (setns, cwd /) between before() and in() (NULL:
 * none; not 0: it exits 9), then waits for SIGUSR1 and exits with check(). Its pid (fail() if not ready). */
static inline pid_t nsmnt_sibling(pid_t c, int (*before)(void), int (*in)(void), int (*check)(void))
{
	int pfd[2];
	if (pipe(pfd))
		fail("pipe");
	pid_t s = test_fork();
	if (s == 0) {
		if ((before && before()) || nsmnt_enter(c) || (in && in()) || child_ready(pfd))
			_exit(9);
		usr1_wait();
		_exit(check());
	}
	if (s < 0 || child_started(pfd))
		fail("sibling not ready");
	return s;
}

/* The ghost tests on a tmpfs only a child's mount namespace mounts (nsmnt_child_ghostfs*, CRIU's
 * mountpoints shape): a tmpfs at top in the test's namespace with a directory m, over which the child
 * mounts a tmpfs of its own (ghostfs_own, in its setup). ghostfs_file: in the child, file (its directories
 * made) written with "ghost" and opened at fd with flags, then unlinked by the test's setup. nsmnt_ghostfs
 * runs the test: test_init, the tmpfs, the child (setup, check: nsmnt_child), the wait for SIGTERM, the
 * child's exit (bits: what its check's bits mean), and then that the parent's namespace does not show the
 * child's tmpfs at top/m (st_dev of top's). Its caller then passes. */
static inline int ghostfs_own(const char *top)
{
	char m[PATH_MAX];
	snprintf(m, sizeof(m), "%s/m", top);
	return mount("nsmnt", m, "tmpfs", 0, "size=1m");
}

static inline void ghostfs_file(const char *file, int fd, int flags)
{
	write_file_p(file, "ghost");
	open_at(fd, file, flags, file);
}

static inline void nsmnt_ghostfs(int argc, char **argv, const char *top, int (*setup)(void),
				 int (*check)(void), const char *bits)
{
	char m[PATH_MAX];
	struct stat a, b;
	test_init(argc, argv);
	must_mount("nsmnt", top, "tmpfs", 0, "size=1m");
	snprintf(m, sizeof(m), "%s/m", top);
	mkdirs(m);
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	test_daemon();
	test_waitsig();
	kill(ch, SIGUSR1);
	child_exit_ok(ch, bits);
	if (stat(top, &a) || stat(m, &b) || a.st_dev != b.st_dev)
		fail("the child's tmpfs is mounted at %s in the parent's namespace", m);
}

/* The ghost-copy check of the nsmnt_child_ghostfs* tests: st (the fstat of an fd, the stat of the cwd, or
 * the dev and ino of a mapping: ghostfs_map) is the child's copy of a deleted file or removed directory on
 * its own tmpfs, the one mounted at dir: 0, or bits: 1 not unlinked (st_nlink), 2 not on dir's filesystem
 * (st_dev), 4 link (/proc/self/fd/N, /proc/self/cwd; NULL: not checked) not named "path (deleted)". */
static inline int ghostfs_copy(const struct stat *st, const char *dir, const char *link, const char *path)
{
	struct stat d;
	char gf_name[PATH_MAX] = "", want[PATH_MAX];
	int bad = st->st_nlink ? 1 : 0;
	if (stat(dir, &d) || d.st_dev != st->st_dev)
		bad |= 2;
	snprintf(want, sizeof(want), "%s (deleted)", path);
	if (link && (readlink(link, gf_name, sizeof(gf_name) - 1) < 0 || strcmp(gf_name, want)))
		bad |= 4;
	return bad;
}

/* The mapping of ours at a, named "path (deleted)" in /proc/self/maps: its dev and ino into st (st_nlink
 * 0, for ghostfs_copy), its flags into perms (8 bytes, "rw-s"; NULL: not wanted); 0, or -1 if none. */
static inline int ghostfs_map(const void *a, const char *path, struct stat *st, char *perms)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char l[PATH_MAX + 128], p[8], gf_name[PATH_MAX], want[PATH_MAX];
	unsigned long lo;
	unsigned ma, mi;
	unsigned long long ino;
	int r = -1;
	snprintf(want, sizeof(want), "%s (deleted)", path);
	while (f && r && fgets(l, sizeof(l), f))
		if (sscanf(l, "%lx-%*x %7s %*s %x:%x %llu %4095[^\n]", &lo, p, &ma, &mi, &ino, gf_name) ==
			6 &&
		    lo == (unsigned long)a && !strcmp(gf_name, want)) {
			memset(st, 0, sizeof(*st));
			st->st_dev = makedev(ma, mi), st->st_ino = (ino_t)ino;
			if (perms)
				snprintf(perms, 8, "%s", p);
			r = 0;
		}
	if (f)
		fclose(f);
	return r;
}

#define CHECK(cond, ...)                                                                                     \
	do {                                                                                                 \
		if (!(cond))                                                                                 \
			fail(__VA_ARGS__);                                                                   \
	} while (0)

/* Before test_init, in the host's mount namespace (nsmnt_ext_auto*): a tmpfs at ext.host in the test's dir,
 * shared there, with a directory sub and a file file owned by the dir's owner (mode uns: the test's uid 0);
 * their paths (dir, file) added to the binds of lib/ns.c, the directory's as KIND ("rw", "slave"), the
 * file's rw. run.sh unmounts it after the test. */
static inline void nsmnt_host_tmpfs(const char *kind, char *dir, char *file, size_t len)
{
	char cwd[1024], top[1100], list[16384];
	const char *old = getenv("ZDTM_NSBINDS");
	struct stat st;
	if (!getcwd(cwd, sizeof(cwd)))
		exit(1);
	snprintf(top, sizeof(top), "%s/ext.host", cwd);
	snprintf(dir, len, "%s/sub", top);
	snprintf(file, len, "%s/file", top);
	mkdir(top, 0755);
	if (mount("zdtm_ext_auto", top, "tmpfs", 0, "size=1m") || mount(NULL, top, NULL, MS_SHARED, NULL) ||
	    mkdir(dir, 0755) || close(open(file, O_CREAT | O_WRONLY, 0644)) || stat(cwd, &st) ||
	    chown(top, st.st_uid, st.st_gid) || chown(dir, st.st_uid, st.st_gid) ||
	    chown(file, st.st_uid, st.st_gid)) {
		perror("host tmpfs");
		exit(1);
	}
	snprintf(list, sizeof(list), "%s%s%s=%s,rw=%s", old ? old : "", old && *old ? "," : "", kind, dir,
		 file);
	setenv("ZDTM_NSBINDS", list, 1);
}

/* In a child of the test's child (in its mount namespace, once it stands): a child of its own that closes
 * fd `shut` (-1: none), opens path at fd with flags (on its own: another open file description), seeks it to
 * pos and waits to be killed. Its pid once it holds the file, -1 if not. */
static inline pid_t nsmnt_kid_open(const char *path, int fd, int flags, off_t pos, int shut)
{
	int p[2];
	char c;
	pid_t k;
	if (pipe(p) || (k = fork()) < 0)
		return -1;
	if (!k) {
		if (shut >= 0)
			close(shut);
		open_at(fd, path, flags, path);
		if (lseek(fd, pos, SEEK_SET) != pos || write(p[1], "k", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	int r = read(p[0], &c, 1) == 1 ? 0 : -1;
	close(p[0]);
	return r ? -1 : k;
}

/* The shape of nsmnt_child_ghostmnt (CRIU's mntns_link_ghost), for the test: a tmpfs at top, another at
 * top/0 with directories a and b, a bound at top/a (the test's view of a file of top/0/a). nsmnt_own_bind, in
 * its child (its namespace): top/a and top/0 unmounted, top/0/b bound at top/b (its own view of b); 0 or -1.
 */
static inline void nsmnt_two_binds(const char *top)
{
	char p[256], q[256];
	must_mount("nsmnt", top, "tmpfs", 0, "size=1m");
	snprintf(p, sizeof(p), "%s/0", top);
	mkdirs(p);
	must_mount("nsmnt", p, "tmpfs", 0, "size=1m");
	snprintf(p, sizeof(p), "%s/0/b", top);
	mkdirs(p);
	snprintf(p, sizeof(p), "%s/0/a", top);
	mkdirs(p);
	snprintf(q, sizeof(q), "%s/a", top);
	mkdirs(q);
	must_mount(p, q, NULL, MS_BIND, NULL);
}

static inline int nsmnt_own_bind(const char *top)
{
	char a[256], b[256], ob[256], o[256];
	snprintf(a, sizeof(a), "%s/a", top);
	snprintf(b, sizeof(b), "%s/b", top);
	snprintf(ob, sizeof(ob), "%s/0/b", top);
	snprintf(o, sizeof(o), "%s/0", top);
	return umount(a) || mkdir(b, 0755) || mount(ob, b, NULL, MS_BIND, NULL) || umount(o) ? -1 : 0;
}

#endif
