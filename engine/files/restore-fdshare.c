/* Open file descriptions shared by several processes: opened once in crshim (see fdshare.h). */
#define LOG_PREFIX "restore-fdshare: "
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "files/fd-kind.h"
#include "files/fdshare.h"
#include "files/ghost.h"
#include "files/pipes.h"
#include "base/late-fds.h"
#include "base/log.h"
#include "base/scm.h"
#include "files/procfd.h"
#include "ns.h"
#include "restore.h"

struct shared_desc {
	uint32_t id;
	int fd;
	/* opened by the root task in the restored mount tree (rst_fdshare_root): fd is a placeholder until
	 * then */
	const FileEntry *late;
	int flags;
	/* a file in flight of such a tree (crshim sends it once the unix sockets are made, in that mount
	 * tree): opened by crshim there (rst_fdshare_flight_late), taken by the root task from crshim */
	bool flight;
	/* every holder is in the mount namespace of its own of this process (pstree mntns, or below it):
	 * opened by it once that stands (rst_fdshare_nested), not by the root task; 0: none */
	pid_t owner;
	/* ... and the processes that entered that namespace (pstree mntns_join) but not from it: owner sends
	 * it to each of them on chan (a SOCK_SEQPACKET pair made here, inherited by the tree; joiners: how
	 * many of them, 0: no chan) */
	unsigned joiners;
	int chan[2];
};
static struct shared_desc *descs;
static size_t nr_descs;

/* A kind that is made (sockets), not opened by path. */
static const struct fd_kind *made(const FileEntry *f)
{
	const struct fd_kind *k = fd_kind_of(f->kind);
	return k && k->tree_desc && k->make ? k : NULL;
}

static bool shareable(const FileEntry *f)
{
	return f->has_tree_desc && f->tree_desc && !rst_procfd_is(f) && /* opened by each holder, late */
	       ((f->reg && f->reg->path &&
		 (f->kind == FILE_KIND__FILE_REG || f->kind == FILE_KIND__FILE_CHR ||
		  f->kind == FILE_KIND__FILE_FIFO)) ||
		made(f));
}

size_t rst_fdshare_holders(const struct rst_task *ts, size_t n, uint32_t id)
{
	size_t h = 0;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++)
			if (ts[k].files[i]->has_tree_desc && ts[k].files[i]->tree_desc == id) {
				h++;
				break;
			}
	return h;
}

/* rst_fdshare_holders() of every description at once (one pass over the tree, not one per entry: O(n^2) for a
 * file all the tree's processes hold): nh[id] for ids up to *max, NULL if out of memory or the ids are too
 * sparse for an array (then rst_fdshare_holders() it is). */
static size_t *holders_all(const struct rst_task *ts, size_t n, uint32_t *max)
{
	uint64_t m = 0, entries = 0;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++, entries++)
			if (ts[k].files[i]->has_tree_desc && ts[k].files[i]->tree_desc > m)
				m = ts[k].files[i]->tree_desc;
	if (m > 4 * entries + 1024) /* (the dump numbers them from 1) */
		return NULL;
	size_t *nh = calloc(2 * (m + 1), sizeof(*nh)), *last = nh ? nh + m + 1 : NULL;
	for (size_t k = 0; nh && k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *f = ts[k].files[i];
			if (f->has_tree_desc && last[f->tree_desc] != k + 1) { /* (each process once) */
				last[f->tree_desc] = k + 1;
				nh[f->tree_desc]++;
			}
		}
	*max = (uint32_t)m;
	return nh;
}

/* A path of a tree with its own mount tree (root: its --root) is opened in crshim only for a file in
 * flight (crshim sends it): under that root, or as crshim sees it when it is missing there (the mounts of the
 * tree do not stand yet; a path bound into the tree at the same place, as the external mounts of the zdtm ns
 * mode are). Every other one is opened by the root task once its mount tree stands (rst_fdshare_root). */
