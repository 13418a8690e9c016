/* File owner and signal (see fown.h). */
#define LOG_PREFIX "fown: "
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "files/evfd.h"
#include "files/fown.h"
#include "base/log.h"

int dump_fown(pid_t pid, int fd, uint32_t flags, FileEntry *fe, FownEntry *fo, struct cr_err *e)
{
	struct f_owner_ex own = {0};
	if (flags & O_PATH) /* no owner on an O_PATH open (fcntl refuses) */
		return 0;
	__cleanup_close int cfd = dump_evfd_take(pid, fd, e);
	if (cfd < 0)
		return cr_wrap(e, "fd %d: owner", fd);
	int sig = fcntl(cfd, F_GETSIG);
	if (fcntl(cfd, F_GETOWN_EX, &own) || sig < 0)
		return cr_fail_sys(e, "fd %d: F_GETOWN_EX/F_GETSIG", fd);
	if (!own.pid && !sig && !(flags & O_ASYNC))
		return 0;
	fo->type = (uint32_t)own.type, fo->has_type = 1;
	fo->pid = own.pid, fo->has_pid = 1;
	fo->signum = (uint32_t)sig, fo->has_signum = 1;
	fo->async = !!(flags & O_ASYNC), fo->has_async = 1;
	fe->fown = fo;
	pr_info("fd %d: owner type %d pid %d, signal %d%s\n", fd, own.type, own.pid, sig,
		fo->async ? ", O_ASYNC" : "");
	return 0;
}

int rst_fown_apply(const FileEntry *f, int fd, pid_t owner, char *msg, size_t len)
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
	if (owner && fcntl(fd, F_SETOWN_EX, &own) && errno != ESRCH)
		goto fail;
	what = "F_SETFL O_ASYNC";
	int fl = fcntl(fd, F_GETFL);
	if (fo->async && (fl < 0 || fcntl(fd, F_SETFL, fl | O_ASYNC)))
		goto fail;
	return 0;
fail:
	snprintf(msg, len, "fd %d: %s (owner type %u pid %d signal %u): %s", fd, what, fo->type, owner,
		 fo->signum, strerror(errno));
	return -1;
}
