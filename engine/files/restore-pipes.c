/* Restore of pipes and FIFOs (see pipes.h). Parent side: the checks (--inherit-fd: inherit-fd.c). Child side
 * (called by restore-files.c for each pipe end or FIFO open, in fd order): one new pipe per identity (or a
 * helper O_RDWR open of a FIFO), its size, the data in flight, then the end dup'ed to the fd. The helper
 * ends live above the task's fds until every fd is in place. */
#define LOG_PREFIX "restore-pipes: "
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/scm.h"
#include "files/fdshare.h"
#include "files/ghost.h"
#include "files/fd-kind.h"
#include "files/pipes.h"
#include "restore.h"

#ifndef F_GETPIPE_SZ
#define F_GETPIPE_SZ 1032
#define F_SETPIPE_SZ 1031
#endif

/* ---------------------------------------------------------------- parent: checks */

static int check_entry(const struct rst_task *t, const FileEntry *f, struct cr_err *e)
{
	struct stat st;
	if (!f->pipe || !f->pipe->has_pipe_id || !f->pipe->has_flags)
		return cr_fail_errno(e, EBADMSG, "files.img: pipe file id %u has no pipe identity or flags",
				     f->id);
	if (f->pipe->data.len > f->pipe->pipe_size && f->pipe->pipe_size)
		return cr_fail_errno(e, EBADMSG, "files.img: pipe file id %u holds more data than its size",
				     f->id);
	if (f->kind != FILE_KIND__FILE_FIFO)
		return 0;
	if (!f->reg || !f->reg->path)
		return cr_fail_errno(e, EBADMSG, "files.img: FIFO file id %u has no path", f->id);
	if (f->reg->deleted) { /* recreated (and unlinked again) in its directory */
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s", f->reg->path);
		char *slash = strrchr(dir, '/');
		if (slash)
			*(slash == dir ? slash + 1 : slash) = '\0';
		int r = slash ? rst_path_stat(t, dir, &st, true) : -1; /* 1: in the restored mount tree */
		if (r < 0 || (!r && !S_ISDIR(st.st_mode)))
			return cr_fail_errno(e, ENOENT, "unlinked FIFO %s: its directory %s is missing",
					     f->reg->path, dir);
		return 0;
	}
	int r = rst_path_stat(t, f->reg->path, &st, true); /* 1: opened in the restored mount tree */
	if (r < 0)
		return cr_fail_sys(e, "FIFO %s", f->reg->path);
	if (!r && !S_ISFIFO(st.st_mode))
		return cr_fail_errno(e, EINVAL, "%s is not a FIFO any more", f->reg->path);
	return 0;
}

