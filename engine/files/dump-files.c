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

#include "base/array.h"
#include "base/cleanup.h"
#include "base/log.h"
#include "dump.h"
#include "files/evfd.h"
#include "files/fd-kind.h"
#include "files/fdshare.h"
#include "files/fown.h"
#include "files/inherit-fd.h"
#include "files/sk-filter.h"
#include "files/tty.h"

static void free_fds(struct fd_src *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].link);
		free(f[i].old);
	}
	free(f);
}

/* The fds of c, their links and stats (from c->fds, read once the tree was stopped: engine/dump.c, taken
 * over; else read now), then each one's fdinfo. */
static int collect_fds(struct dump_ctx *c, struct fd_src **out, size_t *nout, struct cr_err *e)
{
	struct proc_fd *pf = c->fds;
	size_t n = c->nfds;
	c->fds = NULL, c->nfds = 0;
	if (!pf && proc_read_fds(c->pid, &pf, &n, e))
		return -1;
	struct fd_src *f = calloc(n ? n : 1, sizeof(*f));
	if (!f) {
		proc_fds_free(pf, n);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		f[i].pid = c->pid, f[i].fd = pf[i].fd, f[i].st = pf[i].st, f[i].cfd = -1;
		f[i].link = pf[i].link;
		pf[i].link = NULL;
	}
	proc_fds_free(pf, n);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fdinfo", c->pid);
	__cleanup_close int dfd = n ? open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	for (size_t i = 0; i < n; i++)
		if (proc_parse_fdinfo_at(dfd, c->pid, f[i].fd, &f[i].fi, e)) {
			int fd = f[i].fd;
			free_fds(f, n);
			return cr_wrap(e, "fd %d", fd);
		}
	for (size_t i = 0; i < n; i++)
		f[i].all = f, f[i].nr_all = n;
	*out = f;
	*nout = n;
	return 0;
}

static bool is_tty(const struct stat *st)
{
	unsigned maj = major(st->st_rdev);
	return S_ISCHR(st->st_mode) && (maj == 4 || maj == 5 || (maj >= 136 && maj <= 143));
}

/* The ends (1 read, 2 write) of the pipe or FIFO st that process pid holds. */
static unsigned pipe_ends_of(pid_t pid, const struct stat *st)
{
	char path[64];
	unsigned ends = 0;
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	__cleanup_closedir DIR *d = opendir(path);
	struct dirent *de;
	struct stat s;
	struct proc_fdinfo fi;
	struct cr_err e = {0};
	while (d && ends != 3 && (de = readdir(d))) {
		if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &s, 0) || s.st_ino != st->st_ino ||
		    s.st_dev != st->st_dev || proc_parse_fdinfo(pid, atoi(de->d_name), &fi, &e))
			continue;
		unsigned acc = fi.flags & O_ACCMODE;
		ends |= acc == O_RDONLY ? 1 : acc == O_WRONLY ? 2 : 3;
	}
	return ends;
}

/* A pipe of which the tree holds both ends (a child's stdio to its parent) is the tree's own. */
static bool tree_pipe(const struct dump_ctx *c, const struct stat *st)
{
	unsigned ends = 0;
	for (size_t i = 0; i < c->ntree && ends != 3; i++)
		if (!c->tree[i].zombie)
			ends |= pipe_ends_of(c->tree[i].pid, st);
	return ends == 3;
}

/* With --shell-job, fds 0-2 that are pipes (of which the tree holds one end), sockets or terminals are taken
 * from the restoring crshim's own fd of the same number, each on its own: never merge them, even if they
 * share one description. */
static bool inherited_stdio(const struct dump_ctx *c, const struct fd_src *f)
{
	return f->stdio_inh;
}

static void find_inherited_stdio(const struct dump_ctx *c, struct fd_src *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct stat *st = &f[i].st;
		f[i].stdio_inh = f[i].fd <= 2 && c->o->shell_job &&
				 ((S_ISFIFO(st->st_mode) && !tree_pipe(c, st)) || S_ISSOCK(st->st_mode) ||
				  (is_tty(st) && !dump_tty_internal(c, st)));
		if (f[i].fd <= 2 && c->o->shell_job && S_ISFIFO(st->st_mode) && !f[i].stdio_inh)
			pr_info(
			    "fd %d: a pipe of which the tree holds both ends: the tree's, not the shell's\n",
			    f[i].fd);
	}
}

static void dedup_fds(struct dump_ctx *c, struct fd_src *f, size_t n)
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

