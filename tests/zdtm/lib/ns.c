/* Run mode ns (run.sh MODE=ns): the test starts as PID 1 of fresh PID, mount, network, IPC and UTS
 * namespaces (mode uns: the network, IPC and UTS ones owned by a user namespace of its own, ZDTM_NSUSER
 * "FIRST LOWER COUNT" its uid and gid map, which the test enters last as its uid and gid 0; mode cuns,
 * ZDTM_NSUSER_ALL=1: all of them owned by it, as a rootless container's, the test in it from the start
 * and the device nodes of its /dev bound from the host's; mode rootless, ZDTM_NSUSER_ALL=1 alone: the test
 * started by a non-root user in a user namespace of that user, which owns what we make), under a small
 * root of its own (ZDTM_NSROOT, pivot_root'ed): the host paths it needs bound at the same place
 * (ZDTM_NSBINDS: "ro=/usr,rw=/tmp/zdtm.x,...", slave=PATH: a slave of PATH's peer group in the host's),
 * /proc, /sys (ro), /dev a tmpfs with a few device nodes, /dev/pts (newinstance), /dev/shm, /dev/mqueue,
 * /tmp, loopback up, hostname zdtm-nsmnt. */
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdbool.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include "zdtmtst.h"

/* Before the outfile is open: stderr goes to the runner's start.log. */
__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
	va_list ap;
	int err = errno;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

/* mode uns: the user namespace made by zdtm_ns_user (its fd, -1), entered last by zdtm_ns_enter */
static int user_fd = -1;
/* mode cuns: we are in it already, and make every other namespace in it */
static int own_all;

int zdtm_ns_flags(void)
{
	if (!getenv("ZDTM_NSROOT"))
		return 0;
	/* mode uns: the network, IPC and UTS namespaces are the user namespace's, made by zdtm_ns_user */
	return user_fd >= 0 ? CLONE_NEWPID : CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS;
}

static void user_enter(void);

/* Mode uns, before zdtm_ns_flags' unshare: a child makes a user namespace (we write its maps: "allow"
 * setgroups, ZDTM_NSUSER), then in it network, IPC and UTS namespaces, which we join: they are owned by it.
 * The PID and mount namespaces are made by us outside it (owned by the host's: crshim restores only the
 * network, IPC and UTS namespaces of a user namespace), and the test enters it last (zdtm_ns_enter). */
void zdtm_ns_user(void)
{
	static const char *const kinds[] = {"net", "ipc", "uts"};
	static const int flags[] = {CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS};
	const char *map = getenv("ZDTM_NSUSER");
	int up[2], down[2];
	char c = 0, path[64];
	/* (mode rootless: ZDTM_NSUSER_ALL without ZDTM_NSUSER: started in a user namespace already, the
	 * user's own, whose namespaces we make as in mode ns; its /dev bound as in mode cuns) */
	own_all = getenv("ZDTM_NSUSER_ALL") != NULL;
	if (!map || !getenv("ZDTM_NSROOT"))
		return;
	pid_t pid = pipe(up) || pipe(down) ? -1 : fork();
	if (pid < 0)
		die("uns mode: pipes and a child");
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		if (unshare(CLONE_NEWUSER) || write(up[1], "u", 1) != 1 || read(down[0], &c, 1) != 1 ||
		    (!own_all && unshare(CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)) ||
		    write(up[1], "n", 1) != 1)
			_exit(1);
		while (read(down[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	if (read(up[0], &c, 1) != 1 || c != 'u')
		die("uns mode: the user namespace");
	static const char *const files[] = {"setgroups", "uid_map", "gid_map"};
	for (size_t i = 0; i < 3; i++) {
		const char *v = i ? map : "allow";
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, files[i]);
		int fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, v, strlen(v)) != (ssize_t)strlen(v))
			die("uns mode: write %s", path);
		close(fd);
	}
	if (write(down[1], "m", 1) != 1 || read(up[0], &c, 1) != 1 || c != 'n')
		die("uns mode: the namespaces of the user namespace");
	for (size_t i = 0; i < 3 && !own_all; i++) {
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, kinds[i]);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, flags[i]))
			die("uns mode: join %s", path);
		close(fd);
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	user_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (user_fd < 0)
		die("uns mode: open %s", path);
	close(up[0]);
	close(down[1]);
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die("uns mode: the user namespace's helper");
	if (own_all) /* in it now: the namespaces we make next are its */
		user_enter();
}