int rst_pipes_prepare(const struct cr_opts *o, struct rst_task *t, struct cr_err *e)
{
	(void)o; /* --inherit-fd fd[N]:pipe:[INODE]: engine/inherit-fd.c, before this */
	for (size_t i = 0; i < t->nr_files; i++) {
		const FileEntry *f = t->files[i];
		if ((f->kind == FILE_KIND__FILE_PIPE || f->kind == FILE_KIND__FILE_FIFO) &&
		    check_entry(t, f, e))
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- child: the pipes */

/* State of the restore child (one per process, single-threaded): the pipes made so far. */
struct rpipe {
	uint64_t id, dev;
	bool fifo;
	int rfd, wfd; /* helper ends >= lo (a FIFO: both the same O_RDWR open) */
	bool rused, wused;
};
static struct rpipe *rpipes;
static size_t nr_rpipes, cap_rpipes;

/* The data in flight of pipe id: on whichever entry of the pipe carries it. */
static const PipeEntry *pipe_data(const struct rst_task *t, const PipeEntry *pe)
{
	for (size_t i = 0; i < t->nr_files; i++) {
		const PipeEntry *q = t->files[i]->pipe;
		if (q && q->pipe_id == pe->pipe_id && q->dev == pe->dev && q->data_saved && q->data.len)
			return q;
	}
	return NULL;
}

/* The data of d into the pipe of wfd: as it was, one write per message for a packet-mode pipe (the write
 * end is O_DIRECT for that; the caller sets each fd's own flags afterwards). Returns the bytes written,
 * -1 with errno. */
static ssize_t write_data(int wfd, const PipeEntry *d)
{
	size_t sum = 0, off = 0;
	for (size_t i = 0; i < d->n_packets; i++)
		sum += d->packets[i];
	bool packets = d->n_packets && sum == d->data.len;
	int fl = fcntl(wfd, F_GETFL);
	if (packets && (fl < 0 || fcntl(wfd, F_SETFL, fl | O_DIRECT) < 0))
		return -1;
	for (size_t i = 0; off < d->data.len;) {
		size_t chunk = packets ? d->packets[i] : d->data.len - off;
		ssize_t n = write(wfd, d->data.data + off, chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (packets && (size_t)n != chunk))
			break;
		off += (size_t)n;
		i++;
	}
	if (packets && fcntl(wfd, F_SETFL, fl) < 0)
		return -1;
	return (ssize_t)off;
}

static int fill(const struct rst_task *t, const PipeEntry *pe, int wfd, char *msg, size_t len)
{
	if (pe->pipe_size && fcntl(wfd, F_GETPIPE_SZ) != (int)pe->pipe_size &&
	    fcntl(wfd, F_SETPIPE_SZ, pe->pipe_size) < 0)
		return rst_errmsg(msg, len, "pipe:[%" PRIu64 "]: set its size to %u", pe->pipe_id,
				  pe->pipe_size);
	const PipeEntry *d = pipe_data(t, pe);
	if (!d)
		return 0;
	/* EAGAIN: more data than the pipe takes (no blocking: the write end is O_NONBLOCK here) */
	ssize_t off = write_data(wfd, d);
	if (off != (ssize_t)d->data.len)
		return rst_errmsg(msg, len, "pipe:[%" PRIu64 "]: write back %zu bytes in flight (%zd done)",
				  pe->pipe_id, d->data.len, off);
	return 0;
}

static struct rpipe *new_rpipe(const FileEntry *f, char *msg, size_t len)
{
	if (nr_rpipes == cap_rpipes) {
		size_t ncap = cap_rpipes ? cap_rpipes * 2 : 8;
		struct rpipe *n = realloc(rpipes, ncap * sizeof(*n));
		if (!n) {
			errno = ENOMEM;
			rst_errmsg(msg, len, "pipes");
			return NULL;
		}
		rpipes = n;
		cap_rpipes = ncap;
	}
	struct rpipe *rp = &rpipes[nr_rpipes];
	*rp = (struct rpipe){.id = f->pipe->pipe_id,
			     .dev = f->pipe->dev,
			     .fifo = f->kind == FILE_KIND__FILE_FIFO,
			     .rfd = -1,
			     .wfd = -1};
	return rp;
}

/* The helper O_RDWR open of the FIFO of f (never blocks). An unlinked FIFO is made again where it was
 * (or next to it, if that name is taken now), opened and unlinked. */
static int open_fifo(const FileEntry *f, int lo, char *msg, size_t len)
{
	const RegFileEntry *r = f->reg;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s", r->path);
	if (r->deleted && mkfifo(path, 0600)) {
		if (errno != EEXIST)
			return rst_errmsg(msg, len, "make unlinked FIFO %s again", r->path);
		snprintf(path, sizeof(path), "%s.crshim-%d", r->path, (int)getpid());
		if (mkfifo(path, 0600))
			return rst_errmsg(msg, len, "make unlinked FIFO %s again (as %s)", r->path, path);
	}
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	int saved = errno;
	if (r->deleted) { /* (its owner before its mode: a chown drops set-id bits) */
		if (fd >= 0 && r->has_uid && r->has_gid && fchown(fd, r->uid, r->gid)) {
			saved = errno;
			close(fd);
			fd = -1;
		}
		if (fd >= 0 && r->has_mode)
			fchmod(fd, r->mode & 07777);
		unlink(path);
	}
	errno = saved;
	if (fd < 0 || (fd = rst_fd_above(fd, lo)) < 0)
		return rst_errmsg(msg, len, "open FIFO %s (owner %u:%u)", path, r->uid, r->gid);
	return fd;
}

/* An unlinked FIFO's atime and mtime again, once its data is back in it (the write gave it new ones) */
static void fifo_times(const RegFileEntry *r, int fd)
{
	struct timespec ts[2];
	rst_times_ns(ts, r->has_atime_ns, r->atime_ns, r->has_mtime_ns, r->mtime_ns);
	if ((r->has_atime_ns || r->has_mtime_ns) && futimens(fd, ts))
		pr_warn("unlinked FIFO %s: set its times: %s\n", r->path, strerror(errno));
}

/* Make the pipe of f (its first fd): a new pipe, or a helper O_RDWR open of the FIFO; size and data. */
static struct rpipe *make_pipe(const struct rst_task *t, int lo, const FileEntry *f, char *msg, size_t len)
{
	struct rpipe *rp = new_rpipe(f, msg, len);
	if (!rp)
		return NULL;
	if (rp->fifo) {
		if ((rp->rfd = open_fifo(f, lo, msg, len)) < 0)
			return NULL;
		rp->wfd = rp->rfd;
	} else {
		int p[2];
		if (pipe2(p, O_CLOEXEC | O_NONBLOCK)) { /* each fd gets its own flags later */
			rst_errmsg(msg, len, "pipe");
			return NULL;
		}
		rp->rfd = rst_fd_above(p[0], lo);
		rp->wfd = rst_fd_above(p[1], lo);
		if (rp->rfd < 0 || rp->wfd < 0) {
			rst_errmsg(msg, len, "pipe: move above fd %d", lo);
			return NULL;
		}
	}
	nr_rpipes++;
	if (fill(t, f->pipe, rp->wfd, msg, len))
		return NULL;
	if (rp->fifo && f->reg->deleted)
		fifo_times(f->reg, rp->rfd);
	return rp;
}

static struct rpipe *find_pipe(const FileEntry *f)
{
	for (size_t i = 0; i < nr_rpipes; i++)
		if (rpipes[i].id == f->pipe->pipe_id && rpipes[i].dev == f->pipe->dev &&
		    rpipes[i].fifo == (f->kind == FILE_KIND__FILE_FIFO))
			return &rpipes[i];
	return NULL;
}

/* An open file description for f: the pipe's end itself the first time, a new open of it through
 * /proc/self/fd for another description of the same end (or any FIFO open, by path). -1 on error. */
static int end_for(struct rpipe *rp, const FileEntry *f, bool *fresh)
{
	int flags = (int)(f->pipe->flags & ~(uint32_t)RST_OPEN_DROP_FLAGS);
	*fresh = true;
	if (rp->fifo && !f->reg->deleted)
		return open(f->reg->path, flags | O_NOCTTY);
	char rel[32];	/* (through crshim's /proc in a mount tree without one: files/ghost.h) */
	if (rp->fifo) { /* unlinked: another open of our helper's FIFO */
		snprintf(rel, sizeof(rel), "fd/%d", rp->rfd);
		return rst_self_proc_open(rel, flags | O_NOCTTY);
	}
	bool wr = (flags & O_ACCMODE) == O_WRONLY;
	bool *used = wr ? &rp->wused : &rp->rused;
	int src = wr ? rp->wfd : rp->rfd;
	if (!*used) {
		*used = true;
		*fresh = false;
		return src;
	}
	snprintf(rel, sizeof(rel), "fd/%d", src);
	return rst_self_proc_open(rel, (flags & ~O_ACCMODE) | (wr ? O_WRONLY : O_RDONLY) | O_NONBLOCK);
}

int rst_pipe_open(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		  size_t len)
{
	const PipeEntry *pe = f->pipe;
	struct rpipe *rp = find_pipe(f);
	if (!rp && !(rp = make_pipe(t, lo, f, msg, len)))
		return -1;
	bool fresh;
	int src = end_for(rp, f, &fresh);
	if (src < 0)
		return rst_errmsg(msg, len, "fd %d: open %s of pipe:[%" PRIu64 "]", fi->fd,
				  rp->fifo ? f->reg->path : "another end", pe->pipe_id);
	/* a fresh description is moved to its number; the pipe's own end is copied (it is ours) */
	if (fresh ? rst_fd_at(src, fi->fd, msg, len) : src != fi->fd && dup2(src, fi->fd) < 0)
		return rst_errmsg(msg, len, "fd %d: dup2 of pipe:[%" PRIu64 "]", fi->fd, pe->pipe_id);
	/* status flags (O_NONBLOCK, O_DIRECT = packet mode, O_ASYNC) of this open file description */
	if (fcntl(fi->fd, F_SETFL, (int)(pe->flags & ~(uint32_t)O_ACCMODE)) < 0)
		return rst_errmsg(msg, len, "fd %d: set flags %#o of pipe:[%" PRIu64 "]", fi->fd, pe->flags,
				  pe->pipe_id);
	return 0;
}

void rst_pipes_done(void)
{
	for (size_t i = 0; i < nr_rpipes; i++) {
		close(rpipes[i].rfd);
		if (rpipes[i].wfd != rpipes[i].rfd)
			close(rpipes[i].wfd);
	}
	free(rpipes);
	rpipes = NULL;
	nr_rpipes = cap_rpipes = 0;
}

/* ---------------------------------------------------------------- parent: pipes shared by processes */

/* The status flags crshim sets on its end of a shared pipe: not O_ASYNC, which the process holding it sets
 * through its own number (rst_fown_apply): the signal's si_fd is the number O_ASYNC was set through. */
static int shared_fl(uint32_t flags)
{
	return (int)(flags & ~(uint32_t)(O_ACCMODE | O_ASYNC));
}

/* A pipe held by several processes of the tree is made once, here in crshim, before the root is cloned:
 * every process inherits it through clone3 and takes its ends as FILE_INHERIT (one open file description
 * per end, as after a fork). crshim's copies are closed by rst_pipes_share_done. */
struct shared_pipe {
	uint64_t id, dev;
	int rfd, wfd;
	uint32_t rdesc, wdesc; /* file_entry.tree_desc of the descriptions rfd, wfd are (0: not known yet) */
	struct more_desc {
		uint32_t desc;
		int fd;
	} * more; /* other descriptions of an end: reopens of it through /proc/self/fd (as many as there are)
		   */
	size_t nr_more;
	bool dry; /* a dry run's (restore-check.c): nothing made, every fd -1 */
};
static struct shared_pipe *shared;
static size_t nr_shared;

/* How many processes hold the pipe (or FIFO) of pe (entries already made FILE_INHERIT count too). */
static size_t holders(const struct rst_task *ts, size_t n, const PipeEntry *pe, bool fifo)
{
	size_t h = 0;
	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *f = ts[k].files[i];
			if (f->pipe && (f->kind == FILE_KIND__FILE_FIFO) == fifo &&
			    f->pipe->pipe_id == pe->pipe_id && f->pipe->dev == pe->dev) {
				h++;
				break;
			}
		}
	}
	return h;
}

