/* Dump of file descriptors: files.img (open file descriptions) and fdinfo-PID.img (fd -> description). */
#define LOG_PREFIX "dump-files: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/kcmp.h>

#include "base/cleanup.h"
#include "dump.h"
#include "files/evfd.h"
#include "files/fdshare.h"
#include "files/fown.h"
#include "files/ghost.h"
#include "files/inherit-fd.h"
#include "base/log.h"
#include "files/pipes.h"
#include "net/sk-inet.h"
#include "files/tty.h"
#include "net/sk-unix.h"

struct dfd {
	int fd;
	uint32_t id; /* file_entry id */
	bool dup;    /* same description as an earlier fd */
	char *link;
	char *old; /* a deleted file reopened by another link: its deleted name */
	struct stat st;
	struct proc_fdinfo fi;
};

static int cmp_int(const void *a, const void *b)
{
	return ((const struct dfd *)a)->fd - ((const struct dfd *)b)->fd;
}

static void free_fds(struct dfd *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].link);
		free(f[i].old);
	}
	free(f);
}

static int collect_fds(struct dump_ctx *c, struct dfd **out, size_t *nout, struct cr_err *e)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd", c->pid);
	__cleanup_closedir DIR *d = opendir(path);
	if (!d)
		return cr_fail_sys(e, "open %s", path);
	struct dfd *f = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			struct dfd *nf = realloc(f, cap * sizeof(*nf));
			if (!nf) {
				free_fds(f, n);
				return cr_fail_errno(e, ENOMEM, "out of memory");
			}
			f = nf;
		}
		memset(&f[n], 0, sizeof(f[n]));
		f[n++].fd = atoi(de->d_name);
	}
	if (n)
		qsort(f, n, sizeof(*f), cmp_int);
	for (size_t i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof(name), "fd/%d", f[i].fd);
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", c->pid, f[i].fd);
		if (proc_readlink(c->pid, name, &f[i].link, e) ||
		    proc_parse_fdinfo(c->pid, f[i].fd, &f[i].fi, e)) {
			int fd = f[i].fd;
			free_fds(f, n);
			return cr_wrap(e, "fd %d", fd);
		}
		if (stat(path, &f[i].st)) {
			int err = errno;
			free_fds(f, n);
			return cr_fail_errno(e, err, "stat %s", path);
		}
	}
	*out = f;
	*nout = n;
	return 0;
}

static bool is_tty(const struct stat *st)
{
	unsigned maj = major(st->st_rdev);
	return S_ISCHR(st->st_mode) && (maj == 4 || maj == 5 || (maj >= 136 && maj <= 143));
}

/* With --shell-job, fds 0-2 that are pipes, sockets or terminals are taken from the restoring crshim's
 * own fd of the same number, each on its own: never merge them, even if they share one description. */
static bool inherited_stdio(const struct dump_ctx *c, const struct dfd *f)
{
	const struct stat *st = &f->st;
	return f->fd <= 2 && c->o->shell_job &&
	       (S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode) || (is_tty(st) && !dump_tty_internal(c, st)));
}

static void dedup_fds(struct dump_ctx *c, struct dfd *f, size_t n)
{
	uint32_t next = 1;
	for (size_t i = 0; i < n; i++) {
		f[i].id = 0;
		for (size_t j = 0; j < i && n <= 4096 && !inherited_stdio(c, &f[i]); j++) {
			if (f[j].dup || f[j].st.st_ino != f[i].st.st_ino || f[j].st.st_dev != f[i].st.st_dev)
				continue;
			if (syscall(SYS_kcmp, c->pid, c->pid, KCMP_FILE, f[j].fd, f[i].fd) == 0) {
				f[i].id = f[j].id;
				f[i].dup = true;
				break;
			}
		}
		if (!f[i].id)
			f[i].id = next++;
	}
}

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static bool is_deleted(const char *link)
{
	size_t l = strlen(link), s = strlen(" (deleted)");
	return l > s && !strcmp(link + l - s, " (deleted)");
}

