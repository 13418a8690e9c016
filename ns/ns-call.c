/* ns_call (ns.h): work done inside a namespace of the tree by a child that shares crshim's memory, so that
 * crshim itself never leaves its own namespaces. */
#define LOG_PREFIX "ns-call: "
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/nsfs.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "ns-int.h"

/* The child's stack: reserved, only the pages it touches are made. */
#define CALL_STACK (8u << 20)

struct call {
	int target, nstype;
	int (*fn)(void *arg, struct cr_err *e);
	void *arg;
	struct cr_err *e;
	int ret;
};

static const char *kind_name(int nstype)
{
	for (int k = 0; k < NS_KINDS; k++)
		if (ns_kinds[k].flag == nstype)
			return ns_kinds[k].name;
	return "?";
}

/* Entering target needs CAP_SYS_ADMIN in crshim's own user namespace too: a crshim outside the tree's user
 * namespace with file capabilities only (rootless, as its owner) enters that user namespace first, where
 * its owner has every capability. */
int ns_enter_owner(int target, bool own_mnt)
{
	int u = ioctl(target, NS_GET_USERNS);
	if (u < 0)
		return -1;
	/* and a copy of crshim's mount namespace owned by it: fn may make a filesystem of the namespace's
	 * (mqueue) */
	int r = setns(u, CLONE_NEWUSER) || (own_mnt && unshare(CLONE_NEWNS)) ? -1 : 0;
	int saved = errno;
	close(u);
	errno = saved;
	return r;
}

static int call_main(void *p)
{
	struct call *c = p;
	if (setns(c->target, c->nstype) &&
	    (errno != EPERM || ns_enter_owner(c->target, true) || setns(c->target, c->nstype))) {
		c->ret = cr_fail_sys(c->e, "enter a %s namespace of the tree", kind_name(c->nstype));
		return 0;
	}
	c->ret = c->fn(c->arg, c->e);
	return 0;
}

int ns_call(int target, int nstype, int (*fn)(void *arg, struct cr_err *e), void *arg, struct cr_err *e)
{
	struct call c = {.target = target, .nstype = nstype, .fn = fn, .arg = arg, .e = e, .ret = -1};
	void *stack = mmap(NULL, CALL_STACK, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return cr_fail_sys(e, "map a stack to enter a %s namespace of the tree", kind_name(nstype));
	/* CLONE_VFORK: this thread waits until the child is gone (it runs on this thread's TLS) */
	pid_t pid =
	    clone(call_main, (char *)stack + CALL_STACK, CLONE_VM | CLONE_FILES | CLONE_VFORK | SIGCHLD, &c);
	int st = 0, saved = errno;
	while (pid > 0 && waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
		;
	munmap(stack, CALL_STACK);
	if (pid < 0) {
		errno = saved;
		return cr_fail_sys(e, "clone to enter a %s namespace of the tree", kind_name(nstype));
	}
	if (!WIFEXITED(st))
		return cr_fail_errno(e, EIO,
				     "the child in a %s namespace of the tree was killed by signal %d",
				     kind_name(nstype), WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return c.ret ? -1 : 0;
}

bool ns_self_owned(const char *kind)
{
	char p[64];
	struct stat a, b;
	snprintf(p, sizeof(p), "/proc/self/ns/%s", kind);
	__cleanup_close int ns = open(p, O_RDONLY | O_CLOEXEC);
	__cleanup_close int owner = ns < 0 ? -1 : ioctl(ns, NS_GET_USERNS);
	/* (EPERM: the owner is outside crshim's user namespace) */
	return owner >= 0 && !fstat(owner, &a) && !stat("/proc/self/ns/user", &b) && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

bool ns_pids_choosable(void)
{
	return ns_self_owned("pid_for_children");
}