/* The first entry (over all processes) of this pipe with data (acc < 0) or with the end acc; NULL if none. */
static const PipeEntry *first_entry(const struct rst_task *ts, size_t n, const PipeEntry *pe, int acc)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const PipeEntry *q = ts[k].files[i]->pipe;
			if (!q || q->pipe_id != pe->pipe_id || q->dev != pe->dev)
				continue;
			if (acc < 0 ? (q->data_saved && q->data.len) : (int)(q->flags & O_ACCMODE) == acc)
				return q;
		}
	return NULL;
}

static int make_shared(const struct rst_task *ts, size_t n, const PipeEntry *pe, struct cr_err *e)
{
	struct shared_pipe *ns = realloc(shared, (nr_shared + 1) * sizeof(*ns));
	if (!ns)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	shared = ns;
	if (ts[0].dry) {
		shared[nr_shared++] = (struct shared_pipe){
		    .id = pe->pipe_id, .dev = pe->dev, .rfd = -1, .wfd = -1, .dry = true};
		return 0;
	}
	int p[2];
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return cr_fail_sys(e, "pipe");
	shared[nr_shared++] =
	    (struct shared_pipe){.id = pe->pipe_id, .dev = pe->dev, .rfd = p[0], .wfd = p[1]};
	if (pe->pipe_size && fcntl(p[1], F_SETPIPE_SZ, pe->pipe_size) < 0)
		return cr_fail_sys(e, "pipe:[%" PRIu64 "]: set its size to %u", pe->pipe_id, pe->pipe_size);
	const PipeEntry *d = first_entry(ts, n, pe, -1);
	if (d && write_data(p[1], d) != (ssize_t)d->data.len)
		return cr_fail_sys(e, "pipe:[%" PRIu64 "]: write back %zu bytes in flight", pe->pipe_id,
				   d->data.len);
	const PipeEntry *r = first_entry(ts, n, pe, O_RDONLY), *w = first_entry(ts, n, pe, O_WRONLY);
	if (fcntl(p[0], F_SETFL, r ? shared_fl(r->flags) : 0) < 0 ||
	    fcntl(p[1], F_SETFL, w ? shared_fl(w->flags) : 0) < 0)
		return cr_fail_sys(e, "pipe:[%" PRIu64 "]: set flags", pe->pipe_id);
	pr_info("pipe:[%" PRIu64 "] is shared by processes of the tree: made once (fds %d, %d), %zu bytes\n",
		pe->pipe_id, p[0], p[1], d ? d->data.len : (size_t)0);
	return 0;
}