/* What an fd we cannot dump is, for the one-line error: "an eventfd", "a socket", ... */
static const char *fd_kind(const struct dfd *f)
{
	static const struct {
		const char *link, *what;
	} anon[] = {
	    {"anon_inode:[eventfd]", "an eventfd"},
	    {"anon_inode:[eventpoll]", "an epoll instance"},
	    {"anon_inode:[signalfd]", "a signalfd"},
	    {"anon_inode:[timerfd]", "a timerfd"},
	    {"anon_inode:inotify", "an inotify instance"},
	    {"anon_inode:[fanotify]", "a fanotify instance"},
	    {"anon_inode:[io_uring]", "an io_uring"},
	    {"anon_inode:[userfaultfd]", "a userfaultfd"},
	    {"anon_inode:[pidfd]", "a pidfd"},
	    {"anon_inode:bpf-map", "a bpf map"},
	    {"anon_inode:bpf-prog", "a bpf program"},
	    {"anon_inode:[perf_event]", "a perf event"},
	};
	for (size_t i = 0; i < sizeof(anon) / sizeof(anon[0]); i++)
		if (has_prefix(f->link, anon[i].link))
			return anon[i].what;
	if (has_prefix(f->link, "anon_inode:"))
		return "an anonymous inode";
	if (S_ISSOCK(f->st.st_mode))
		return "a socket";
	if (S_ISBLK(f->st.st_mode))
		return "a block device";
	if (S_ISFIFO(f->st.st_mode))
		return "a pipe";
	if (has_prefix(f->link, "pidfd:"))
		return "a pidfd";
	if (f->link[0] != '/')
		return "a special file";
	return "a file of an unsupported type";
}

static int unsupported(struct dump_ctx *c, const struct dfd *f, const char *what, struct cr_err *e)
{
	return cr_fail(e, "fd %d is %s (%s), not supported yet", f->fd, what, f->link);
}

/* An fd of the task holding a read end (or an O_RDWR open) of the pipe of f, -1 if none. */
static int pipe_read_fd(const struct dfd *f, const struct dfd *all, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct dfd *g = &all[i];
		if (g->st.st_ino == f->st.st_ino && g->st.st_dev == f->st.st_dev && S_ISFIFO(g->st.st_mode) &&
		    (g->fi.flags & O_ACCMODE) != O_WRONLY)
			return g->fd;
	}
	return -1;
}

/* A pipe end (FILE_PIPE) or an open of a FIFO by path (FILE_FIFO; an unlinked FIFO: its old path, deleted,
 * and f->link loses its " (deleted)"). */
static int fill_pipe(struct dump_ctx *c, struct dfd *f, const struct dfd *all, size_t n,
		     struct dump_pipes **dp, FileEntry *fe, RegFileEntry *re, PipeEntry *pe, struct cr_err *e)
{
	bool fifo = f->link[0] == '/';
	bool deleted = fifo && is_deleted(f->link) && f->st.st_nlink == 0;
	if (!fifo && !has_prefix(f->link, "pipe:"))
		return unsupported(c, f, fd_kind(f), e);
	if (!*dp && dump_pipes_init(c->pid, dp, e))
		return -1;
	if (dump_pipe_fill(*dp, f->fd, &f->st, f->fi.flags, pipe_read_fd(f, all, n), pe, e))
		return cr_wrap(e, "fd %d (%s)", f->fd, f->link);
	fe->pipe = pe;
	fe->kind = fifo ? FILE_KIND__FILE_FIFO : FILE_KIND__FILE_PIPE, fe->has_kind = 1;
	if (fifo) {
		if (deleted)
			f->link[strlen(f->link) - strlen(" (deleted)")] = '\0';
		re->deleted = deleted, re->has_deleted = 1;
		re->path = f->link;
		re->flags = f->fi.flags & ~(uint32_t)O_CLOEXEC, re->has_flags = 1;
		re->mode = f->st.st_mode, re->has_mode = 1;
		fe->reg = re;
	}
	return 0;
}

/* A name in the directory of path that is a link to the inode of st (the file was renamed or has another
 * link there), or NULL. */
static char *link_in_dir(const char *path, const struct stat *st)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return NULL;
	*(slash == dir ? slash + 1 : slash) = '\0';
	__cleanup_closedir DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char *p = NULL;
		struct stat ls;
		if (de->d_ino != st->st_ino ||
		    asprintf(&p, "%s/%s", strcmp(dir, "/") ? dir : "", de->d_name) < 0)
			continue;
		if (!lstat(p, &ls) && ls.st_ino == st->st_ino && ls.st_dev == st->st_dev)
			return p;
		free(p);
	}
	return NULL;
}