/* Mode uns, last of zdtm_ns_enter: into the user namespace, as its uid and gid 0. */
static void user_enter(void)
{
	if (user_fd < 0)
		return;
	if (setns(user_fd, CLONE_NEWUSER))
		die("uns mode: enter the user namespace");
	close(user_fd);
	user_fd = -1;
	if (setresgid(0, 0, 0) || setgroups(0, NULL) || setresuid(0, 0, 0))
		die("uns mode: uid 0 in the user namespace");
	/* the uid change made us not dumpable: as a program exec'ed in the namespace is, again (kcmp and
	 * /proc of our own processes need it, as they do in a container) */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		die("uns mode: PR_SET_DUMPABLE");
}

static void at(char *buf, size_t len, const char *root, const char *p)
{
	snprintf(buf, len, "%s/%s", root, p + strspn(p, "/"));
}

static void mkpath(const char *path, int file)
{
	char p[4096];
	struct stat st;
	if (!lstat(path, &st))
		return;
	snprintf(p, sizeof(p), "%s", path);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	if (file)
		close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
	else
		mkdir(p, 0755);
}

static void mnt(const char *root, const char *src, const char *p, const char *type, unsigned long fl,
		const char *opts)
{
	char t[4096];
	at(t, sizeof(t), root, p);
	mkpath(t, 0);
	if (mount(src, t, type, fl, opts))
		die("ns mode: mount %s on %s", type, t);
}

/* "slave=PATH" binds: a clone of PATH taken in the host's mount namespace, before ours is made (in the peer
 * group of PATH's mount there, when that is shared), placed by binds() and made a slave of that group: a
 * mount whose master is outside the tree (mode cuns: no clone in the host's namespace, one in our copy of
 * it, where that mount is a slave of the group already). -1: a plain bind. */
static int slave_fd[8];
static size_t n_slave, used_slave;

static void slaves_clone(const char *list, bool again)
{
	char *l = strdup(list), *sv = NULL;
	size_t k = 0;
	for (char *x = strtok_r(l, ",", &sv); x && k < 8; x = strtok_r(NULL, ",", &sv)) {
		if (strncmp(x, "slave=", 6))
			continue;
		if (!again || slave_fd[k] < 0)
			slave_fd[k] =
			    (int)syscall(SYS_open_tree, AT_FDCWD, x + 6, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		k++;
	}
	n_slave = k;
	free(l);
}

/* The mounts under t (not t) that may be unmounted, deepest first: those made in this namespace that a
 * recursive bind copied; the ones locked to it (from the host's) stay. */
static void unmount_under(const char *t)
{
	char line[8192], mp[4096], *found[64];
	size_t n = 0, tl = strlen(t);
	FILE *f = fopen("/proc/self/mountinfo", "r");
	while (f && n < 64 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) == 1 && !strncmp(mp, t, tl) && mp[tl] == '/' &&
		    (found[n] = strdup(mp)))
			n++;
	if (f)
		fclose(f);
	while (n--) {
		umount2(found[n], MNT_DETACH);
		free(found[n]);
	}
}

static int bind_one(const char *p, const char *t, int slave)
{
	int fd = slave && used_slave < n_slave ? slave_fd[used_slave++] : -1;
	/* a dir with a mount of the host's under it (nsmnt_host_tmpfs), bound in a user namespace's mount
	 * namespace (mode cuns): not alone (locked to it: EINVAL), but with every mount under it, then those
	 * of this namespace taken off again (the root's own, when p holds it) */
	if (fd < 0) {
		if (!mount(p, t, NULL, MS_BIND, NULL))
			return 0;
		if (errno != EINVAL || mount(p, t, NULL, MS_BIND | MS_REC, NULL))
			return -1;
		unmount_under(t);
		return 0;
	}
	if (syscall(SYS_move_mount, fd, "", AT_FDCWD, t, MOVE_MOUNT_F_EMPTY_PATH))
		return -1;
	close(fd);
	return mount(NULL, t, NULL, MS_SLAVE, NULL);
}