/* What an fd we cannot dump is, for the one-line error: "an eventfd", "a socket", ... */
static const char *fd_kind(const struct fd_src *f)
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
		if (fd_has_prefix(f->link, anon[i].link))
			return anon[i].what;
	if (fd_has_prefix(f->link, "anon_inode:"))
		return "an anonymous inode";
	if (S_ISSOCK(f->st.st_mode))
		return "a socket";
	if (S_ISBLK(f->st.st_mode))
		return "a block device";
	if (S_ISFIFO(f->st.st_mode))
		return "a pipe";
	if (fd_has_prefix(f->link, "pidfd:"))
		return "a pidfd";
	static const char *const ns[] = {"net:[", "uts:[",  "ipc:[",	"mnt:[",
					 "pid:[", "user:[", "cgroup:[", "time:["};
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		if (fd_has_prefix(f->link, ns[i]))
			return "a namespace file (/proc/PID/ns/*)";
	if (f->link[0] != '/')
		return "a special file";
	return "a file of an unsupported type";
}

static int unsupported(struct dump_ctx *c, const struct fd_src *f, const char *what, struct cr_err *e)
{
	return cr_fail(e, "fd %d is %s (%s), not supported yet", f->fd, what, f->link);
}

/* Per-process state of the kinds (indexed as fd_kinds()), and the process's pidfd (-1: not open yet), through
 * which each fd is copied once (fd_copy). */
struct kind_states {
	void *st[64];
	int pidfd;
};

static void free_states(struct kind_states *ks)
{
	size_t nk;
	const struct fd_kind *const *k = fd_kinds(&nk);
	for (size_t i = 0; i < nk; i++) {
		if (ks->st[i] && k[i]->free_state)
			k[i]->free_state(ks->st[i]);
		ks->st[i] = NULL;
	}
	if (ks->pidfd >= 0)
		close(ks->pidfd);
	ks->pidfd = -1;
}

/* crshim's copy of f (f->cfd, taken once per fd through the process's one pidfd; closed by write_one): the
 * domain, the owner, the filter and the kinds read the description through it (three pidfd_open and
 * pidfd_getfd per socket fd before). */
static int fd_copy(struct kind_states *ks, struct fd_src *f, struct cr_err *e)
{
	if (f->cfd >= 0)
		return f->cfd;
	if (ks->pidfd < 0 && (ks->pidfd = (int)syscall(SYS_pidfd_open, f->pid, 0)) < 0)
		return cr_fail_sys(e, "pidfd_open %d", f->pid);
	f->cfd = (int)syscall(SYS_pidfd_getfd, ks->pidfd, f->fd, 0);
	if (f->cfd < 0)
		return cr_fail_sys(e, "pidfd_getfd %d fd %d", f->pid, f->fd);
	return f->cfd;
}

/* What is read of a socket (through a copy of an fd of it): the same for each of its fds, a socket being one
 * open file description, so read once per dump and kept in the tree-wide memo by inode (the tasks are
 * stopped): the 200 sockets that 300 processes hold were copied and read 60,000 times. known: read (else
 * the owner is read from the fd's own copy). */
struct sk_facts {
	int domain;
	socklen_t filter; /* instructions of its classic BPF filter (SO_ATTACH_FILTER), 0 if none */
	struct dump_fown_raw own;
	bool known;
};
#define SK_FACTS_KEY(ino) (1ULL << 61 | (uint64_t)(ino))

/* The domain of a socket fd of the task, -1 if it cannot be read; *sf: what is read of it. */
static int sk_domain(struct dump_ctx *c, struct kind_states *ks, struct fd_src *f, struct sk_facts *sf)
{
	const struct sk_facts *m = dump_fdshare_memo(c->fdsh, SK_FACTS_KEY(f->st.st_ino));
	if (m) {
		*sf = *m;
		return sf->domain;
	}
	struct cr_err e2 = {0};
	int cfd = fd_copy(ks, f, &e2);
	int dom = -1;
	socklen_t dl = sizeof(dom);
	if (cfd < 0 || getsockopt(cfd, SOL_SOCKET, SO_DOMAIN, &dom, &dl)) {
		pr_warn("fd %d (%s): its domain cannot be read: %s\n", f->fd, f->link,
			cfd < 0 ? e2.msg : strerror(errno));
		return -1;
	}
	sf->domain = dom;
	if (getsockopt(cfd, SOL_SOCKET, SO_GET_FILTER, NULL, &sf->filter))
		sf->filter = 0;
	struct sk_facts *nm = dump_fown_read(cfd, f->fd, &sf->own, &e2) ? NULL : malloc(sizeof(*nm));
	if (nm) {
		sf->known = true, *nm = *sf;
		dump_fdshare_memo_put(c->fdsh, SK_FACTS_KEY(f->st.st_ino), nm, free, &e2);
	}
	return dom;
}