/* f (a deleted name of a file still linked) is reopened through path (taken over); the deleted name is kept
 * in f->old for deleted_name. */
static int reopen_as(struct dfd *f, char *path, RegFileEntry *re)
{
	f->link[strlen(f->link) - strlen(" (deleted)")] = '\0';
	f->old = f->link;
	f->link = path;
	re->deleted_name = f->old;
	return 0;
}

/* A deleted file: reopened by a live path of its inode (another fd of the task, or another link in its old
 * directory), else its contents are saved as a ghost (dump-ghost.c). f->link becomes the path to use. */
static int fill_deleted(struct dump_ctx *c, struct dfd *f, const struct dfd *all, size_t n, RegFileEntry *re,
			struct cr_err *e)
{
	if (has_prefix(f->link, "/memfd:"))
		return unsupported(c, f, "a memfd", e);
	for (size_t i = 0; i < n && f->st.st_nlink; i++)
		if (all[i].st.st_ino == f->st.st_ino && all[i].st.st_dev == f->st.st_dev &&
		    all[i].link[0] == '/' && !is_deleted(all[i].link)) {
			char *p = strdup(all[i].link);
			if (!p)
				return cr_fail_errno(e, ENOMEM, "out of memory");
			pr_info("fd %d: deleted %s is reopened as %s (fd %d)\n", f->fd, f->link, p,
				all[i].fd);
			return reopen_as(f, p, re);
		}
	char *alias = f->st.st_nlink ? link_in_dir(f->link, &f->st) : NULL;
	if (alias) {
		pr_info("fd %d: deleted %s is reopened as its other link %s\n", f->fd, f->link, alias);
		return reopen_as(f, alias, re);
	}
	char src[64], what[32];
	uint32_t id;
	snprintf(src, sizeof(src), "/proc/%d/fd/%d", c->pid, f->fd);
	snprintf(what, sizeof(what), "fd %d", f->fd);
	if (dump_ghost_add(c, src, &f->st, f->link, what, &id, e))
		return -1;
	f->link[strlen(f->link) - strlen(" (deleted)")] = '\0';
	re->deleted = true, re->has_deleted = 1;
	re->ghost_id = id, re->has_ghost_id = 1;
	return 0;
}

/* Fill fe for one fd; returns < 0 with a one-line reason for what we cannot dump. */
static int fill_file(struct dump_ctx *c, struct dfd *f, const struct dfd *all, size_t n, FileEntry *fe,
		     RegFileEntry *re, struct cr_err *e)
{
	const struct stat *st = &f->st;
	bool stdio = f->fd <= 2;
	fe->id = f->id, fe->has_id = 1;
	if (inherited_stdio(c, f)) {
		fe->kind = FILE_KIND__FILE_INHERIT, fe->has_kind = 1;
		fe->inherit_fd = f->fd, fe->has_inherit_fd = 1;
		fe->inherit_desc = f->link;
		return 0;
	}
	struct evfd_src src = {c->pid, f->fd, f->link, st, f->fi.flags & ~(uint32_t)O_CLOEXEC, f->fi.pos};
	int r = dump_evfd_fill(c, &src, fe, e); /* eventfd, epoll, signalfd, timerfd, ..., memfd */
	if (r <= 0)
		return r;
	if (has_prefix(f->link, "anon_inode:") || S_ISSOCK(st->st_mode) || S_ISBLK(st->st_mode) ||
	    f->link[0] != '/') {
		if (stdio && S_ISSOCK(st->st_mode))
			return cr_fail(e,
				       "fd %d (%s) is a socket of the caller: dump with --shell-job "
				       "(-j)",
				       f->fd, f->link);
		return unsupported(c, f, fd_kind(f), e);
	}
	/* (a live directory may be named "... (deleted)": a removed one has no links) */
	if (is_deleted(f->link) && !(S_ISDIR(st->st_mode) && st->st_nlink) &&
	    fill_deleted(c, f, all, n, re, e))
		return -1;
	re->path = f->link;
	re->flags = f->fi.flags & ~(uint32_t)O_CLOEXEC, re->has_flags = 1;
	re->mode = st->st_mode, re->has_mode = 1;
	if (S_ISCHR(st->st_mode)) {
		fe->kind = FILE_KIND__FILE_CHR, fe->has_kind = 1;
		re->rdev = st->st_rdev, re->has_rdev = 1;
		re->pos = f->fi.pos, re->has_pos = 1;
	} else if (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode) || (f->fi.flags & O_PATH)) {
		/* an O_PATH open of a FIFO is reopened by path like a file */
		fe->kind = FILE_KIND__FILE_REG, fe->has_kind = 1;
		re->pos = f->fi.pos, re->has_pos = 1;
		re->size = (uint64_t)st->st_size, re->has_size = 1;
		re->has_deleted = 1;
	} else {
		return unsupported(c, f, fd_kind(f), e);
	}
	fe->reg = re;
	return 0;
}

