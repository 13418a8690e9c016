/* Restore of files in flight in unix sockets' receive queues (SCM_RIGHTS; see sk-unix.h), parent side,
 * before the sharing passes: each carried file is made once in crshim by the sharing code of its kind, and
 * every entry of the tree of the same file becomes FILE_INHERIT of it. restore-sk-unix.c sends them with
 * the messages; the sharing passes' done functions close crshim's copies once the tree is created. */
#define LOG_PREFIX "restore-sk-scm: "
#include <errno.h>
#include <stdlib.h>

#include "base/log.h"
#include "files/fdshare.h"
#include "restore.h"
#include "files/fd-kind.h"
#include "net/sk-unix.h"

/* Task k's entry i is the first of its unix socket in the tree (the one restore-sk-unix.c makes from). */
static bool first_of_socket(const struct rst_task *ts, size_t k, size_t i)
{
	uint32_t ino = ts[k].files[i]->unix_sk->ino;
	for (size_t q = 0; q <= k; q++)
		for (size_t j = 0; j < (q == k ? i : ts[q].nr_files); j++) {
			const FileEntry *g = ts[q].files[j];
			if (g->kind == FILE_KIND__FILE_UNIXSK && g->unix_sk && g->unix_sk->ino == ino)
				return false;
		}
	return true;
}

/* Carried file f of task t: made once here (unix sockets: by restore-sk-unix.c); dry: only checked. */
static int make_once(struct rst_task *ts, size_t n, const struct rst_task *t, FileEntry *f, bool dry,
		     struct cr_err *e)
{
	if (f->kind == FILE_KIND__FILE_INHERIT) /* made already, for an earlier socket */
		return 0;
	const struct fd_kind *k = fd_kind_of(f->kind);
	if (!k || !k->flight)
		return cr_fail_errno(e, ENOTSUP, "file id %u of kind %d cannot be made in flight", f->id,
				     f->kind);
	if (k->flight_check && k->flight_check(ts, n, t, f, e))
		return -1;
	return dry ? 0 : k->flight(ts, n, t, f, e);
}

static int prepare_socket(struct rst_task *ts, size_t n, struct rst_task *t, const UnixSkEntry *u, bool dry,
			  struct cr_err *e)
{
	size_t nf = 0;
	for (size_t m = 0; u->queue_saved && m < u->n_queue; m++)
		for (size_t j = 0; j < u->queue[m]->n_fds; j++, nf++) {
			const struct rst_task *o = t;
			FileEntry *f = rst_sk_scm_find(t, u->queue[m]->fds[j], &o);
			if (!f)
				return cr_fail_errno(
				    e, EBADMSG,
				    "socket:[%u]: file id %#x in flight is not in the files of "
				    "task %d",
				    u->ino, u->queue[m]->fds[j], t->pid);
			if (make_once(ts, n, o, f, dry, e))
				return cr_wrap(e, "socket:[%u]: a file in flight", u->ino);
		}
	if (nf)
		pr_info("socket:[%u]: %zu files in flight %s\n", u->ino, nf, dry ? "can be made" : "made");
	return 0;
}

static int each_socket(struct rst_task *ts, size_t n, bool dry, struct cr_err *e)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *f = ts[k].files[i];
			if (f->kind != FILE_KIND__FILE_UNIXSK || !f->unix_sk || !first_of_socket(ts, k, i))
				continue;
			if (prepare_socket(ts, n, &ts[k], f->unix_sk, dry, e))
				return cr_wrap(e, "task %d", ts[k].pid);
		}
	return 0;
}

int rst_sk_scm_prepare(struct rst_task *ts, size_t n, struct cr_err *e)
{
	return each_socket(ts, n, false, e);
}

int rst_sk_scm_check(struct rst_task *ts, size_t n, struct cr_err *e)
{
	return each_socket(ts, n, true, e);
}