/* Fill fe through the first kind (in prio order) that recognises f and takes it; *kp: that kind. */
static int dump_kind(struct dump_ctx *c, struct fd_src *f, struct kind_states *ks, FileEntry *fe,
		     const struct fd_kind **kp, struct sk_facts *sf, struct cr_err *e)
{
	size_t nk;
	const struct fd_kind *const *k = fd_kinds(&nk);
	/* an O_PATH fd of a socket's node is no socket: opened by path again (file-reg.c), like a FIFO's */
	bool node = S_ISSOCK(f->st.st_mode) && (f->fi.flags & O_PATH);
	f->domain = S_ISSOCK(f->st.st_mode) && !node ? sk_domain(c, ks, f, sf) : 0;
	socklen_t filter = sf->filter;
	if (filter && fe->in_flight) /* made by crshim and sent: no task attaches it again */
		return cr_fail(
		    e,
		    "fd %d (%s) in flight has a socket filter (SO_ATTACH_FILTER, %u instructions): "
		    "not supported",
		    f->fd, f->link, (unsigned)filter);
	if (filter) {
		int cfd = fd_copy(ks, f, e);
		if (cfd < 0 || dump_sk_filter(cfd, filter, fe, e))
			return cr_wrap(e, "fd %d (%s)", f->fd, f->link);
	}
	for (size_t i = 0; i < nk; i++) {
		if (!k[i]->is || !k[i]->dump || (node && k[i]->kind != FILE_KIND__FILE_REG) ||
		    !k[i]->is(c, f))
			continue;
		int r = k[i]->dump(c, f, &ks->st[i], fe, e);
		if (r <= 0) {
			*kp = k[i];
			return r;
		}
	}
	if (f->fd <= 2 && S_ISSOCK(f->st.st_mode))
		return cr_fail(e, "fd %d (%s) is a socket of the caller: dump with --shell-job (-j)", f->fd,
			       f->link);
	return unsupported(c, f, fd_kind(f), e);
}

/* Fill and write the file_entry of f (not a dup). ks: per-process state of the kinds. */
static int write_one(struct dump_ctx *c, struct fd_src *f, struct img_writer *wf, struct kind_states *ks,
		     FileEntry *fe, struct cr_err *e)
{
	const struct fd_kind *k = NULL;
	struct sk_facts sf = {.domain = 0};
	struct dump_tty_ent te;
	char ext_key[64];
	int wr;
	f->reg = (RegFileEntry)REG_FILE_ENTRY__INIT;
	f->priv = NULL;
	fe->id = f->id, fe->has_id = 1;
	if (inherited_stdio(c, f)) {
		fe->kind = FILE_KIND__FILE_INHERIT, fe->has_kind = 1;
		fe->inherit_fd = f->fd, fe->has_inherit_fd = 1;
		fe->inherit_desc = f->link;
		wr = 0;
	} else if (!dump_ext_file(c->o, f->fd, &f->st, f->fi.mnt_id, f->link, fe, ext_key, sizeof(ext_key))) {
		if (S_ISCHR(f->st.st_mode)) /* --external file[..] / tty[..]: inherit-fd.c */
			dump_tty_ext(c, f->link, &f->st, fe, &te);
		wr = 0;
	} else {
		wr = dump_kind(c, f, ks, fe, &k, &sf, e);
	}
	FownEntry fo = FOWN_ENTRY__INIT;
	if (!wr && fe->kind != FILE_KIND__FILE_INHERIT && !(f->fi.flags & O_PATH) && sf.known) {
		dump_fown_fill(&sf.own, f->fd, f->fi.flags, fe, &fo);
	} else if (!wr && fe->kind != FILE_KIND__FILE_INHERIT && !(f->fi.flags & O_PATH)) {
		int cfd = fd_copy(ks, f, e);
		wr = cfd < 0 ? cr_wrap(e, "fd %d: owner", f->fd)
			     : dump_fown(cfd, f->fd, f->fi.flags, fe, &fo, e);
	}
	if (!wr && k && k->tree_desc)
		wr = dump_fdshare_id(c, f->fd, &f->st, &fe->tree_desc, e);
	fe->has_tree_desc = fe->tree_desc != 0;
	if (!wr && fe->in_flight && !(k && k->flight)) /* a kind crshim can make and send on restore */
		wr = cr_fail_errno(
		    e, ENOTSUP, "crshim makes this kind of file (%d) only in a process's fd table", fe->kind);
	if (!wr)
		wr = img_write(wf, &fe->base, e);
	if (!wr)
		dump_key_log(c->pid, f->fd, fe);
	if (k && k->release)
		k->release(fe, f);
	dump_sk_filter_free(fe);
	if (f->cfd >= 0)
		close(f->cfd);
	f->cfd = -1;
	fe->reg = NULL, fe->tty = NULL, fe->fown = NULL, fe->ext_key = NULL; /* this frame */
	return wr ? -1 : 0;
}