/* Fill and write the file_entry of f (not a dup). dp, du: per-process state of pipes and unix sockets. */
static int write_one(struct dump_ctx *c, struct dfd *f, struct dfd *all, size_t n, struct img_writer *wf,
		     struct dump_pipes **dp, struct dump_unix **du, FileEntry *fe, struct cr_err *e)
{
	RegFileEntry re = REG_FILE_ENTRY__INIT;
	PipeEntry pe = PIPE_ENTRY__INIT;
	int sk_dom, r;
	struct dump_tty_ent te;
	char ext_key[64];
	if (!inherited_stdio(c, f) &&
	    !dump_ext_file(c->o, f->fd, &f->st, f->fi.mnt_id, f->link, fe, ext_key, sizeof(ext_key))) {
		fe->id = f->id, fe->has_id = 1; /* --external file[..] / tty[..]: inherit-fd.c */
		if (S_ISCHR(f->st.st_mode))
			dump_tty_ext(c, f->link, &f->st, fe, &te);
	} else if (S_ISFIFO(f->st.st_mode) && !(f->fi.flags & O_PATH) && !inherited_stdio(c, f)) {
		fe->id = f->id, fe->has_id = 1;
		if (fill_pipe(c, f, all, n, dp, fe, &re, &pe, e))
			return -1;
	} else if (S_ISSOCK(f->st.st_mode) && !inherited_stdio(c, f) &&
		   (sk_dom = dump_sk_domain(c, f->fd, e)) != AF_UNIX) {
		fe->id = f->id, fe->has_id = 1;
		if (sk_dom < 0 || dump_sk_fill(c, f->fd, f->fi.flags, fe, e)) {
			dump_sk_entry_free(fe);
			return -1;
		}
	} else if (S_ISSOCK(f->st.st_mode) && !inherited_stdio(c, f) &&
		   (r = dump_sk_unix_fill(c, du, f->fd, &f->st, f->fi.flags, fe, e)) <= 0) {
		fe->id = f->id, fe->has_id = 1;
		if (r < 0)
			return -1;
	} else if (dump_tty_is_pty(&f->st) && !(f->fi.flags & O_PATH) && !inherited_stdio(c, f)) {
		fe->id = f->id, fe->has_id = 1;
		if (dump_tty_fill(c, f->fd, f->link, &f->st, f->fi.flags, fe, &te, e))
			return -1;
	} else if (fill_file(c, f, all, n, fe, &re, e)) {
		return -1;
	}
	FownEntry fo = FOWN_ENTRY__INIT;
	if (fe->kind != FILE_KIND__FILE_INHERIT && dump_fown(c->pid, f->fd, f->fi.flags, fe, &fo, e))
		return -1;
	int wr = fe->kind == FILE_KIND__FILE_REG || fe->kind == FILE_KIND__FILE_CHR ||
			 fe->kind == FILE_KIND__FILE_TTY || fe->inet_sk || fe->netlink_sk || fe->packet_sk
		     ? dump_fdshare_id(c, f->fd, &f->st, &fe->tree_desc, e)
		     : 0;
	fe->has_tree_desc = fe->tree_desc != 0;
	if (!wr && fe->in_flight)
		wr = dump_sk_scm_check(fe, e); /* a kind crshim can make and send on restore */
	if (!wr)
		wr = img_write(wf, &fe->base, e);
	if (!wr)
		dump_key_log(c->pid, f->fd, fe);
	dump_evfd_release(fe);
	dump_sk_entry_free(fe);
	fe->reg = NULL, fe->pipe = NULL, fe->tty = NULL, fe->fown = NULL, fe->ext_key = NULL; /* this frame */
	return wr ? -1 : 0;
}