static struct shared_pipe *find_shared(const PipeEntry *pe)
{
	for (size_t i = 0; i < nr_shared; i++)
		if (shared[i].id == pe->pipe_id && shared[i].dev == pe->dev)
			return &shared[i];
	return NULL;
}

/* crshim's fd of the description of f (tree_desc, as kcmp found them at dump): the end itself for the
 * first description of that end, a reopen of it for each other one (its own status flags). */
static int desc_fd(struct shared_pipe *sp, const FileEntry *f, int *out, struct cr_err *e)
{
	bool wr = (f->pipe->flags & O_ACCMODE) == O_WRONLY;
	uint32_t *first = wr ? &sp->wdesc : &sp->rdesc, d = f->has_tree_desc ? f->tree_desc : 0;
	*out = wr ? sp->wfd : sp->rfd;
	if (!d || !*first || *first == d) { /* (an image without tree_desc: one description per end) */
		*first = d;
		return 0;
	}
	for (size_t i = 0; i < sp->nr_more; i++)
		if (sp->more[i].desc == d) {
			*out = sp->more[i].fd;
			return 0;
		}
	struct more_desc *nm = realloc(sp->more, (sp->nr_more + 1) * sizeof(*nm));
	if (!nm)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	sp->more = nm;
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", *out);
	int fd = sp->dry ? -1 : open(path, (wr ? O_WRONLY : O_RDONLY) | O_CLOEXEC | O_NONBLOCK);
	if (!sp->dry && (fd < 0 || fcntl(fd, F_SETFL, shared_fl(f->pipe->flags)) < 0)) {
		if (fd >= 0)
			close(fd);
		return cr_fail_sys(e, "pipe:[%" PRIu64 "]: another description of an end", sp->id);
	}
	sp->more[sp->nr_more].desc = d, sp->more[sp->nr_more++].fd = fd;
	*out = fd;
	return 0;
}

