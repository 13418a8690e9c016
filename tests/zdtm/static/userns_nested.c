/* Two levels of user namespaces in the tree: the test enters a user namespace A of its own (uid and gid
 * map "0 0 2000"), then a child unshares a user namespace B nested in A, whose maps the test writes from A
 * ("0 1000 10": B's ids 0..9 are A's 1000..1009), setgroups denied in B; the child takes uid 5 and gid 3
 * of B, makes a file there (owned by B's 5:3, A's 1005:1003) and forks a grandchild, also in B. The test
 * made a file owned by A's 1007:1007 (B's 7:7). After C/R: the child and the grandchild still in one user
 * namespace, B, whose parent is the test's A; B's maps, setgroups and owner (A's uid 0) as before; their
 * ids as they see them (5 and 3); both files owned by B's ids, as B sees them. */
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "userns_nested.h"

static unsigned long ino_of(const char *path)
{
	struct stat st;
	return stat(path, &st) ? 0 : (unsigned long)st.st_ino;
}

/* In B, after the go: its ids, the files' owners as B sees them, B's maps and setgroups; a bit per
 * failure. */
static int check_in_b(void)
{
	uid_t r, e, s;
	gid_t gr, ge, gs;
	struct stat st;
	int bad = 0;
	if (getresuid(&r, &e, &s) || r != 5 || e != 5 || s != 5)
		bad |= 1;
	if (getresgid(&gr, &ge, &gs) || gr != 3 || ge != 3 || gs != 3)
		bad |= 2;
	if (stat("inner", &st) || st.st_uid != 5 || st.st_gid != 3)
		bad |= 4;
	if (stat("outer", &st) || st.st_uid != 7 || st.st_gid != 7)
		bad |= 8;
	if (!unest_same("/proc/self/uid_map", "0 1000 10\n") ||
	    !unest_same("/proc/self/gid_map", "0 1000 10\n"))
		bad |= 16;
	if (!unest_same("/proc/self/setgroups", "deny\n"))
		bad |= 32;
	return bad;
}

int main(int argc, char **argv)
{
	int up[2], go[2], fd;
	char c;
	test_init(argc, argv);
	unest_enter("0 0 2000", NULL);
	if (mkdir("d", 0777) || chmod("d", 0777))
		fail("setup: mkdir d: %m");
	fd = open("d/outer", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0 || fchown(fd, 1007, 1007))
		fail("setup: d/outer owned by 1007: %m");
	close(fd);
	if (pipe(up) || pipe(go))
		fail("setup: pipe");
	pid_t child = fork(), grand = 0;
	if (child == 0) {
		test_forked();
		close(up[0]);
		close(go[1]);
		/* in d (our cwd, 0700, is not B's to search), still as root's uid */
		if (chdir("d") || unshare(CLONE_NEWUSER) || write(up[1], "u", 1) != 1 ||
		    read(go[0], &c, 1) != 1)
			_exit(100);
		/* dumpable again after the id change: our /proc files are B's, the test may look at them */
		if (setresgid(3, 3, 3) || setresuid(5, 5, 5) || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
			_exit(101);
		int f = open("inner", O_CREAT | O_RDWR | O_CLOEXEC, 0644);
		if (f < 0)
			_exit(102);
		pid_t g = fork();
		if (g == 0) {
			if (read(go[0], &c, 1) != 1)
				_exit(103);
			_exit(check_in_b());
		}
		siginfo_t si;
		pid_t z = fork(); /* a zombie in B */
		if (z == 0)
			_exit(7);
		if (g < 0 || z < 0 || waitid(P_PID, (id_t)z, &si, WEXITED | WNOWAIT) ||
		    write(up[1], &g, sizeof(g)) != sizeof(g))
			_exit(104);
		if (read(go[0], &c, 1) != 1)
			_exit(105);
		int bad = check_in_b(), st;
		struct stat a, b;
		if (fstat(f, &a) || stat("inner", &b) || a.st_ino != b.st_ino)
			bad |= 64;
		if (waitpid(g, &st, 0) != g || !WIFEXITED(st) || WEXITSTATUS(st))
			bad |= 128;
		/* its exit code, in /proc/Z/stat (last field) only for who may trace it */
		char zs[64], *txt = NULL, *last;
		snprintf(zs, sizeof(zs), "/proc/%d/stat", z);
		if (read_file(zs, &txt) < 0 || !(last = strrchr(txt, ' ')) || atoi(last + 1) != 7 << 8)
			bad |= 256;
		free(txt);
		if (waitpid(z, &st, 0) != z || !WIFEXITED(st) || WEXITSTATUS(st) != 7)
			bad |= 512;
		_exit(bad);
	}
	close(up[1]);
	close(go[0]);
	if (child < 0 || read(up[0], &c, 1) != 1)
		fail("setup: the child's user namespace");
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/setgroups", child);
	unest_wr(path, "deny");
	snprintf(path, sizeof(path), "/proc/%d/uid_map", child);
	unest_wr(path, "0 1000 10");
	snprintf(path, sizeof(path), "/proc/%d/gid_map", child);
	unest_wr(path, "0 1000 10");
	if (write(go[1], "m", 1) != 1 || read(up[0], &grand, sizeof(grand)) != sizeof(grand)) {
		int st = 0;
		waitpid(child, &st, 0);
		fail("setup: the child in its user namespace: status 0x%x", st);
	}
	test_daemon();
	test_waitsig();

	char cu[64], gu[64];
	snprintf(cu, sizeof(cu), "/proc/%d/ns/user", child);
	snprintf(gu, sizeof(gu), "/proc/%d/ns/user", grand);
	int ufd = open(cu, O_RDONLY | O_CLOEXEC);
	int pfd = ufd < 0 ? -1 : ioctl(ufd, NS_GET_PARENT);
	struct stat pst;
	uid_t owner = 12345;
	if (ufd < 0 || pfd < 0 || fstat(pfd, &pst) || pst.st_ino != ino_of("/proc/self/ns/user"))
		fail("the child's user namespace is not nested in ours");
	if (ino_of(cu) == ino_of("/proc/self/ns/user") || ino_of(cu) != ino_of(gu))
		fail("the child (%lu) and the grandchild (%lu) are not in one user namespace of theirs",
		     ino_of(cu), ino_of(gu));
	if (ufd < 0 || ioctl(ufd, NS_GET_OWNER_UID, &owner) || owner != 0)
		fail("the owner of the child's user namespace: %u, want 0", owner);
	if (!unest_same("/proc/self/uid_map", "0 0 2000\n"))
		fail("our uid_map changed");
	if (pfd >= 0)
		close(pfd);
	if (ufd >= 0)
		close(ufd);
	int st;
	if (write(go[1], "gg", 2) != 2 || waitpid(child, &st, 0) != child)
		fail("the child is gone");
	else if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail("in the nested user namespace: status 0x%x (bits: 1 uids, 2 gids, 4 d/inner, 8 d/outer, "
		     "16 "
		     "maps, 32 setgroups, 64 fd, 128 grandchild, 256 zombie's /proc exit code, 512 zombie)",
		     st);
	if (!test_failures)
		pass();
	return 0;
}