static int open_path(const FileEntry *f, const char *root, int flags)
{
	const char *path = f->reg->path;
	if (!root)
		return open(path, flags);
	char p[PATH_MAX];
	if ((size_t)snprintf(p, sizeof(p), "%s/%s", root, path + strspn(path, "/")) >= sizeof(p)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = open(p, flags | O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT)
		fd = open(path, flags);
	return fd;
}

/* Open the file of f with flags as the caller sees its path (root: see open_path): an unlinked one's ghost,
 * a FIFO through its helper (restore-pipes.c: its data in flight; opener: rst_fifo_opener's, -1: none). */
static int open_file(const FileEntry *f, const char *root, int flags, pid_t opener)
{
	if (f->pipe) /* (a FIFO's entry, FILE_INHERIT already when the root task opens it late) */
		return rst_fifo_open_desc(f, flags, opener);
	if (!f->reg->deleted)
		return open_path(f, root, flags);
	/* (its ghost's /proc magic link refuses O_NOFOLLOW: opened again with it) */
	int fd = rst_ghost_open(f->reg, flags & ~O_NOFOLLOW);
	return fd >= 0 && (flags & O_NOFOLLOW) ? rst_ghost_nofollow(fd, flags & ~O_NOFOLLOW) : fd;
}

static int seek_to(int fd, const FileEntry *f)
{
	const RegFileEntry *r = f->reg;
	if (r->pos && lseek(fd, (off_t)r->pos, SEEK_SET) < 0 &&
	    !(f->kind == FILE_KIND__FILE_CHR && (errno == ESPIPE || errno == EINVAL)))
		return -1;
	return 0;
}

/* The process of the tree whose mount namespace of its own (ns/mnt-nested.c) x is in (x or one above it,
 * or the one that makes the namespace x or one above it entered: pstree_entry.mntns_join), 0 when it is
 * in the root's. */
static pid_t mnt_owner(struct rst_task *ts, size_t n, const struct rst_task *x)
{
	size_t up = 0; /* (one back in the namespace its parent's was made from: that one's) */
	for (size_t hops = 0; x && hops <= n; hops++) {
		bool own = x->pst && (x->pst->mntns || x->pst->mntns_join);
		if (own && !up)
			return x->pst->mntns_join ? (pid_t)x->pst->mntns_join : x->pid;
		up -= own && up;
		up += x->pst && x->pst->mntns_up;
		x = x->pst && x->pst->ppid ? rst_tree_task(ts, n, x->pst->ppid) : NULL;
	}
	return 0;
}

/* ... of every holder of description id, when it is one process for all (0: the root's, or several). */
static pid_t holders_owner(struct rst_task *ts, size_t n, uint32_t id)
{
	pid_t o = -1;
	bool any = false;
	for (size_t k = 0; k < n && !any; k++)
		any = ts[k].pst && (ts[k].pst->mntns || ts[k].pst->mntns_up);
	for (size_t k = 0; k < n && any && o; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++)
			if (ts[k].files[i]->has_tree_desc && ts[k].files[i]->tree_desc == id) {
				pid_t x = mnt_owner(ts, n, &ts[k]);
				o = o < 0 || o == x ? x : 0;
				break;
			}
	return any && o > 0 ? o : 0;
}

static int open_once(const FileEntry *f, const char *root, bool late, pid_t owner, struct cr_err *e)
{
	const RegFileEntry *r = f->reg;
	struct shared_desc *nd = realloc(descs, (nr_descs + 1) * sizeof(*nd));
	if (!nd)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	descs = nd;
	const struct fd_kind *k = made(f);
	if (k) { /* a socket: made here, kept close-on-exec until inherited */
		char msg[256] = "";
		int sk = k->make(f, msg, sizeof(msg));
		if (sk < 0 || fcntl(sk, F_SETFD, FD_CLOEXEC))
			return cr_fail_errno(e, EIO, "shared socket (file id %u): %s", f->id, msg);
		descs[nr_descs++] = (struct shared_desc){f->tree_desc, sk, NULL, 0, false, 0, 0, {-1, -1}};
		pr_info(
		    "socket file id %u is one open file description of several processes: made once, fd %d\n",
		    f->id, sk);
		return 0;
	}
	int fl = (int)(r->flags & ~(uint32_t)RST_OPEN_DROP_FLAGS) | O_NOCTTY | O_CLOEXEC;
	/* an fd of /dev/net/tun attached to a device: opened and attached here, in the namespace of the
	 * device (open_once_net), whatever the mount tree */
	bool tun = r->tun_iff != NULL;
	bool flight = !late && root && !r->deleted && !tun; /* (a deleted one: its ghost is made early) */
	/* (an unlinked FIFO is made again by its opener: in the namespace of its holders too) */
	owner = late && (!r->deleted || f->kind == FILE_KIND__FILE_FIFO) ? owner : 0;
	if ((late && (root || owner) && !tun) || flight) { /* opened in the restored mount tree: this fd
							    number is kept for it */
		int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return cr_fail_sys(e, "keep an fd for %s", r->path);
		descs[nr_descs++] = (struct shared_desc){f->tree_desc, fd, f, fl, flight, owner, 0, {-1, -1}};
		if (owner) {
			pr_info("%s (offset %llu) is one open file description of processes in the mount "
				"namespace of task %d: it opens it there, at fd %d\n",
				r->path, (unsigned long long)r->pos, owner, fd);
			return 0;
		}
		pr_info("%s (offset %llu)%s: %s opens it in the restored mount tree, at fd %d\n", r->path,
			(unsigned long long)r->pos,
			flight ? " is in flight" : " is one open file description of several processes",
			flight ? "crshim" : "the root task", fd);
		return 0;
	}
	int fd = open_file(f, root, fl, late ? 0 : -1); /* (late: crshim opens the root's) */
	if (fd < 0)
		return cr_fail_sys(e, "open %s", r->path);
	descs[nr_descs++] = (struct shared_desc){f->tree_desc, fd, NULL, 0, false, 0, 0, {-1, -1}};
	char msg[256] = "";
	if (tun && rst_tun_attach(fd, r, msg, sizeof(msg)))
		return cr_fail_errno(e, EIO, "%s", msg);
	if (seek_to(fd, f))
		return cr_fail_sys(e, "seek %s to %llu", r->path, (unsigned long long)r->pos);
	pr_info("%s (offset %llu) is one open file description of several processes: opened once, fd %d\n",
		r->path, (unsigned long long)r->pos, fd);
	return 0;
}

/* Open the file of description d at its fd (the path as the caller sees it); -1 with errno. owner: the
 * caller is the process rst_fdshare_prepare left it to (its owner, or the root task), as counted by
 * rst_fifo_opener. */
static int open_at_kept(const struct shared_desc *d, bool owner)
{
	__cleanup_close int fd = open_file(d->late, NULL, d->flags, owner ? d->owner : -1);
	return fd < 0 || seek_to(fd, d->late) || dup3(fd, d->fd, O_CLOEXEC) < 0 ? -1 : 0;
}

int rst_fdshare_flight_late(char *msg, size_t len)
{
	for (size_t i = 0; i < nr_descs; i++)
		if (descs[i].flight && (open_at_kept(&descs[i], false) || late_fd_offer(descs[i].fd)))
			return rst_errmsg(msg, len, "open %s (in flight)", descs[i].late->reg->path);
	return 0;
}

int rst_fdshare_root(char *msg, size_t len)
{
	for (size_t i = 0; i < nr_descs; i++) {
		if (descs[i].flight) { /* crshim opened it: taken from there */
			int fd = late_fd_take(descs[i].fd);
			if (fd < 0 || dup3(fd, descs[i].fd, O_CLOEXEC) < 0)
				return rst_errmsg(msg, len, "take %s (in flight) from crshim",
						  descs[i].late->reg->path);
			close(fd);
		} else if (descs[i].late && !descs[i].owner && open_at_kept(&descs[i], true)) {
			return rst_errmsg(msg, len, "open %s (shared by several processes) at offset %llu",
					  descs[i].late->reg->path,
					  (unsigned long long)descs[i].late->reg->pos);
		}
	}
	rst_fifo_helpers_close();
	return 0;
}

int rst_fdshare_nested(pid_t pid, char *msg, size_t len)
{
	for (size_t i = 0; i < nr_descs; i++) {
		if (!descs[i].late || descs[i].owner != pid)
			continue;
		if (open_at_kept(&descs[i], true))
			return rst_errmsg(msg, len, "open %s (shared by several processes) at offset %llu",
					  descs[i].late->reg->path,
					  (unsigned long long)descs[i].late->reg->pos);
		for (unsigned k = 0; k < descs[i].joiners; k++)
			if (scm_send_fd(descs[i].chan[0], descs[i].fd))
				return rst_errmsg(msg, len,
						  "send %s to the processes that entered its mount namespace",
						  descs[i].late->reg->path);
	}
	rst_fifo_helpers_close();
	return 0;
}

int rst_fdshare_joined(pid_t maker, char *msg, size_t len)
{
	for (size_t i = 0; i < nr_descs; i++) {
		if (!descs[i].late || descs[i].owner != maker || !descs[i].joiners)
			continue;
		if (scm_recv_fd_at(descs[i].chan[1], descs[i].fd))
			return rst_errmsg(msg, len,
					  "take %s (shared with task %d, in its mount namespace) from it",
					  descs[i].late->reg->path, (int)maker);
	}
	return 0;
}

/* The description id when its owner (holders_owner) is a process others entered the namespace of (pstree
 * mntns_join): the channel to hand it to them on (rst_fdshare_nested, rst_fdshare_joined). */
static int joiner_chan(const struct rst_task *ts, size_t n, uint32_t id, struct cr_err *e)
{
	struct shared_desc *d = NULL;
	for (size_t i = 0; i < nr_descs && !d; i++)
		d = descs[i].id == id && descs[i].late && descs[i].owner ? &descs[i] : NULL;
	unsigned j = 0;
	for (size_t k = 0; d && k < n; k++)
		j += ts[k].pst && !ts[k].zombie && ts[k].pst->mntns_join == d->owner;
	if (!j)
		return 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, d->chan))
		return cr_fail_sys(e, "socketpair for %s", d->late->reg->path);
	d->joiners = j;
	pr_info("%s: task %d opens it in its mount namespace and sends it to the %u that entered it\n",
		d->late->reg->path, d->owner, j);
	return 0;
}

