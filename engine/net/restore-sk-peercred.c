/* SO_PEERCRED of restored unix sockets (see sk-unix.h): the kernel takes a socket's peer credentials from
 * the process that calls socketpair(), listen() or connect(), so that call is made by a short-lived helper
 * with the recorded pid (clone3 set_tid), euid and egid, sharing crshim's fd table (CLONE_FILES): the
 * sockets are crshim's as before. A pid of the tree is free at this point (its process comes later); a pid
 * of a process that is gone is taken as well when it is free: the socket names it, as it did. One that named
 * a process outside its holder's PID namespace (pid 0 there: only uid and gid saved) is made by crshim
 * itself, whose pid no process of the tree sees either, as those ids for the call (as_ids_here). */
#define LOG_PREFIX "restore-sk-peercred: "
#include <errno.h>
#include <stdint.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "restore.h"
#include "net/sk-unix.h"

/* struct clone_args (linux/sched.h), up to set_tid_size */
struct pc_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
	    set_tid_size;
};

enum { SAID_PIDNS = 1, SAID_BUSY = 2, SAID_CLONE = 4, SAID_NESTED = 8, SAID_IDS = 16 };
static unsigned said; /* what the log already says (once per restore) */
/* crshim's children are made in the PID namespace of the tree's root (rst_sk_peercred_pidns): the tasks of
 * that namespace level get their peers' pids there too */
static uint32_t pidns_levels;

void rst_sk_peercred_pidns(uint32_t levels)
{
	pidns_levels = levels;
}

void rst_sk_peercred_reset(void)
{
	said = 0;
}

void rst_sk_peercred_notice(const struct cr_opts *o)
{
	if (said & SAID_PIDNS)
		eng_notice(o, "SO_PEERCRED of unix sockets inside the tree's PID namespace is not restored: "
			      "their peer credentials name crshim (pid 0 there)");
	if (said & SAID_NESTED)
		eng_notice(o,
			   "SO_PEERCRED of some unix sockets of a nested PID namespace is not restored in it "
			   "(there they name crshim, pid 0): the restore log says which and why");
	if (said & (SAID_BUSY | SAID_CLONE))
		eng_notice(o, "SO_PEERCRED of some unix sockets is not restored (their peer's pid could not "
			      "be taken again: a process of the tree that exists then): they name crshim; "
			      "the restore log says which");
	if (said & SAID_IDS)
		eng_notice(
		    o, "SO_PEERCRED uid and gid of some unix sockets (whose pid their holder did not see) "
		       "are not restored: they are crshim's; the restore log says why");
}

static bool say_once(unsigned what)
{
	bool first = !(said & what);
	said |= what;
	return first;
}

void rst_sk_peercred_nested_not(uint32_t ino, pid_t init, const char *why)
{
	said |= SAID_NESTED;
	pr_info("socket:[%u]: not made in the PID namespace of task %d (%s): its SO_PEERCRED names crshim "
		"there\n",
		ino, (int)init, why);
}

/* Helper side: the credentials, then fn. Paths are still looked up as crshim's (fsuid, fsgid). */
static int helper(const UnixSkEntry *u, int (*fn)(void *), void *arg)
{
	uid_t ruid = getuid();
	gid_t rgid = getgid();
	if (u->has_peer_gid && setresgid((gid_t)-1, u->peer_gid, (gid_t)-1))
		return errno;
	if (u->has_peer_uid && setresuid((uid_t)-1, u->peer_uid, (uid_t)-1))
		return errno;
	setfsuid(ruid);
	setfsgid(rgid);
	if (fn(arg))
		return errno ? errno : EIO;
	return 0;
}

/* The init of t's PID namespace below crshim's (its nearest ancestor, or itself, with ns_init), NULL. */
static const struct rst_task *ns_init_of(const struct rst_task *t)
{
	for (size_t hops = 0; t && hops <= t->ntree; hops++) {
		if (t->ns_init)
			return t;
		t = t->root ? NULL : rst_tree_task(t->tree, t->ntree, t->pst->ppid);
	}
	return NULL;
}

/* Are a and b (of one level) in one PID namespace? */
static bool same_pidns(const struct rst_task *a, const struct rst_task *b)
{
	return ns_init_of(a) == ns_init_of(b);
}

