/* Steps of the sk_unix_peercred tests whose children connect to the test's listener as other ids
 * (sk_unix_peercred_gone, _pidns). Include it after sk_unix.h. */
#ifndef SK_UNIX_PEERCRED_H
#define SK_UNIX_PEERCRED_H
#include <stdio.h>
#include <sys/wait.h>

/* The test's stream listener, its address and a pipe for its children. */
struct pc_test {
	struct sockaddr_un a;
	socklen_t al;
	int go[2];
};

/* The listener at fd ls, bound to name (an abstract one: with the time of day in ns added, so that two
 * runs side by side in one network namespace do not meet, the test being pid 1 of its PID namespace in
 * some), backlog, and the pipe. */
static inline void pc_listen(struct pc_test *t, int ls, const char *name, int backlog)
{
	char n[96];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(n, sizeof(n), "%s-%d-%ld", name, getpid(), (long)now.tv_nsec);
	t->al = sk_bound(ls, SOCK_STREAM, n, backlog, &t->a);
	if (pipe(t->go))
		fail("setup: pipe");
}

/* In a child: euid uid, egid gid (-1: its own); 0 if done. */
static inline int pc_ids(uid_t uid, gid_t gid)
{
	return (gid != (gid_t)-1 && setresgid(-1, gid, -1)) || (uid != (uid_t)-1 && setresuid(-1, uid, -1));
}

/* SO_PEERCRED of fd is pid, uid, gid, else fail(what). */
static inline void pc_expect(int fd, const char *what, pid_t pid, uid_t uid, gid_t gid)
{
	struct ucred cr = sk_peer(fd);
	if (cr.pid != pid || cr.uid != uid || cr.gid != gid)
		fail("%s (fd %d): SO_PEERCRED pid %d uid %u gid %u, want %d %u %u", what, fd, cr.pid, cr.uid,
		     cr.gid, pid, uid, gid);
}

/* The child k reaped, exited 0, else fail(what). */
static inline void pc_reap(pid_t k, const char *what)
{
	int st = 0;
	if (waitpid(k, &st, 0) != k || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("%s: status %#x", what, st);
}
#endif