/* Where a restored process other than a sharer holds description id: its pid (ours) and fd, 0 if none. */
static pid_t holder(const struct rst_task *ts, size_t n, uint32_t id, int *fd)
{
	for (size_t k = 0; k < n; k++) {
		const struct rst_task *x = &ts[k];
		if (x->zombie || x->helper || rst_svm_sharer(x) || !rst_pid_known(x))
			continue;
		for (size_t j = 0; j < x->nr_fdinfo; j++) {
			const FileEntry *f = rst_file_by_id(x, x->fdinfo[j]->id);
			if (f && f->has_tree_desc && f->tree_desc == id) {
				*fd = x->fdinfo[j]->fd;
				return x->pid;
			}
		}
	}
	return 0;
}

int rst_fdshare_take_late(const struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t i = 0; i < nr_descs; i++) {
		int fd = -1;
		pid_t pid = descs[i].late && !descs[i].flight ? holder(ts, n, descs[i].id, &fd) : 0;
		if (!pid)
			continue;
		__cleanup_close int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		__cleanup_close int got = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
		if (got < 0 || dup3(got, descs[i].fd, O_CLOEXEC) < 0)
			return cr_fail_sys(e, "take %s from task %d (fd %d)", descs[i].late->reg->path, pid,
					   fd);
		descs[i].late = NULL; /* the very description now */
	}
	return 0;
}

