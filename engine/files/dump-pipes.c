/* Dump of pipes and FIFOs (see pipes.h): identity, end, flags, size, and the data in flight, peeked
 * with tee() so that the task (left running or not) loses nothing. */
#define LOG_PREFIX "dump-pipes: "
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "dump.h"
#include "files/fd-kind.h"
#include "files/pipes.h"

#ifndef F_GETPIPE_SZ
#define F_GETPIPE_SZ 1032
#define F_SETPIPE_SZ 1031
#endif

struct peeked {
	uint64_t ino, dev;
	uint8_t *data;
	size_t len;
	uint32_t *packets; /* sizes of the messages (packet mode), NULL if a byte stream */
	size_t npackets;
};

struct dump_pipes {
	pid_t pid;
	int pidfd; /* -1: no pidfd_getfd, use /proc/PID/fd/N */
	struct peeked *p;
	size_t n, cap;
};

int dump_pipes_init(pid_t pid, struct dump_pipes **out, struct cr_err *e)
{
	struct dump_pipes *dp = calloc(1, sizeof(*dp));
	if (!dp)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	dp->pid = pid;
	dp->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (dp->pidfd < 0)
		pr_info("pidfd_open(%d): %s: pipes are read through /proc/%d/fd\n", pid, strerror(errno),
			pid);
	*out = dp;
	return 0;
}

void dump_pipes_free(struct dump_pipes *dp)
{
	if (!dp)
		return;
	if (dp->pidfd >= 0)
		close(dp->pidfd);
	for (size_t i = 0; i < dp->n; i++) {
		free(dp->p[i].data);
		free(dp->p[i].packets);
	}
	free(dp->p);
	free(dp);
}

/* A copy of the task's fd: pidfd_getfd (same open file description); else, for a pipe, a new read-only
 * non-blocking open of it through /proc (another description of the same pipe: enough to peek and
 * to ask the size). */