int dump_files_carried(struct dump_ctx *cc, int fd, uint32_t id, struct img_writer *wf, FileEntry *fe,
		       const char **what, struct cr_err *e)
{
	struct fd_src f = {.pid = cc->pid, .fd = fd, .id = id, .cfd = -1};
	char path[64], name[32];
	snprintf(name, sizeof(name), "fd/%d", fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (proc_readlink(cc->pid, name, &f.link, e) || proc_parse_fdinfo(cc->pid, fd, &f.fi, e))
		return -1;
	if (stat(path, &f.st)) {
		free(f.link);
		return cr_fail_sys(e, "stat %s", path);
	}
	f.all = &f, f.nr_all = 1;
	struct kind_states ks = {.pidfd = -1};
	int dom = AF_UNIX;
	socklen_t dl = sizeof(dom);
	*what = f.link[0] == '/' ? "a file" : fd_kind(&f);
	if (S_ISSOCK(f.st.st_mode) && getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &dl))
		dom = -1;
	int ret = dom != AF_UNIX ? cr_fail_errno(e, ENOTSUP, "not a unix socket")
				 : write_one(cc, &f, wf, &ks, fe, e);
	free_states(&ks);
	free(f.link);
	free(f.old);
	return ret;
}

/* What the kinds collected for the process (files in flight in the unix sockets' queues, ...). */
static int finish_kinds(struct dump_ctx *c, struct kind_states *ks, struct img_writer *wf, struct cr_err *e)
{
	size_t nk;
	const struct fd_kind *const *k = fd_kinds(&nk);
	for (size_t i = 0; i < nk; i++)
		if (k[i]->finish && k[i]->finish(c, ks->st[i], wf, e))
			return -1;
	return 0;
}

/* f's kind (the first that recognises it) writes it after the files in flight (fd_kind.last). */
static bool written_last(const struct dump_ctx *c, const struct fd_src *f)
{
	size_t nk;
	const struct fd_kind *const *k = fd_kinds(&nk);
	for (size_t i = 0; i < nk; i++)
		if (k[i]->is && k[i]->dump && k[i]->is(c, f))
			return k[i]->last;
	return false;
}

static int write_entry(struct dump_ctx *c, struct fd_src *f, struct img_writer *wf, struct kind_states *ks,
		       struct cr_err *e)
{
	FileEntry fe = FILE_ENTRY__INIT;
	if (write_one(c, f, wf, ks, &fe, e))
		return -1;
	pr_debug("fd %d -> id %u: %s\n", f->fd, f->id, f->link);
	return 0;
}

static int write_images(struct dump_ctx *c, struct fd_src *f, size_t n, struct cr_err *e)
{
	struct img_writer *wf = NULL, *wi = NULL;
	struct kind_states ks = {.pidfd = -1};
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
		if (!f[i].dup && !written_last(c, &f[i]) && write_entry(c, &f[i], wf, &ks, e))
			goto fail;
	}
	if (finish_kinds(c, &ks, wf, e))
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (!f[i].dup && written_last(c, &f[i]) && write_entry(c, &f[i], wf, &ks, e))
			goto fail;
	free_states(&ks);
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
	free_states(&ks);
	img_abort(wf);
	img_abort(wi);
	return -1;
}

int dump_files_write(struct dump_ctx *c, struct cr_err *e)
{
	struct fd_src *f = NULL;
	size_t n = 0;
	if (collect_fds(c, &f, &n, e))
		return cr_wrap(e, "files");
	c->fd_locks = false;
	for (size_t i = 0; i < n; i++)
		c->fd_locks |= f[i].fi.locks;
	c->fds_read = true;
	find_inherited_stdio(c, f, n);
	dedup_fds(c, f, n);
	int ret = write_images(c, f, n, e);
	free_fds(f, n);
	return ret;
}