/* An entry of a shared pipe (of task t) becomes FILE_INHERIT of crshim's end (or of its own description of
 * it). */
static int inherit_shared(const struct rst_task *t, FileEntry *f, struct shared_pipe *sp, struct cr_err *e)
{
	char desc[48];
	int fd;
	snprintf(desc, sizeof(desc), "pipe:[%" PRIu64 "]", sp->id);
	return desc_fd(sp, f, &fd, e) ? -1 : rst_file_inherit(t, f, fd, desc, e);
}

/* ---------------------------------------------------------------- parent: FIFO descriptions shared */

/* A description of a FIFO held by several processes (file_entry.tree_desc) is opened once, like a regular
 * file's (restore-fdshare.c, through rst_fifo_open_desc), and inherited by each. The data in flight of the
 * FIFO, if that description's entries carry it, is written by whoever opens the description. */
static struct fifo_data {
	uint32_t desc;
	const PipeEntry *d;
} * fifo_data;
static size_t nr_fifo_data;

/* Unlinked FIFOs held by several processes (pipe id, dev): every description of each is opened once, from
 * one FIFO made again (its helper: fifo_helper), even a description only one process holds. The processes
 * that open its descriptions (its openers: crshim or the root task, and the owners of nested mount
 * namespaces) share it through chan: crshim puts one token there; the first opener to take it makes the
 * FIFO again and sends its helper to each other opener (SCM_RIGHTS), which opens its descriptions from
 * that. The first opener is not known beforehand (siblings in mount namespaces of their own), and none
 * waits for another that could be waiting for it: whoever holds the token is making the FIFO. */
static struct fifo_key {
	uint64_t id, dev;
	int helper; /* made again or taken from chan by this process (-1: not yet) */
	pid_t
	    *openers; /* 0: crshim or the root task (the root's mount namespace), else a namespace's owner */
	size_t nr_openers;
	uint32_t *descs; /* the descriptions counted already (rst_fifo_opener) */
	size_t nr_descs;
	int chan[2]; /* with two openers or more (else -1): [0] sends, [1] (O_NONBLOCK) receives */
} * fifo_all;
static size_t nr_fifo_all;

#define FIFO_CHAN_WAIT_MS 30000 /* the maker's word: it is making the FIFO now (only its death delays it) */

static struct fifo_key *fifo_all_find(const PipeEntry *pe)
{
	for (size_t i = 0; i < nr_fifo_all; i++)
		if (fifo_all[i].id == pe->pipe_id && fifo_all[i].dev == pe->dev)
			return &fifo_all[i];
	return NULL;
}

static bool fifo_is_opener(const struct fifo_key *k, pid_t opener)
{
	for (size_t i = 0; opener >= 0 && i < k->nr_openers; i++)
		if (k->openers[i] == opener)
			return true;
	return false;
}

/* The channel of k and its token, once k has a second opener. */
static int fifo_chan(struct fifo_key *k, struct cr_err *e)
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, k->chan))
		return cr_fail_sys(e, "socketpair for an unlinked FIFO");
	int fl = fcntl(k->chan[0], F_GETFL);
	if (fl < 0 || fcntl(k->chan[0], F_SETFL, fl & ~O_NONBLOCK) < 0 ||
	    scm_send(k->chan[0], &(struct iovec){"t", 1}, 1, NULL, 0) != 1) /* the token */
		return cr_fail_sys(e, "token of an unlinked FIFO");
	return 0;
}

int rst_fifo_opener(const FileEntry *f, pid_t opener, struct cr_err *e)
{
	struct fifo_key *k = rst_fifo_all_once(f) ? fifo_all_find(f->pipe) : NULL;
	if (!k)
		return 0;
	for (size_t i = 0; i < k->nr_descs; i++)
		if (k->descs[i] == f->tree_desc)
			return 0;
	uint32_t *nd = realloc(k->descs, (k->nr_descs + 1) * sizeof(*nd));
	if (!nd)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	k->descs = nd;
	k->descs[k->nr_descs++] = f->tree_desc;
	if (fifo_is_opener(k, opener))
		return 0;
	pid_t *no = realloc(k->openers, (k->nr_openers + 1) * sizeof(*no));
	if (!no)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	k->openers = no;
	k->openers[k->nr_openers++] = opener;
	if (k->nr_openers == 2 && fifo_chan(k, e))
		return -1;
	if (k->nr_openers >= 2)
		pr_info("unlinked FIFO %s: its descriptions are opened in %zu mount namespaces: made again "
			"once, by the first of their openers to come\n",
			f->reg->path, k->nr_openers);
	return 0;
}