static int take_fd(struct dump_pipes *dp, int fd, struct cr_err *e)
{
	if (dp->pidfd >= 0) {
		int cfd = (int)syscall(SYS_pidfd_getfd, dp->pidfd, fd, 0);
		if (cfd >= 0)
			return cfd;
		pr_info("pidfd_getfd(%d, fd %d): %s: falling back to /proc\n", dp->pid, fd, strerror(errno));
		close(dp->pidfd);
		dp->pidfd = -1;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", dp->pid, fd);
	int cfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (cfd < 0)
		return cr_fail_sys(e, "fd %d: open %s", fd, path);
	return cfd;
}

static bool peeked_already(const struct dump_pipes *dp, const struct stat *st)
{
	for (size_t i = 0; i < dp->n; i++)
		if (dp->p[i].ino == st->st_ino && dp->p[i].dev == st->st_dev)
			return true;
	return false;
}

/* Read all len bytes; each read() of a packet-mode pipe (O_DIRECT writer) returns one message, whose
 * size goes to pk[] (a byte stream comes in one read). */
static int read_all(int fd, uint8_t *buf, size_t len, uint32_t *pk, size_t *npk, struct cr_err *e)
{
	size_t got = 0;
	*npk = 0;
	while (got < len) {
		ssize_t r = read(fd, buf + got, len - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return cr_fail_errno(e, r < 0 ? errno : EIO,
					     "read the peeked pipe data (%zu of %zu bytes)", got, len);
		got += (size_t)r;
		pk[(*npk)++] = (uint32_t)r;
	}
	return 0;
}

/* The bytes in flight in the pipe of rfd (a read end), without consuming them: tee into a pipe of ours
 * as large as the task's, then read that. */
static int peek(int rfd, unsigned size, struct peeked *out, struct cr_err *e)
{
	int avail = 0;
	out->data = NULL;
	out->len = 0;
	out->packets = NULL;
	out->npackets = 0;
	if (ioctl(rfd, FIONREAD, &avail))
		return cr_fail_sys(e, "FIONREAD");
	if (avail <= 0)
		return 0;
	int p[2];
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return cr_fail_sys(e, "pipe");
	__cleanup_close int r = p[0], w = p[1];
	int got = fcntl(w, F_SETPIPE_SZ, size);
	if (got < 0 && (got = fcntl(w, F_SETPIPE_SZ, (unsigned)avail)) < 0)
		return cr_fail_sys(e, "F_SETPIPE_SZ %u for a copy of %d bytes in flight", size, avail);
	ssize_t n = tee(rfd, w, (size_t)avail, SPLICE_F_NONBLOCK);
	if (n < 0 && errno == EAGAIN)
		n = 0; /* taken by a reader outside the task meanwhile */
	if (n < 0)
		return cr_fail_sys(e, "tee %d bytes in flight", avail);
	if (n < avail)
		return cr_fail_errno(e, EIO,
				     "could copy only %zd of the %d bytes in flight (pipe size %u, ours %d)",
				     n, avail, size, got);
	uint8_t *buf = malloc((size_t)n + 1);
	uint32_t *pk = calloc((size_t)n + 1, sizeof(*pk));
	if (!buf || !pk || read_all(r, buf, (size_t)n, pk, &out->npackets, e)) {
		free(buf);
		free(pk);
		return buf && pk ? -1 : cr_fail_errno(e, ENOMEM, "out of memory");
	}
	out->data = buf;
	out->len = (size_t)n;
	out->packets = pk;
	return 0;
}

static int remember(struct dump_pipes *dp, const struct stat *st, struct peeked pk, struct cr_err *e)
{
	if (dp->n == dp->cap) {
		size_t ncap = dp->cap ? dp->cap * 2 : 8;
		struct peeked *np = realloc(dp->p, ncap * sizeof(*np));
		if (!np) {
			free(pk.data);
			free(pk.packets);
			return cr_fail_errno(e, ENOMEM, "out of memory");
		}
		dp->p = np;
		dp->cap = ncap;
	}
	pk.ino = st->st_ino, pk.dev = st->st_dev;
	dp->p[dp->n++] = pk;
	return 0;
}

/* Data of the pipe, once (on its first entry). */
static int fill_data(struct dump_pipes *dp, int fd, const struct stat *st, unsigned size, int read_fd,
		     uint32_t flags, PipeEntry *pe, struct cr_err *e)
{
	if (peeked_already(dp, st))
		return 0;
	if (read_fd < 0) {
		/* Readable (an O_RDONLY open of /proc/PID/fd/N gives a read end) but of no use: the reader is
		 * another process of the tree (which saves it), a process outside (the data stays in the old
		 * pipe for it; the restored pipe's read end is closed, or it is the --inherit-fd pipe), or
		 * nobody (nobody can ever read it). */
		int queued = 0;
		__cleanup_close int cfd = take_fd(dp, fd, e);
		if (cfd >= 0 && ioctl(cfd, FIONREAD, &queued))
			queued = 0;
		pr_info("fd %d: pipe:[%llu]: the task holds only its write end: the %d bytes in flight are "
			"left to "
			"its reader\n",
			fd, (unsigned long long)st->st_ino, queued);
		return remember(dp, st, (struct peeked){0}, e);
	}
	__cleanup_close int rfd = take_fd(dp, read_fd, e);
	if (rfd < 0)
		return -1;
	struct peeked pk;
	if (peek(rfd, size, &pk, e))
		return cr_wrap(e, "fd %d: pipe data", read_fd);
	if (remember(dp, st, pk, e))
		return -1;
	pe->data.data = pk.data, pe->data.len = pk.len, pe->has_data = 1;
	pe->data_saved = true, pe->has_data_saved = 1;
	/* more than one read: messages of a packet-mode pipe (one message: only known from O_DIRECT here) */
	if (pk.npackets > 1 || (pk.npackets && (flags & O_DIRECT)))
		pe->packets = pk.packets, pe->n_packets = pk.npackets;
	pr_debug("pipe:[%llu]: %zu bytes in flight (through fd %d), %zu messages\n",
		 (unsigned long long)st->st_ino, pk.len, read_fd, pe->n_packets);
	return 0;
}

int dump_pipe_fill(struct dump_pipes *dp, int fd, const struct stat *st, uint32_t flags, int read_fd,
		   PipeEntry *pe, struct cr_err *e)
{
	__cleanup_close int cfd = take_fd(dp, fd, e);
	if (cfd < 0)
		return -1;
	int size = fcntl(cfd, F_GETPIPE_SZ);
	if (size < 0)
		return cr_fail_sys(e, "fd %d: F_GETPIPE_SZ", fd);
	pe->pipe_id = st->st_ino, pe->has_pipe_id = 1;
	pe->dev = st->st_dev, pe->has_dev = 1;
	pe->flags = flags & ~(uint32_t)O_CLOEXEC, pe->has_flags = 1;
	pe->pipe_size = (uint32_t)size, pe->has_pipe_size = 1;
	return fill_data(dp, fd, st, (unsigned)size, read_fd, flags, pe, e);
}

/* ---------------------------------------------------------------- the kinds */

/* An fd of the task holding a read end (or an O_RDWR open) of the pipe of f, -1 if none. */
static int pipe_read_fd(const struct fd_src *f)
{
	for (size_t i = 0; i < f->nr_all; i++) {
		const struct fd_src *g = &f->all[i];
		if (g->st.st_ino == f->st.st_ino && g->st.st_dev == f->st.st_dev && S_ISFIFO(g->st.st_mode) &&
		    (g->fi.flags & O_ACCMODE) != O_WRONLY)
			return g->fd;
	}
	return -1;
}

static bool is_pipe(const struct dump_ctx *c, const struct fd_src *f)
{
	return S_ISFIFO(f->st.st_mode) && !(f->fi.flags & O_PATH) && fd_has_prefix(f->link, "pipe:");
}

static bool is_fifo(const struct dump_ctx *c, const struct fd_src *f)
{
	return S_ISFIFO(f->st.st_mode) && !(f->fi.flags & O_PATH) && f->link[0] == '/';
}

/* id (as crshim sees it) as pid's user namespace has it (its /proc/PID/uid_map or gid_map: "inside outside
 * count"), which its process sets again at restore in a tree born in its user namespace (restore-pipes.c
 * open_fifo): -1 if it has none. */
static int owner_in_ns(pid_t pid, const char *map, uint32_t id, uint32_t *in_ns)
{
	char p[64];
	unsigned long in, out, cnt;
	snprintf(p, sizeof(p), "/proc/%d/%s", (int)pid, map);
	__cleanup_fclose FILE *f = fopen(p, "re");
	while (f && fscanf(f, "%lu %lu %lu", &in, &out, &cnt) == 3)
		if (id >= out && id - out < cnt) {
			*in_ns = (uint32_t)(in + (id - out));
			return 0;
		}
	return -1;
}

/* A pipe end (FILE_PIPE) or an open of a FIFO by path (FILE_FIFO; an unlinked FIFO: its old path, deleted,
 * and f->link loses its " (deleted)"). */
static int dump_pipe(struct dump_ctx *c, struct fd_src *f, void **state, FileEntry *fe, struct cr_err *e)
{
	bool fifo = f->link[0] == '/';
	bool deleted = fifo && fd_is_deleted(f->link) && f->st.st_nlink == 0;
	struct dump_pipes **dp = (struct dump_pipes **)state;
	PipeEntry *pe = malloc(sizeof(*pe));
	if (!pe)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	pipe_entry__init(pe);
	f->priv = pe;
	if (!*dp && dump_pipes_init(f->pid, dp, e))
		return -1;
	if (dump_pipe_fill(*dp, f->fd, &f->st, f->fi.flags, pipe_read_fd(f), pe, e))
		return cr_wrap(e, "fd %d (%s)", f->fd, f->link);
	fe->pipe = pe;
	fe->kind = fifo ? FILE_KIND__FILE_FIFO : FILE_KIND__FILE_PIPE, fe->has_kind = 1;
	if (fifo) {
		RegFileEntry *re = &f->reg;
		if (deleted)
			f->link[strlen(f->link) - strlen(" (deleted)")] = '\0';
		re->deleted = deleted, re->has_deleted = 1;
		re->path = f->link;
		re->flags = f->fi.flags & ~(uint32_t)O_CLOEXEC, re->has_flags = 1;
		re->mode = f->st.st_mode, re->has_mode = 1;
		/* (as its process sets it: in its user namespace when the tree is born in it, else crshim's)
		 */
		re->uid = f->st.st_uid, re->gid = f->st.st_gid;
		if (deleted && c->born &&
		    (owner_in_ns(f->pid, "uid_map", f->st.st_uid, &re->uid) ||
		     owner_in_ns(f->pid, "gid_map", f->st.st_gid, &re->gid)))
			return cr_fail(
			    e,
			    "not supported yet: fd %d: deleted FIFO %s is owned by %u:%u, not mapped in "
			    "the process's user namespace",
			    f->fd, f->link, f->st.st_uid, f->st.st_gid);
		re->has_uid = re->has_gid = deleted;
		re->atime_ns =
		    (uint64_t)f->st.st_atim.tv_sec * 1000000000ull + (uint64_t)f->st.st_atim.tv_nsec;
		re->mtime_ns =
		    (uint64_t)f->st.st_mtim.tv_sec * 1000000000ull + (uint64_t)f->st.st_mtim.tv_nsec;
		re->has_atime_ns = re->has_mtime_ns = deleted;
		fe->reg = re;
	}
	return 0;
}

static void release_pipe(FileEntry *fe, struct fd_src *f)
{
	free(f->priv);
	f->priv = NULL;
	fe->pipe = NULL;
}

static void free_pipes(void *state)
{
	dump_pipes_free(state);
}

static int open_pipe(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		     size_t len)
{
	return rst_pipe_open(t, lo, f, fi, msg, len);
}

static int flight_pipe(struct rst_task *ts, size_t n, const struct rst_task *t, FileEntry *f,
		       struct cr_err *e)
{
	return f->pipe ? rst_pipes_share_one(ts, n, f->pipe, e)
		       : cr_fail_errno(e, EBADMSG, "file id %u: no pipe", f->id);
}

/* An open file description of a FIFO in flight (an unlinked one too): rst_fifo_flight (restore-pipes.c)
 */
static int flight_fifo(struct rst_task *ts, size_t n, const struct rst_task *t, FileEntry *f,
		       struct cr_err *e)
{
	return rst_fifo_flight(ts, n, f, e);
}

/* (their entries are checked by rst_pipes_prepare) */
FD_KIND(fdk_pipe) = {
    .name = "pipe",
    .kind = FILE_KIND__FILE_PIPE,
    .prio = 10,
    .is = is_pipe,
    .dump = dump_pipe,
    .tree_desc = true, /* several descriptions of one end in a shared pipe (restore-pipes.c) */
    .release = release_pipe,
    .free_state = free_pipes,
    .open = open_pipe,
    .child_done = rst_pipes_done,
    .flight = flight_pipe,
};

FD_KIND(fdk_fifo) = {
    .name = "FIFO",
    .kind = FILE_KIND__FILE_FIFO,
    .prio = 11,
    .is = is_fifo,
    .dump = dump_pipe,
    .tree_desc = true, /* one description held by several processes (restore-fdshare.c) */
    .release = release_pipe,
    .free_state = free_pipes,
    .open = open_pipe,
    .flight = flight_fifo,
};