int rst_fdshare_reopen(char *msg, size_t len)
{
	for (size_t i = 0; i < nr_descs; i++)
		if (descs[i].late && !descs[i].flight && open_at_kept(&descs[i], false))
			return rst_errmsg(msg, len, "open %s (shared by several processes)",
					  descs[i].late->reg->path);
	rst_fifo_helpers_close();
	return 0;
}

static int find(uint32_t id)
{
	for (size_t i = 0; i < nr_descs; i++)
		if (descs[i].id == id)
			return descs[i].fd;
	return -1;
}

/* Entry f of task t becomes FILE_INHERIT of crshim's fd of its description. */
static int to_inherit(const struct rst_task *t, FileEntry *f, struct cr_err *e)
{
	return rst_file_inherit(t, f, find(f->tree_desc), f->reg && f->reg->path ? f->reg->path : "socket",
				e);
}

/* open_once in network namespace net of the dump (0: the root's; crshim goes back to the root's): an inet
 * socket's own, a tun/tap fd's holder's (where its device is). */
static int open_once_net(struct rst_task *ts, const FileEntry *f, uint64_t net, bool late, pid_t owner,
			 struct cr_err *e)
{
	if (net && net != ns_rst_task_net_ino(ts[0].ns, ts[0].pid) && ns_rst_net_fd(ts[0].ns, net) < 0)
		return cr_fail_errno(e, EBADMSG, "file id %u: its net:[%llu] was not restored", f->id,
				     (unsigned long long)net);
	if (net && ns_rst_net_enter(ts[0].ns, net, e))
		return -1;
	int r = open_once(f, ns_rst_root(ts[0].ns), late, owner, e);
	if (net && ns_rst_net_enter(ts[0].ns, 0, e))
		r = -1;
	return r;
}

