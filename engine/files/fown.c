/* File owner and signal (see fown.h). */
#define LOG_PREFIX "fown: "
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "files/evfd.h"
#include "files/fown.h"
#include "files/ghost.h"
#include "base/log.h"

int dump_fown_read(int cfd, int fd, struct dump_fown_raw *r, struct cr_err *e)
{
	r->own = (struct f_owner_ex){0};
	r->sig = fcntl(cfd, F_GETSIG);
	if (fcntl(cfd, F_GETOWN_EX, &r->own) || r->sig < 0)
		return cr_fail_sys(e, "fd %d: F_GETOWN_EX/F_GETSIG", fd);
	return 0;
}

void dump_fown_fill(const struct dump_fown_raw *r, int fd, uint32_t flags, FileEntry *fe, FownEntry *fo)
{
	struct f_owner_ex own = r->own;
	int sig = r->sig;
	if (flags & O_PATH) /* no owner on an O_PATH open (fcntl refuses) */
		return;
	if (!own.pid && !sig && !(flags & O_ASYNC))
		return;
	fo->type = (uint32_t)own.type, fo->has_type = 1;
	fo->pid = own.pid, fo->has_pid = 1;
	fo->signum = (uint32_t)sig, fo->has_signum = 1;
	fo->async = !!(flags & O_ASYNC), fo->has_async = 1;
	fe->fown = fo;
	pr_info("fd %d: owner type %d pid %d, signal %d%s\n", fd, own.type, own.pid, sig,
		fo->async ? ", O_ASYNC" : "");
}

int dump_fown(int cfd, int fd, uint32_t flags, FileEntry *fe, FownEntry *fo, struct cr_err *e)
{
	struct dump_fown_raw r;
	if (flags & O_PATH) /* no owner on an O_PATH open (fcntl refuses) */
		return 0;
	if (dump_fown_read(cfd, fd, &r, e))
		return -1;
	dump_fown_fill(&r, fd, flags, fe, fo);
	return 0;
}

/* Is euid eu the host's root (uid 0 of a user namespace that maps it to 0 of its parent's: the initial one)?
 */
static bool host_root(uid_t eu)
{
	char buf[256];
	long in, out, n;
	if (eu != 0)
		return false;
	__cleanup_close int m = rst_self_proc_open("uid_map", O_RDONLY | O_CLOEXEC);
	ssize_t len = m < 0 ? -1 : read(m, buf, sizeof(buf) - 1);
	if (len <= 0)
		return false;
	buf[len] = '\0';
	return sscanf(buf, "%ld %ld %ld", &in, &out, &n) == 3 && in == 0 && out == 0;
}

int rst_fown_setown(int fd, const struct f_owner_ex *own, const CredsEntry *c)
{
	uid_t ru, eu, su;
	/* the host's root may signal anyone: kept, as the widest (the setter's own ids are not known) */
	if (!c || getresuid(&ru, &eu, &su) || (ru == c->uid && eu == c->euid) || host_root(eu))
		return fcntl(fd, F_SETOWN_EX, own);
	int dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	/* the raw call: this thread only (glibc's changes every thread's), crshim's saved uid kept to come
	 * back */
	if (syscall(SYS_setresuid, (uid_t)c->uid, (uid_t)c->euid, (uid_t)-1))
		return -1;
	int r = fcntl(fd, F_SETOWN_EX, own), err = errno;
	if (syscall(SYS_setresuid, ru, eu, su) ||
	    (dumpable >= 0 && prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0)))
		return -1;
	errno = err;
	return r;
}

int rst_fown_apply(const FileEntry *f, int fd, pid_t owner, const CredsEntry *c, char *msg, size_t len)
{
	const FownEntry *fo = f->fown;
	if (!fo)
		return 0;
	struct f_owner_ex own = {.type = (int)fo->type, .pid = owner};
	const char *what = "F_SETSIG";
	if (fo->signum && fcntl(fd, F_SETSIG, (int)fo->signum))
		goto fail;
	what = "F_SETOWN_EX";
	/* an owner that is gone (ESRCH) gets no signals: nothing to set */
	if (owner && rst_fown_setown(fd, &own, c) && errno != ESRCH)
		goto fail;
	/* O_ASYNC set here, through the task's number: the kernel keeps the number it was set through for
	 * the signal's si_fd. Off first: whoever made the file may have set it through its own number
	 * (crshim, for a file of several processes), or opened it with O_ASYNC, which open() takes as a
	 * flag without arming it; F_SETFL arms it only when the flag changes. */
	what = "F_SETFL O_ASYNC";
	int fl = fcntl(fd, F_GETFL);
	if (fo->async && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_ASYNC) || fcntl(fd, F_SETFL, fl | O_ASYNC)))
		goto fail;
	return 0;
fail:
	snprintf(msg, len, "fd %d: %s (owner type %u pid %d signal %u): %s", fd, what, fo->type, owner,
		 fo->signum, strerror(errno));
	return -1;
}