static void binds(const char *root, const char *list)
{
	char *l = strdup(list), *sv = NULL;
	for (char *x = strtok_r(l, ",", &sv); x; x = strtok_r(NULL, ",", &sv)) {
		int ro = !strncmp(x, "ro=", 3);
		const char *p = strchr(x, '=') ? strchr(x, '=') + 1 : x;
		char t[4096];
		struct stat st;
		if (stat(p, &st))
			continue;
		at(t, sizeof(t), root, p);
		mkpath(t, !S_ISDIR(st.st_mode));
		if (bind_one(p, t, !strncmp(x, "slave=", 6)) ||
		    (ro &&
		     mount(NULL, t, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL)))
			die("ns mode: bind %s", p);
	}
	free(l);
}

static void devs(const char *root)
{
	static const struct {
		const char *n;
		unsigned ma, mi;
	} d[] = {{"null", 1, 3},    {"zero", 1, 5}, {"full", 1, 7},	 {"random", 1, 8},
		 {"urandom", 1, 9}, {"tty", 5, 0},  {"net/tun", 10, 200}};
	char t[4096];
	mnt(root, "tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_STRICTATIME, "mode=755,size=65536k");
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		snprintf(t, sizeof(t), "%s/dev/%s", root, d[i].n);
		if (own_all && strchr(d[i].n, '/'))
			continue; /* net/tun: the host's is 0600 root, of no use there */
		if (own_all) {	  /* no mknod in a user namespace: the host's, bound (run.sh names them) */
			char h[64];
			snprintf(h, sizeof(h), "/dev/%s", d[i].n);
			mkpath(t, 1);
			if (mount(h, t, NULL, MS_BIND, NULL))
				die("ns mode: bind %s", h);
		} else if ((strchr(d[i].n, '/') && mkdir(dirname(strdupa(t)), 0755)) ||
			   mknod(t, S_IFCHR | 0666, makedev(d[i].ma, d[i].mi)) || chmod(t, 0666))
			die("ns mode: mknod %s", t);
	}
	mnt(root, "devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
	    "newinstance,ptmxmode=0666,mode=0620");
	snprintf(t, sizeof(t), "%s/dev/ptmx", root);
	if (symlink("pts/ptmx", t))
		die("ns mode: %s", t);
	mnt(root, "shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=1777,size=65536k");
	mnt(root, "mqueue", "/dev/mqueue", "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
}

static void lo_up(void)
{
	struct ifreq ifr = {0};
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		die("ns mode: lo");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		die("ns mode: lo up");
	close(s);
}

/* In the test (PID 1 of the new PID namespace), before anything else. */
void zdtm_ns_enter(void)
{
	const char *root = getenv("ZDTM_NSROOT"), *list = getenv("ZDTM_NSBINDS");
	char cwd[4096], t[4096];
	if (!root)
		return;
	if (!getcwd(cwd, sizeof(cwd)))
		die("getcwd");
	slaves_clone(list ? list : "", false);
	if (unshare(CLONE_NEWNS))
		die("ns mode: a mount namespace");
	/* mode cuns (the user namespace entered already: no clone in the host's namespace): the clone from
	 * our copy of it, where the host's shared mounts are slaves of their groups, before all is private */
	slaves_clone(list ? list : "", true);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) || mount(root, root, NULL, MS_BIND, NULL))
		die("ns mode: a mount namespace with %s as its root", root);
	static const char *const links[][2] = {
	    {"bin", "usr/bin"}, {"sbin", "usr/sbin"}, {"lib", "usr/lib"}, {"lib64", "usr/lib64"}};
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		at(t, sizeof(t), root, links[i][0]);
		if (symlink(links[i][1], t) && errno != EEXIST)
			die("ns mode: %s", t);
	}
	mnt(root, "tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
	binds(root, list ? list : "");
	mnt(root, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mnt(root, "sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, NULL);
	devs(root);
	if (chdir(root) || syscall(SYS_pivot_root, ".", ".") || umount2(".", MNT_DETACH) || chdir(cwd))
		die("ns mode: pivot_root into %s", root);
	lo_up();
	if (sethostname("zdtm-nsmnt", 10))
		die("ns mode: hostname");
	user_enter();
}