uint64_t rst_sk_netns(const FileEntry *f)
{
	const InetSkEntry *ie =
	    f->kind == FILE_KIND__FILE_INETSK || f->kind == FILE_KIND__FILE_INHERIT ? f->inet_sk : NULL;
	if (ie)
		return ie->has_netns ? ie->netns : 0;
	if (f->kind == FILE_KIND__FILE_PACKETSK && f->packet_sk)
		return f->packet_sk->has_netns ? f->packet_sk->netns : 0;
	if (f->kind == FILE_KIND__FILE_NETLINKSK && f->netlink_sk)
		return f->netlink_sk->has_netns ? f->netlink_sk->netns : 0;
	return 0;
}

bool rst_sk_away(const struct ns_rst *ns, pid_t pid, const FileEntry *f)
{
	uint64_t net = rst_sk_netns(f);
	return net && net != ns_rst_task_net_ino(ns, pid);
}

static int fdshare_prepare(struct rst_task *ts, size_t n, const size_t *nh, uint32_t max, struct cr_err *e);

int rst_fdshare_prepare(struct rst_task *ts, size_t n, struct cr_err *e)
{
	uint32_t max = 0;
	size_t *nh = n > 1 ? holders_all(ts, n, &max) : NULL; /* (freed below: not a cleanup, scan-build) */
	int ret = fdshare_prepare(ts, n, nh, max, e);
	free(nh);
	return ret;
}

/* Who opens each description of an unlinked FIFO opened once (rst_fifo_all_once): open_once's choice for it,
 * told before anything is opened (rst_fifo_opener). */
static int fifo_openers(struct rst_task *ts, size_t n, struct cr_err *e)
{
	for (size_t k = 0; k < n && !ts[0].dry; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *f = ts[k].files[i];
			if (rst_fifo_all_once(f) && shareable(f) &&
			    rst_fifo_opener(f, holders_owner(ts, n, f->tree_desc), e))
				return cr_wrap(e, "task %d", ts[k].pid);
		}
	return 0;
}