bool rst_fifo_all_once(const FileEntry *f)
{
	return f->kind == FILE_KIND__FILE_FIFO && f->pipe && f->reg && f->reg->deleted &&
	       fifo_all_find(f->pipe);
}

/* Opened once for all its holders: a description of several processes of a FIFO that has a path, or any
 * description of an unlinked FIFO that several processes hold (from one FIFO made again: made again by each
 * process, the copies would be different FIFOs), when every entry of it has its description's number (an
 * older image: each process makes its own again). */
static bool fifo_once(const struct rst_task *ts, size_t n, const FileEntry *f)
{
	if (!f->has_tree_desc || !f->tree_desc)
		return false;
	if (!f->reg->deleted)
		return rst_fdshare_holders(ts, n, f->tree_desc) >= 2;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *g = ts[k].files[i];
			if (g->kind == FILE_KIND__FILE_FIFO && g->pipe &&
			    g->pipe->pipe_id == f->pipe->pipe_id && g->pipe->dev == f->pipe->dev &&
			    (!g->has_tree_desc || !g->tree_desc))
				return false;
		}
	return true; /* (held by several processes: rst_pipes_share) */
}

static int fifo_data_once(const struct rst_task *ts, size_t n, FileEntry *f, bool once, struct cr_err *e);

/* Entry f of a FIFO held by several processes: its data is written once, by the process of the first
 * entry that carries it, or by the opener of its description if that is opened once. An entry not opened
 * once loses its tree_desc (restore-fdshare.c leaves it to its process, which reopens it by path). */
static int fifo_share(const struct rst_task *ts, size_t n, FileEntry *f, struct cr_err *e)
{
	bool once = fifo_once(ts, n, f);
	if (!once)
		f->has_tree_desc = false;
	if (once && f->reg->deleted && !fifo_all_find(f->pipe)) {
		struct fifo_key *nk = realloc(fifo_all, (nr_fifo_all + 1) * sizeof(*nk));
		if (!nk)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		fifo_all = nk;
		fifo_all[nr_fifo_all++] = (struct fifo_key){
		    .id = f->pipe->pipe_id, .dev = f->pipe->dev, .helper = -1, .chan = {-1, -1}};
	}
	return fifo_data_once(ts, n, f, once, e);
}

/* The data of the FIFO of f is written once: by the opener of f's description (once) when f is its first
 * entry that carries it, else by the process of that entry; the other entries' copies are dropped. */
static int fifo_data_once(const struct rst_task *ts, size_t n, FileEntry *f, bool once, struct cr_err *e)
{
	const PipeEntry *d = first_entry(ts, n, f->pipe, -1);
	if (d != f->pipe || !d->data_saved)
		return 0;
	if (once) { /* (the pointer stays valid: the entries live until the restore ends) */
		struct fifo_data *nd = realloc(fifo_data, (nr_fifo_data + 1) * sizeof(*nd));
		if (!nd)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		fifo_data = nd;
		fifo_data[nr_fifo_data++] = (struct fifo_data){f->tree_desc, d};
	}
	/* cleared only now (first_entry finds the next one otherwise): every other entry is cleared as the
	 * loop reaches it, being not the first */
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			PipeEntry *q = ts[k].files[i]->pipe;
			if (q && q != f->pipe && q->pipe_id == d->pipe_id && q->dev == d->dev)
				q->data_saved = false;
		}
	f->pipe->data_saved = !once;
	return 0;
}

/* The helper of k from its channel, for opener (one of its openers): the FIFO made again by the first of
 * them, or made again here, if this is the first (then sent to each other one). -1 with errno, msg. */
