/* The kinds of file that may be in flight in a unix socket (SCM_RIGHTS; see sk-unix.h) and how restore
 * makes each one once in crshim: one table, so that the dump accepts exactly what the restore can make. */
#include <errno.h>

#include "files/evfd.h"
#include "files/fdshare.h"
#include "files/pipes.h"
#include "restore.h"
#include "net/sk-unix.h"

/* Unix sockets are made by restore-sk-unix.c anyway. */
static int make_none(struct rst_task *ts, size_t n, const struct rst_task *t, FileEntry *f, struct cr_err *e)
{
	return 0;
}

static int make_pipe(struct rst_task *ts, size_t n, const struct rst_task *t, FileEntry *f, struct cr_err *e)
{
	return f->pipe ? rst_pipes_share_one(ts, n, f->pipe, e)
		       : cr_fail_errno(e, EBADMSG, "file id %u: no pipe", f->id);
}

static int make_desc(struct rst_task *ts, size_t n, const struct rst_task *t, FileEntry *f, struct cr_err *e)
{
	return rst_fdshare_one(ts, n, f, e);
}

/* Indexed by kind; a kind not listed cannot be in flight. */
static const sk_scm_make_fn kinds[] = {
    [FILE_KIND__FILE_REG] = make_desc,
    [FILE_KIND__FILE_CHR] = make_desc,
    [FILE_KIND__FILE_PIPE] = make_pipe,
    [FILE_KIND__FILE_UNIXSK] = make_none,
    [FILE_KIND__FILE_EVENTFD] = rst_evfd_share_one,
    [FILE_KIND__FILE_SIGNALFD] = rst_evfd_share_one,
    [FILE_KIND__FILE_TIMERFD] = rst_evfd_share_one,
    [FILE_KIND__FILE_MEMFD] = rst_evfd_share_one,
    [FILE_KIND__FILE_INOTIFY] = rst_evfd_share_one,
    [FILE_KIND__FILE_FANOTIFY] = rst_evfd_share_one,
};

sk_scm_make_fn sk_scm_kind(FileKind kind)
{
	return (unsigned)kind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[kind] : NULL;
}