static int fdshare_prepare(struct rst_task *ts, size_t n, const size_t *nh, uint32_t max, struct cr_err *e)
{
	if (fifo_openers(ts, n, e))
		return -1;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			FileEntry *f = ts[k].files[i];
			if (!shareable(f))
				continue;
			/* (a socket of another network namespace than its holder's: crshim makes it there) */
			bool away = rst_sk_away(ts[0].ns, ts[k].pid, f);
			size_t h = n < 2		       ? 0
				   : nh && f->tree_desc <= max ? nh[f->tree_desc]
							       : rst_fdshare_holders(ts, n, f->tree_desc);
			if (!away && !rst_fifo_all_once(f) && h < 2)
				continue;
			uint64_t net = f->reg && f->reg->tun_iff ? ns_rst_task_net_ino(ts[0].ns, ts[k].pid)
								 : rst_sk_netns(f);
			/* (a dry run, restore-check.c: nothing made, the entries only become inherited) */
			if (!ts[0].dry && find(f->tree_desc) < 0 &&
			    (open_once_net(ts, f, net, true, holders_owner(ts, n, f->tree_desc), e) ||
			     joiner_chan(ts, n, f->tree_desc, e)))
				return cr_wrap(e, "task %d", ts[k].pid);
			if (away)
				pr_info("task %d, socket file id %u: made by crshim in net:[%llu]\n",
					ts[k].pid, f->id, (unsigned long long)rst_sk_netns(f));
			if (to_inherit(&ts[k], f, e))
				return -1;
		}
	return 0;
}

int rst_fdshare_one(struct rst_task *ts, size_t n, FileEntry *f, struct cr_err *e)
{
	if (!shareable(f))
		return cr_fail_errno(e, EBADMSG, "file id %u: no path or description number", f->id);
	uint32_t id = f->tree_desc;
	if (find(id) < 0 && f->reg->deleted && rst_ghost_early(ts, n, f->reg->path, e))
		return -1;
	if (find(id) < 0 && open_once_net(ts, f, rst_sk_netns(f), false, 0, e))
		return -1;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			FileEntry *g = ts[k].files[i];
			if (shareable(g) && g->tree_desc == id && to_inherit(&ts[k], g, e))
				return -1;
		}
	return 0;
}

void rst_fdshare_done(void)
{
	for (size_t i = 0; i < nr_descs; i++) {
		close(descs[i].fd);
		if (descs[i].joiners)
			close(descs[i].chan[0]), close(descs[i].chan[1]);
	}
	free(descs);
	descs = NULL;
	nr_descs = 0;
}

/* ---------------------------------------------------------------- files in flight, by id (fdshare.h) */

FileEntry *rst_sk_scm_find(const struct rst_task *t, uint32_t id, const struct rst_task **owner)
{
	const FileEntry *f = rst_file_by_id(t, id);
	/* carried by a process dumped before too: that one's (an earlier process: no loop) */
	for (int hops = 0; f && f->has_same_flight_pid && f->has_same_flight_id && hops < 1024; hops++) {
		const struct rst_task *o = rst_tree_task(t->ntree ? t->tree : (struct rst_task *)t,
							 t->ntree ? t->ntree : 1, f->same_flight_pid);
		if (!o || o == t)
			return NULL;
		t = o;
		f = rst_file_by_id(t, f->same_flight_id);
	}
	if (f && f->has_same_flight_pid)
		return NULL;
	if (owner)
		*owner = t;
	if (f && f->has_same_fd) {
		uint32_t fid = 0;
		for (size_t i = 0; i < t->nr_fdinfo && !fid; i++)
			if (t->fdinfo[i]->fd == f->same_fd)
				fid = t->fdinfo[i]->id;
		f = fid ? rst_file_by_id(t, fid) : NULL;
	}
	return (FileEntry *)f;
}

FileEntry *rst_sk_scm_entry(const struct rst_task *t, uint32_t id)
{
	return rst_sk_scm_find(t, id, NULL);
}