static int fifo_from_chan(struct fifo_key *k, const FileEntry *f, char *msg, size_t len)
{
	char c;
	int fd = -1, fl = 0;
	size_t nfd = 0;
	struct iovec iov = {&c, 1};
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ssize_t r = scm_recv(k->chan[1], &iov, 1, &fd, 1, &nfd, &fl);
		/* the token ("t", no fd) or the FIFO ("f" and its fd); a FIFO whose fd was lost (MSG_CTRUNC)
		 * must not be taken for the token, which would make a second FIFO */
		if (r == 1 && !(fl & MSG_CTRUNC) && ((c == 't' && !nfd) || (c == 'f' && nfd == 1)))
			break;
		if (r == 1) {
			if (nfd)
				close(fd);
			errno = EPROTO;
			return rst_errmsg(msg, len,
					  "unlinked FIFO %s: a bad word from the first of its openers",
					  f->reg->path);
		}
		if (r >= 0 || (errno != EAGAIN && errno != EINTR)) {
			errno = r >= 0 ? EPROTO : errno;
			return rst_errmsg(msg, len, "unlinked FIFO %s: take it from the first of its openers",
					  f->reg->path);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		long left = FIFO_CHAN_WAIT_MS - (long)(now.tv_sec - t0.tv_sec) * 1000 -
			    (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (left <= 0) {
			errno = ETIMEDOUT;
			return rst_errmsg(msg, len, "unlinked FIFO %s: no word from the first of its openers",
					  f->reg->path);
		}
		poll(&(struct pollfd){.fd = k->chan[1], .events = POLLIN}, 1, (int)left);
	}
	if (c == 'f') {
		pr_info("unlinked FIFO %s: taken from the first of its openers (fd %d)\n", f->reg->path, fd);
		return fd;
	}
	int h = open_fifo(f, 0, msg, len);
	c = 'f';
	for (size_t i = 1; h >= 0 && i < k->nr_openers; i++)
		if (scm_send(k->chan[0], &iov, 1, &h, 1) != 1) {
			close(h);
			return rst_errmsg(msg, len, "unlinked FIFO %s: send it to the others of its openers",
					  f->reg->path);
		}
	if (h >= 0)
		pr_info("unlinked FIFO %s: made again here (fd %d), sent to the %zu other openers\n",
			f->reg->path, h, k->nr_openers - 1);
	return h;
}

/* The helper open (O_RDWR) of the FIFO of f, made again if it was unlinked: for an unlinked FIFO several
 * processes hold, the one made by the first of its descriptions opened here (or by another opener: opener
 * one of its openers, fifo_from_chan), kept until rst_fifo_helpers_close (*kept set); -1 with errno. */
static int fifo_helper(const FileEntry *f, pid_t opener, bool *kept)
{
	char msg[256] = "";
	struct fifo_key *k = f->reg->deleted ? fifo_all_find(f->pipe) : NULL;
	*kept = k != NULL;
	if (k && k->helper >= 0)
		return k->helper;
	int h = k && k->chan[1] >= 0 && fifo_is_opener(k, opener) ? fifo_from_chan(k, f, msg, sizeof(msg))
								  : open_fifo(f, 0, msg, sizeof(msg));
	if (h < 0)
		pr_err("%s\n", msg);
	else if (k)
		k->helper = h;
	return h;
}

void rst_fifo_helpers_close(void)
{
	for (size_t i = 0; i < nr_fifo_all; i++)
		if (fifo_all[i].helper >= 0) {
			close(fifo_all[i].helper);
			fifo_all[i].helper = -1;
		}
}

int rst_fifo_open_desc(const FileEntry *f, int flags, pid_t opener)
{
	bool kept;
	int h = fifo_helper(f, opener, &kept), fd = -1;
	if (h < 0)
		return -1;
	const PipeEntry *pe = f->pipe, *d = NULL;
	for (size_t i = 0; i < nr_fifo_data && !d; i++)
		d = fifo_data[i].desc == f->tree_desc ? fifo_data[i].d : NULL;
	char rel[32];
	snprintf(rel, sizeof(rel), "fd/%d", h);
	/* (O_NONBLOCK on the open: it never waits for a peer, the helper being one anyway; O_ASYNC is set by
	 * the holder, files/fown.c) */
	int st = (int)(pe->flags & ~(uint32_t)(O_ACCMODE | RST_OPEN_DROP_FLAGS));
	if (pe->pipe_size && fcntl(h, F_GETPIPE_SZ) != (int)pe->pipe_size &&
	    fcntl(h, F_SETPIPE_SZ, pe->pipe_size) < 0)
		goto out;
	errno = EIO; /* (a short write of the data: more than the FIFO takes) */
	if (d && write_data(h, d) != (ssize_t)d->data.len)
		goto out;
	if (f->reg->deleted)
		fifo_times(f->reg, h);
	flags = (flags & ~O_ASYNC) | O_NONBLOCK | O_CLOEXEC;
	fd = f->reg->deleted ? rst_self_proc_open(rel, flags) : open(f->reg->path, flags);
	if (fd >= 0 && fcntl(fd, F_SETFL, st) < 0) {
		int saved = errno;
		close(fd);
		fd = -1;
		errno = saved;
	}
	if (fd >= 0)
		pr_info("FIFO %s (flags %#o) is one open file description of several processes: opened once, "
			"%zu bytes in flight\n",
			f->reg->path, pe->flags, d ? d->data.len : (size_t)0);
out:;
	int saved = errno;
	if (!kept)
		close(h);
	errno = saved;
	return fd;
}

uint64_t rst_pipes_share_bytes(const struct rst_task *ts, size_t n)
{
	uint64_t b = 0;
	struct pipe_key {
		uint64_t id, dev;
	} *seen = NULL; /* (pipes counted or not shared: one scan of the tree each) */
	size_t ns = 0, cap = 0;
	for (size_t k = 0; k < n && n > 1; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *f = ts[k].files[i];
			const PipeEntry *pe = f->pipe;
			bool fifo = f->kind == FILE_KIND__FILE_FIFO, known = false;
			if (!pe || (f->kind != FILE_KIND__FILE_PIPE && !fifo) || !pe->data_saved ||
			    !pe->data.len)
				continue;
			for (size_t j = 0; j < ns && !known; j++)
				known = seen[j].id == pe->pipe_id && seen[j].dev == pe->dev;
			if (known)
				continue;
			if (ns == cap) {
				size_t nc = cap ? 2 * cap : 16;
				struct pipe_key *m = realloc(seen, nc * sizeof(*m));
				if (!m) { /* (the room check without the rest: the log says if it fails) */
					free(seen);
					return b;
				}
				seen = m, cap = nc;
			}
			seen[ns++] = (struct pipe_key){pe->pipe_id, pe->dev};
			/* (the data written back is this first entry's with data: counted once) */
			if (holders(ts, n, pe, fifo) > 1)
				b += pe->data.len;
		}
	free(seen);
	return b;
}

int rst_pipes_share(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t k = 0; k < n && n > 1; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			FileEntry *f = ts[k].files[i];
			bool fifo = f->kind == FILE_KIND__FILE_FIFO;
			if (!f->pipe || (f->kind != FILE_KIND__FILE_PIPE && !fifo))
				continue;
			/* made already: held by several (each holder's entry counted again made the tree's
			 * restore O(n^2) for a pipe all its processes hold) */
			struct shared_pipe *sp = fifo ? NULL : find_shared(f->pipe);
			if (!sp && holders(ts, n, f->pipe, fifo) < 2)
				continue;
			if (fifo) {
				if (fifo_share(ts, n, f, e))
					return -1;
				continue;
			}
			if (!sp && make_shared(ts, n, f->pipe, e))
				return cr_wrap(e, "task %d", ts[k].pid);
			if (inherit_shared(&ts[k], f, sp ? sp : &shared[nr_shared - 1], e))
				return -1;
		}
	return 0;
}