int dump_files_carried(struct dump_ctx *c, int fd, uint32_t id, struct img_writer *wf, FileEntry *fe,
		       const char **what, struct cr_err *e)
{
	struct dump_ctx cc = *c; /* crshim's own fd: dumped as an fd of crshim */
	cc.pid = getpid();
	cc.sk = NULL;
	struct dfd f = {.fd = fd, .id = id};
	char path[64], name[32];
	snprintf(name, sizeof(name), "fd/%d", fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (proc_readlink(cc.pid, name, &f.link, e) || proc_parse_fdinfo(cc.pid, fd, &f.fi, e))
		return -1;
	if (stat(path, &f.st)) {
		free(f.link);
		return cr_fail_sys(e, "stat %s", path);
	}
	struct dump_pipes *dp = NULL;
	struct dump_unix *du = NULL;
	int dom = AF_UNIX;
	socklen_t dl = sizeof(dom);
	*what = f.link[0] == '/' ? "a file" : fd_kind(&f);
	if (S_ISSOCK(f.st.st_mode) && getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &dl))
		dom = -1;
	int ret = dom != AF_UNIX ? cr_fail_errno(e, ENOTSUP, "not a unix socket")
				 : write_one(&cc, &f, &f, 1, wf, &dp, &du, fe, e);
	c->ghosts = cc.ghosts;
	dump_sk_finish(&cc, DUMP_SK_RESUME); /* the pidfd of crshim a unix socket's check made */
	dump_pipes_free(dp);
	dump_sk_unix_free(du);
	free(f.link);
	free(f.old);
	return ret;
}

static int write_images(struct dump_ctx *c, struct dfd *f, size_t n, struct cr_err *e)
{
	struct img_writer *wf = NULL, *wi = NULL;
	struct dump_pipes *dp = NULL;
	struct dump_unix *du = NULL;
	if (img_create(c->dirfd, dump_files_kind(c), dump_files_id(c), &wf, e) ||
	    img_create(c->dirfd, IMG_FDINFO, c->pid, &wi, e))
		goto fail;
	for (size_t i = 0; i < n; i++) {
		FdinfoEntry fi = FDINFO_ENTRY__INIT;
		fi.fd = f[i].fd, fi.has_fd = 1;
		fi.id = f[i].id, fi.has_id = 1;
		fi.fd_flags = (f[i].fi.flags & O_CLOEXEC) ? FD_CLOEXEC : 0, fi.has_fd_flags = 1;
		if (img_write(wi, &fi.base, e))
			goto fail;
		if (f[i].dup)
			continue;
		FileEntry fe = FILE_ENTRY__INIT;
		if (write_one(c, &f[i], f, n, wf, &dp, &du, &fe, e))
			goto fail;
		pr_debug("fd %d -> id %u: %s\n", f[i].fd, f[i].id, f[i].link);
	}
	dump_pipes_free(dp);
	dp = NULL;
	if (dump_sk_scm_write(c, du, wf, e)) /* files in flight in the unix sockets' queues */
		goto fail;
	dump_sk_unix_free(du);
	du = NULL;
	if (img_commit(wf, e)) {
		wf = NULL;
		goto fail;
	}
	wf = NULL;
	if (dump_created(c, dump_files_kind(c), dump_files_id(c), e))
		goto fail;
	if (img_commit(wi, e)) {
		wi = NULL;
		goto fail;
	}
	return dump_created(c, IMG_FDINFO, c->pid, e);
fail:
	dump_pipes_free(dp);
	dump_sk_unix_free(du);
	img_abort(wf);
	img_abort(wi);
	return -1;
}

int dump_files_write(struct dump_ctx *c, struct cr_err *e)
{
	struct dfd *f = NULL;
	size_t n = 0;
	if (collect_fds(c, &f, &n, e))
		return cr_wrap(e, "files");
	dedup_fds(c, f, n);
	int ret = write_images(c, f, n, e);
	free_fds(f, n);
	return ret;
}