/* fn(arg) by crshim's own thread as u's euid and egid (raw syscalls: this thread's credentials only, its
 * fsuid and fsgid kept, so that paths are looked up as crshim's): its pid, outside every PID namespace of the
 * tree, is pid 0 there, as the saved one was. */
static int as_ids_here(const UnixSkEntry *u, int (*fn)(void *), void *arg)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg))
		return fn(arg);
	uid_t fsu = (uid_t)setfsuid((uid_t)-1);
	gid_t fsg = (gid_t)setfsgid((gid_t)-1);
	if ((u->has_peer_gid && syscall(SYS_setresgid, -1, u->peer_gid, -1)) ||
	    (u->has_peer_uid && syscall(SYS_setresuid, -1, u->peer_uid, -1))) {
		if (say_once(SAID_IDS))
			pr_info("SO_PEERCRED uid %u gid %u (pid 0): %s: such sockets name crshim's\n",
				u->peer_uid, u->peer_gid, strerror(errno));
		if (syscall(SYS_setresgid, -1, eg, -1))
			return -1;
		setfsuid(fsu);
		setfsgid(fsg);
		return fn(arg);
	}
	setfsuid(fsu);
	setfsgid(fsg);
	int r = fn(arg), err = errno;
	/* (the euid first: back to one that may set the egid) */
	if (syscall(SYS_setresuid, -1, eu, -1) || syscall(SYS_setresgid, -1, eg, -1))
		return -1;
	setfsuid(fsu);
	setfsgid(fsg);
	pr_debug("uid %u gid %u (pid 0) made a socket call\n", u->peer_uid, u->peer_gid);
	errno = err;
	return r;
}

int rst_sk_as_peer(const struct rst_task *t, const UnixSkEntry *u, int (*fn)(void *), void *arg)
{
	if (u && !u->has_peer_pid && (u->has_peer_uid || u->has_peer_gid))
		return as_ids_here(u, fn, arg);
	if (!u || !u->has_peer_pid || u->peer_pid <= 0)
		return fn(arg);
	if (t && t->ns_levels && t->ns_levels != pidns_levels) {
		if (say_once(SAID_PIDNS))
			pr_info(
			    "SO_PEERCRED of sockets inside a PID namespace crshim is not in not restored: "
			    "they name crshim\n");
		return fn(arg);
	}
	pid_t want[RST_PID_LEVELS] = {u->peer_pid};
	size_t nwant = 1;
	/* inside a PID namespace: a process of the tree with that pid there gets the helper's pids in the
	 * namespaces above too, ours last (when it is known now), so that a later dump, reading SO_PEERCRED
	 * from our namespace, finds it again */
	for (size_t i = 0; t && t->ns_levels && i < t->ntree && nwant == 1; i++) {
		const struct rst_task *x = &t->tree[i];
		if (x->ns_levels == t->ns_levels && x->ns_ids[x->ns_levels - 1] == want[0] && !x->helper &&
		    !x->zombie && same_pidns(t, x))
			nwant = rst_pidns_set_tid(x, want);
	}
	struct pc_clone_args ca = {.flags = CLONE_FILES,
				   .exit_signal = SIGCHLD,
				   .set_tid = (uint64_t)(uintptr_t)want,
				   .set_tid_size = nwant};
	fflush(NULL);
	long r = syscall(SYS_clone3, &ca, sizeof(ca));
	if (r == 0)
		_exit(helper(u, fn, arg));
	if (r < 0) {
		int err = errno;
		if (err == EEXIST && say_once(SAID_BUSY))
			pr_info(
			    "SO_PEERCRED pid %d is taken (by a process outside the tree, or one of the tree "
			    "made already that does not make these sockets): such sockets name crshim\n",
			    want[0]);
		else if (err != EEXIST && say_once(SAID_CLONE))
			pr_info("SO_PEERCRED pid %d: clone3: %s: such sockets name crshim\n", want[0],
				strerror(err));
		return fn(arg);
	}
	int st;
	while (waitpid((pid_t)r, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st) && !WEXITSTATUS(st)) {
		pr_debug("pid %d uid %u gid %u made a socket call\n", want[0], u->peer_uid, u->peer_gid);
		return 0;
	}
	errno = WIFEXITED(st) ? WEXITSTATUS(st) : EINTR;
	return -1;
}