int rst_fifo_flight(struct rst_task *ts, size_t n, FileEntry *f, struct cr_err *e)
{
	if (!f->pipe || !f->reg)
		return cr_fail_errno(e, EBADMSG, "file id %u: no FIFO", f->id);
	if (!f->reg->deleted) /* opened by its path: its data by crshim, once */
		return fifo_data_once(ts, n, f, true, e) ? -1 : rst_fdshare_one(ts, n, f, e);
	/* every entry of its FIFO as rst_pipes_share does for one several processes hold (once) */
	for (size_t k = 0; !fifo_all_find(f->pipe) && k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			FileEntry *g = ts[k].files[i];
			if (g->kind == FILE_KIND__FILE_FIFO && g->pipe &&
			    g->pipe->pipe_id == f->pipe->pipe_id && g->pipe->dev == f->pipe->dev &&
			    fifo_share(ts, n, g, e))
				return -1;
		}
	return rst_fdshare_one(ts, n, f, e);
}

int rst_pipes_share_one(struct rst_task *ts, size_t n, const PipeEntry *pe, struct cr_err *e)
{
	struct shared_pipe *sp = find_shared(pe);
	if (!sp && make_shared(ts, n, pe, e))
		return -1;
	sp = sp ? sp : &shared[nr_shared - 1];
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			FileEntry *f = ts[k].files[i];
			if (f->kind == FILE_KIND__FILE_PIPE && f->pipe && f->pipe->pipe_id == sp->id &&
			    f->pipe->dev == sp->dev && inherit_shared(&ts[k], f, sp, e))
				return -1;
		}
	return 0;
}

void rst_pipes_share_done(void)
{
	for (size_t i = 0; i < nr_shared; i++) {
		if (!shared[i].dry) { /* (a dry run's: all or none) */
			close(shared[i].rfd);
			close(shared[i].wfd);
			for (size_t j = 0; j < shared[i].nr_more; j++)
				close(shared[i].more[j].fd);
		}
		free(shared[i].more);
	}
	free(shared);
	shared = NULL;
	nr_shared = 0;
	free(fifo_data);
	fifo_data = NULL;
	nr_fifo_data = 0;
	rst_fifo_helpers_close();
	for (size_t i = 0; i < nr_fifo_all; i++) {
		if (fifo_all[i].chan[0] >= 0)
			close(fifo_all[i].chan[0]), close(fifo_all[i].chan[1]);
		free(fifo_all[i].openers);
		free(fifo_all[i].descs);
	}
	free(fifo_all);
	fifo_all = NULL;
	nr_fifo_all = 0;
}
